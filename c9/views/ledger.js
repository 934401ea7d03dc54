import { drawChart, redrawChart } from "../charts.js";
import { thousands } from "../format.js";
import { liveView } from "../live-view.js";
import { showControls, urlState } from "../url-state.js";

// ---- Lesson 1: the model-states ledger per recipe, and the conventions table ------------------------
export default function mount(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const summary = root.querySelector(".c9-summary");
  const barsBody = root.querySelector(".c9-ledger-bars tbody");
  const convBody = root.querySelector(".c9-ledger-conv tbody");
  const toolsBody = root.querySelector(".c9-ledger-tools tbody");
  const range = form.elements.log10_params;
  let view = JSON.parse(root.dataset.default);

  const draw = (v, restoring) => {
    view = v;
    if (restoring) showControls(form, v.params);
    summary.textContent = v.summary;
    form.elements.n_out.value = thousands(v.params.param_total);
    range.setAttribute("aria-valuetext", v.label);
    for (const b of v.bars) {
      const row = barsBody.querySelector(`tr[data-key="${b.key}"]`);
      if (row) { row.cells[1].textContent = `${b.bytes_per_param} 字节`; row.cells[2].textContent = b.text; row.cells[3].textContent = b.cards_column; }
    }
    for (const c of v.conventions) {
      const row = convBody.querySelector(`tr[data-key="${c.key}"]`);
      if (!row) continue;
      row.cells[2].textContent = c.total_text;
      row.classList.toggle("c9-chosen", c.key === v.chosen);
      if (c.key === v.chosen) row.setAttribute("aria-current", "true"); else row.removeAttribute("aria-current");
    }
    for (const t of v.tools) {
      const row = toolsBody.querySelector(`tr[data-key="${t.key}"]`);
      if (row) t.cells.forEach((text, i) => { row.cells[i + 2].textContent = text; });
    }
    redrawChart(chart, v.figure);
  };
  const params = () => ({
    model: form.elements.model.value,
    log10_params: Number(range.value),
    convention: form.elements.convention.value,
  });
  const { send } = liveView("ledger", root, draw);
  const url = urlState(root, "ledger", { model: "model", log10: "log10_params", conv: "convention" });
  form.addEventListener("input", (e) => {
    // Moving the slider means "a custom parameter count".
    if (e.target === range) form.querySelector('input[name="model"][value="custom"]').checked = true;
    send(params());
  });
  form.addEventListener("submit", (e) => e.preventDefault());
  convBody.addEventListener("click", (e) => {
    const row = e.target.closest("tr[data-key]");
    if (row) { form.elements.convention.value = row.dataset.key; send(params()); }
  });

  url.restore(send, params());
  return drawChart(root, chart, () => view.figure);
}
