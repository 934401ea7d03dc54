import { liveView, unreadableNumber, urlState } from "../core.js";

// ---- Lesson 5: the stacked memory bar -----------------------------------------------------------
export default function mount(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const summary = root.querySelector(".c9-summary");
  const tbody = root.querySelector(".c9-segments tbody");
  const explain = root.querySelector(".c9-explain");
  const stops = root.dataset.stops.split(",").map(Number);
  const sRange = form.elements.s_stop, sBox = form.elements.s, bRange = form.elements.b;
  let view = JSON.parse(root.dataset.default);

  const syncControls = (p) => {
    form.elements.model.value = p.model;
    sBox.value = p.s;
    sRange.value = nearestStop(p.s);
    bRange.value = p.b;
    form.elements.b_out.value = p.b;
    for (const r of form.elements.mode) r.checked = r.value === p.mode;
    form.elements.s2_full_only.checked = p.s2_full_only;
  };
  const draw = (v, restoring) => {
    view = v;
    if (restoring) syncControls(v.params); // a state opened from the address: the controls show it
    // A typed "1e3" that Python read as 1,000 is shown as 1000 (a number still being typed is left alone).
    else if (Number(sBox.value) === v.params.s && sBox.value !== String(v.params.s)) sBox.value = v.params.s;
    summary.textContent = v.summary;
    document.dispatchEvent(new CustomEvent("c9:memory-bar", { detail: v.params }));
    const shown = new Set(v.segments.map((seg) => seg.key));
    for (const row of tbody.rows) row.hidden = !shown.has(row.dataset.key); // e.g. no master weights in FP32
    for (const seg of v.segments) {
      const row = tbody.querySelector(`tr[data-key="${seg.key}"]`);
      if (!row) continue;
      row.querySelector("button.c9-seg").lastChild.textContent = seg.label; // e.g. 权重(FP32) for the lab's model
      row.cells[1].textContent = seg.text;
      row.cells[2].textContent = seg.formula;
    }
    if (explain.dataset.key) showSegment(explain.dataset.key);
    chart.innerHTML = v.chart; // SVG markup from Python, the same the build wrote into the page
  };
  const showSegment = (key) => {
    const seg = view.segments.find((s) => s.key === key);
    if (!seg) return;
    explain.dataset.key = key;
    explain.textContent = `${seg.label}：${seg.text}，按 ${seg.formula} 计。${seg.note}`;
  };
  const params = () => ({
    model: form.elements.model.value,
    s: sBox.value.trim(),
    b: Number(bRange.value),
    mode: form.elements.mode.value,
    s2_full_only: form.elements.s2_full_only.checked,
  });
  const { send, say } = liveView("memory-bar", root, draw);

  const nearestStop = (s) => stops.reduce((best, x, i) => Math.abs(Math.log(x / s)) < Math.abs(Math.log(stops[best] / s)) ? i : best, 0);
  // Python judges a typed s; the slider only follows a value inside its own range.
  const sInRange = (s) => Number.isInteger(s) && s >= stops[0] && s <= stops[stops.length - 1];
  const onInput = (e) => {
    if (e.target === sRange) sBox.value = stops[Number(sRange.value)];
    if (e.target === sBox) {
      const s = Number(sBox.value);
      if (sInRange(s)) sRange.value = nearestStop(s);
    } else if (!sInRange(Number(sBox.value))) {
      sBox.value = view.params.s; // another control moved: drop a rejected typed s, keep the last good one
    }
    sRange.setAttribute("aria-valuetext", `s = ${Number(stops[Number(sRange.value)]).toLocaleString("en-US")}`);
    form.elements.b_out.value = bRange.value;
    send(params());
  };
  form.addEventListener("input", (e) => { if (e.target !== sBox) onInput(e); });
  // Typed values are sent once committed. A number box holding what it cannot read (1e400) reports "",
  // so say what is wrong rather than letting Python call it empty.
  const typed = () => {
    const bad = unreadableNumber(sBox, "序列长度 s ");
    if (bad) { say(bad, "error"); root.dataset.stale = ""; } else onInput({ target: sBox });
  };
  sBox.addEventListener("change", typed);
  form.addEventListener("submit", (e) => { e.preventDefault(); typed(); });
  tbody.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-key]");
    if (b) showSegment(b.dataset.key);
  });

  // The bar's state in the address (core.js: urlState): ?mb.model=…&mb.s=…&mb.b=…&mb.mode=…&mb.s2=1; older
  // links without the "mb." still open. Python checks the values; a bad one gets the same Chinese
  // message as a bad typed value, and the default state stays.
  const url = urlState(root, "mb", { model: "model", s: "s", b: "b", mode: "mode", s2: "s2_full_only" },
    { legacy: ["model", "s", "b", "mode", "s2"] });
  url.restore(send, params());

  chart.addEventListener("click", (e) => {
    const key = e.target.closest("rect[data-key]")?.dataset.key;
    if (key) showSegment(key);
  });
  performance.mark("c9:widget-ready");
  return null;
}
