import { drawChart, redrawChart } from "../charts.js";
import { liveView } from "../live-view.js";
import { showControls, urlState } from "../url-state.js";

// ---- Lesson 5: the memory timeline of one iteration ----------------------------------------------
export default function mount(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const now = root.querySelector(".c9-now");
  const summary = root.querySelector(".c9-summary");
  const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  let view = JSON.parse(root.dataset.default);
  let frame = view.n - 1, timer = null;

  // The curve up to moment k. Every trace Python sent is drawn (the curve, the peak, the lab's measured
  // points): the others show their points at moments the curve has reached.
  const figureAt = (k) => {
    const upTo = (t) => {
      const keep = t.x.map((x, i) => (x <= k ? i : -1)).filter((i) => i >= 0);
      const out = { ...t };
      for (const key of ["x", "y", "text", "customdata"]) if (Array.isArray(t[key])) out[key] = keep.map((i) => t[key][i]);
      return out;
    };
    return { data: view.figure.data.map(upTo), layout: view.figure.layout };
  };
  const announce = (k) => {
    const line = view.figure.data[0];
    // the moment's size as Python wrote it: rounded as the summary rounds it (a peak reads the same in both)
    now.textContent = `第 ${k} 步（共 ${view.n - 1} 步）：${line.text[k]}，${line.customdata[k]}。`;
  };
  const drawFrame = (k, speak) => {
    frame = k;
    redrawChart(chart, figureAt(k));
    if (speak) announce(k);
  };
  const pause = () => {
    if (timer) announce(frame); // say where the curve stopped
    clearInterval(timer); timer = null;
  };
  const play = () => {
    pause();
    if (reduceMotion.matches) { drawFrame(view.n - 1, true); return; }
    let k = frame >= view.n - 1 ? 0 : frame;
    const perFrame = Math.max(16, Math.round(6000 / view.n)); // about six seconds for one iteration
    timer = setInterval(() => {
      drawFrame(k, false);
      if (k >= view.n - 1) { pause(); announce(k); }
      k += 1;
    }, perFrame);
  };
  const step = () => { pause(); drawFrame(frame >= view.n - 1 ? 0 : frame + 1, true); };

  const draw = (v, restoring) => {
    pause();
    view = v;
    if (restoring) showControls(form, v.params);
    summary.textContent = v.summary;
    root.querySelector(".c9-caption-note").textContent = v.caption_note; // what the chart's lines mean
    const tbody = root.querySelector(".c9-marks tbody");
    tbody.replaceChildren(...v.marks.map((m) => {
      const tr = document.createElement("tr");
      for (const text of [m.i, m.label + (m.i === v.peak_index ? "（峰值）" : ""), m.text]) {
        const td = document.createElement("td"); td.textContent = text; tr.append(td);
      }
      return tr;
    }));
    drawFrame(v.n - 1, false);
    now.textContent = ""; // a step line from the previous state would name a step this one lacks
  };
  const { send } = liveView("timeline", root, draw);
  const params = () => ({
    model: form.elements.model.value,
    iteration: Number(form.elements.iteration.value),
    mode: form.elements.mode.value,
  });
  form.addEventListener("input", () => send(params()));
  urlState(root, "tl", ["model", "iteration", "mode"]).restore(send, params());
  form.addEventListener("submit", (e) => e.preventDefault());
  form.addEventListener("click", (e) => {
    const action = e.target.closest("button[data-action]")?.dataset.action;
    if (action === "play") play();
    if (action === "pause") pause();
    if (action === "step") step();
  });

  const teardown = drawChart(root, chart, () => figureAt(frame));
  return () => { pause(); teardown(); };
}
