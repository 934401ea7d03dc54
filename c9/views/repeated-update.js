import { drawChart, redrawChart } from "../charts.js";
import { liveView, markInvalid, outOfRange, unreadableNumber } from "../live-view.js";
import { showControls, urlState } from "../url-state.js";

// ---- Lessons 2–3: the same small update, again and again, in 16 bits and in an FP32 master ---------
export default function mount(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const summary = root.querySelector(".c9-summary");
  const body = root.querySelector(".c9-ru-final tbody");
  let view = JSON.parse(root.dataset.default);
  const defaultSeed = String(view.params.seed);

  const draw = (v, restoring) => {
    view = v;
    if (restoring) { showControls(form, v.params); showSeed(); }
    summary.textContent = v.summary;
    // one row per line: a fifth (stochastic rounding or Kahan) comes and goes with the chosen method
    body.replaceChildren(...v.table.map((r) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th"); th.scope = "row"; th.textContent = r.label;
      const td = document.createElement("td"); td.textContent = r.text;
      tr.append(th, td);
      return tr;
    }));
    redrawChart(chart, v.figure);
  };
  const { send, refuse } = liveView("repeated-update", root, draw);
  const params = () => ({
    fmt: form.elements.fmt.value, w0: form.elements.w0.value, delta: form.elements.delta.value, steps: form.elements.steps.value,
    // the seed only where stochastic rounding reads it: elsewhere the default's, so the build's answers match
    method: form.elements.method.value,
    seed: form.elements.method.value === "stochastic" ? form.elements.seed.value : defaultSeed,
  });
  // The seed is read by stochastic rounding only: its box is open for that method alone.
  const showSeed = () => { form.elements.seed.disabled = form.elements.method.value !== "stochastic"; };
  const go = () => {
    showSeed();
    const seeded = form.elements.method.value === "stochastic";
    const { steps, seed } = form.elements;
    const wrong = (box, name) => unreadableNumber(box, name) || outOfRange(box, name);
    const bad = wrong(steps, "步数") || (seeded && wrong(seed, "随机种子"));
    markInvalid(steps, wrong(steps, "步数"));
    markInvalid(seed, seeded && wrong(seed, "随机种子"));
    if (bad) refuse(bad); else send(params());
  };
  form.addEventListener("submit", (e) => { e.preventDefault(); go(); });
  form.addEventListener("change", go);

  urlState(root, "ru", ["fmt", "w0", "delta", "steps", "method", "seed"]).restore(send, params());
  return drawChart(root, chart, () => view.figure);
}
