import { liveView, loadPlotly, showControls, themed, urlState } from "../core.js";

// ---- Lesson 5: the memory timeline of one iteration ----------------------------------------------
export default function mount(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const now = root.querySelector(".c9-now");
  const summary = root.querySelector(".c9-summary");
  const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  let view = JSON.parse(root.dataset.default);
  let frame = view.n - 1, timer = null;

  const figureAt = (k) => {
    const [line, peak] = view.figure.data;
    const shown = { ...line, x: line.x.slice(0, k + 1), y: line.y.slice(0, k + 1), text: line.text.slice(0, k + 1) };
    const data = [shown, k >= view.peak_index ? peak : { ...peak, x: [], y: [], text: [] }];
    return themed({ data, layout: view.figure.layout });
  };
  const announce = (k) => {
    const line = view.figure.data[0];
    now.textContent = `第 ${k} 步(共 ${view.n - 1} 步):${line.text[k]},${line.y[k].toFixed(1)} GB。`;
  };
  const drawFrame = (k, speak) => {
    frame = k;
    if (window.Plotly) { const f = figureAt(k); window.Plotly.react(chart, f.data, f.layout, f.config); }
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

  loadPlotly(root).then((Plotly) => {
    if (!root.isConnected) return;
    const f = figureAt(frame);
    Plotly.newPlot(chart, f.data, f.layout, f.config).then(() => { root.dataset.chart = "drawn"; });
  }).catch(() => { chart.textContent = "图表脚本没能加载；下面的文字和表格给出了同样的数字。"; });

  return () => { pause(); if (window.Plotly) window.Plotly.purge(chart); };
}
