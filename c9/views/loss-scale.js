import { drawChart, redrawChart } from "../charts.js";
import { powerOfTwo } from "../format.js";
import { liveView } from "../live-view.js";
import { showControls, urlState } from "../url-state.js";

// ---- Lesson 2: loss scaling shifts the whole gradient histogram along the log2 axis -----------------
export default function mount(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const summary = root.querySelector(".c9-summary");
  const range = form.elements.k;
  let view = JSON.parse(root.dataset.default);

  // The readout follows the thumb at once (Python's k_text replaces it with the same text when it answers).
  const showK = (text) => {
    form.elements.k_out.value = text || powerOfTwo(range.value);
    range.setAttribute("aria-valuetext", `S = 2 的 ${range.value} 次方`);
  };
  const draw = (v, restoring) => {
    view = v;
    if (restoring) showControls(form, v.params);
    showK(v.k_text);
    summary.textContent = v.summary;
    const label = root.querySelector(".c9-ls-source-label");
    if (label) label.textContent = v.source_label;
    for (const [k, text] of Object.entries(v.shares)) {
      const td = root.querySelector(`td[data-k="${k}"]`);
      if (td) td.textContent = text;
    }
    redrawChart(chart, v.figure);
  };
  const { send } = liveView("loss-scale", root, draw);
  const params = () => ({
    k: Number(range.value), source: form.elements.source ? form.elements.source.value : view.params.source, fmt: view.params.fmt,
  });
  form.addEventListener("input", () => { showK(); send(params()); });
  form.addEventListener("submit", (e) => e.preventDefault());

  urlState(root, "ls", ["k", "source"]).restore(send, params());
  return drawChart(root, chart, () => view.figure);
}
