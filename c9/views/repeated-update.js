import { drawChart, redrawChart } from "../charts.js";
import { liveView, unreadableNumber } from "../live-view.js";
import { showControls, urlState } from "../url-state.js";

// ---- Lessons 2–3: the same small update, again and again, in 16 bits and in an FP32 master ---------
export default function mount(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const summary = root.querySelector(".c9-summary");
  const body = root.querySelector(".c9-ru-final tbody");
  let view = JSON.parse(root.dataset.default);

  const draw = (v, restoring) => {
    view = v;
    if (restoring) showControls(form, v.params);
    summary.textContent = v.summary;
    v.table.forEach((r, i) => { const row = body.rows[i]; if (row) { row.cells[0].textContent = r.label; row.cells[1].textContent = r.text; } });
    redrawChart(chart, v.figure);
  };
  const { send, refuse } = liveView("repeated-update", root, draw);
  const params = () => ({
    fmt: form.elements.fmt.value, w0: form.elements.w0.value, delta: form.elements.delta.value, steps: form.elements.steps.value,
  });
  const go = () => {
    const bad = unreadableNumber(form.elements.steps, "步数");
    if (bad) refuse(bad); else send(params());
  };
  form.addEventListener("submit", (e) => { e.preventDefault(); go(); });
  form.addEventListener("change", go);

  urlState(root, "ru", ["fmt", "w0", "delta", "steps"]).restore(send, params());
  return drawChart(root, chart, () => view.figure);
}
