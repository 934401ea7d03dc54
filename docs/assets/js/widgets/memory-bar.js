import { liveView, loadPlotly, redrawChart, themed } from "../core.js";

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
  let syncNext = false; // set for a state opened from the URL, so the controls show it
  const draw = (v) => {
    view = v;
    if (syncNext) { syncControls(v.params); syncNext = false; }
    summary.textContent = v.summary;
    document.dispatchEvent(new CustomEvent("c9:memory-bar", { detail: v.params }));
    const shown = new Set(v.segments.map((seg) => seg.key));
    for (const row of tbody.rows) row.hidden = !shown.has(row.dataset.key); // e.g. no master weights in FP32
    for (const seg of v.segments) {
      const row = tbody.querySelector(`tr[data-key="${seg.key}"]`);
      if (row) { row.cells[1].textContent = seg.text; row.cells[2].textContent = seg.formula; }
    }
    if (explain.dataset.key) showSegment(explain.dataset.key);
    redrawChart(chart, v.figure);
  };
  const showSegment = (key) => {
    const seg = view.segments.find((s) => s.key === key);
    if (!seg) return;
    explain.dataset.key = key;
    explain.textContent = `${seg.label}:${seg.text},按 ${seg.formula} 计。${seg.note}`;
  };
  const params = () => ({
    model: form.elements.model.value,
    s: sBox.value.trim(),
    b: Number(bRange.value),
    mode: form.elements.mode.value,
    s2_full_only: form.elements.s2_full_only.checked,
  });
  const { send } = liveView("memory-bar", root, draw);

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
  sBox.addEventListener("change", onInput);   // typed values are sent once committed
  form.addEventListener("submit", (e) => { e.preventDefault(); onInput({ target: sBox }); });
  tbody.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-key]");
    if (b) showSegment(b.dataset.key);
  });

  // A link can open the bar in a given state: ?model=…&s=…&b=…&mode=…&s2=1. Python checks the values;
  // a bad one gets the same Chinese message as a bad typed value, and the default state stays.
  const query = new URLSearchParams(location.search);
  if (["model", "s", "b", "mode", "s2"].some((k) => query.has(k))) {
    const wanted = { ...params() };
    if (query.has("model")) wanted.model = query.get("model");
    if (query.has("s")) wanted.s = query.get("s");
    if (query.has("b")) wanted.b = query.get("b");
    if (query.has("mode")) wanted.mode = query.get("mode");
    if (query.has("s2")) wanted.s2_full_only = query.get("s2") === "1";
    syncNext = true;
    send(wanted);
  }

  loadPlotly().then((Plotly) => {
    if (!root.isConnected) return;
    const f = themed(view.figure);
    Plotly.newPlot(chart, f.data, f.layout, f.config).then(() => {
      chart.on("plotly_click", (ev) => { const key = ev.points?.[0]?.customdata; if (key) showSegment(key); });
      performance.mark("c9:widget-ready");
      root.dataset.chart = "drawn";
    });
  }).catch(() => {
    chart.textContent = "图表脚本没能加载;下面的文字和表格给出了同样的数字。";
  });

  return () => { if (window.Plotly) window.Plotly.purge(chart); };
}
