import { liveView } from "../live-view.js";
import { urlState } from "../url-state.js";

// ---- Lesson 5's opening: one training step, stage by stage, on the anchor -------------------------
// A button per stage; Python answers with the stage's figure and what it holds (c9/views/step_stages.py).
export default function mount(root) {
  const summary = root.querySelector(".c9-summary");
  const buttons = [...root.querySelectorAll("button.c9-stage")];
  const rows = [...root.querySelectorAll("tr[data-stage]")];
  root.classList.add("c9-stages-live"); // the summary now says what the chosen stage holds: the list of all hides
  const draw = (v) => {
    summary.textContent = v.summary;
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.stage === v.params.stage));
    for (const row of rows) {
      const s = v.stages.find((x) => x.key === row.dataset.stage);
      const on = row.dataset.stage === v.params.stage;
      row.classList.toggle("c9-chosen", on);
      if (on) row.setAttribute("aria-current", "true"); else row.removeAttribute("aria-current");
      if (s) { row.cells[1].textContent = s.gb_text; row.cells[2].textContent = s.share; }
    }
  };
  const { send } = liveView("step-stages", root, draw);
  const url = urlState(root, "st", { stage: "stage" });
  for (const b of buttons) b.addEventListener("click", () => send({ stage: b.dataset.stage }));
  url.restore(send, { stage: JSON.parse(root.dataset.default).params.stage });
  return null;
}
