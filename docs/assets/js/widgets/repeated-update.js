import { drawChart, liveView, redrawChart } from "../core.js";

// ---- Lessons 2–3: the same small update, again and again, in 16 bits and in an FP32 master ---------
export default function mount(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const summary = root.querySelector(".c9-summary");
  const body = root.querySelector(".c9-ru-final tbody");
  let view = JSON.parse(root.dataset.default);

  const draw = (v) => {
    view = v;
    summary.textContent = v.summary;
    v.table.forEach((r, i) => { const row = body.rows[i]; if (row) { row.cells[0].textContent = r.label; row.cells[1].textContent = r.text; } });
    redrawChart(chart, v.figure);
  };
  const { send } = liveView("repeated-update", root, draw);
  const params = () => ({
    fmt: form.elements.fmt.value, w0: form.elements.w0.value, delta: form.elements.delta.value, steps: form.elements.steps.value,
  });
  form.addEventListener("submit", (e) => { e.preventDefault(); send(params()); });
  form.addEventListener("change", () => send(params()));

  return drawChart(root, chart, view.figure);
}
