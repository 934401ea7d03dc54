import { liveView } from "../live-view.js";

// ---- Lesson 5: Korthikanti's formula, term by term ------------------------------------------------
export default function mount(root) {
  const summary = root.querySelector(".c9-formula-summary");
  const beyond = root.querySelector(".c9-formula-beyond");
  const items = new Map([...root.querySelectorAll(".c9-term-item")].map((el) => [el.dataset.term, el]));
  const buttons = [...root.querySelectorAll("button.c9-term")];
  const select = (key) => {
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.term === key));
    for (const [k, el] of items) el.classList.toggle("c9-active", k === key);
  };
  for (const b of buttons) {
    b.addEventListener("click", () => select(b.dataset.term));
    b.addEventListener("focus", () => select(b.dataset.term));
  }
  const draw = (v) => {
    summary.textContent = v.summary;
    beyond.textContent = v.beyond;
    for (const term of v.terms) {
      const value = items.get(term.key)?.querySelector(".c9-term-value");
      if (value) value.textContent = term.value;
    }
  };
  const { send } = liveView("formula", root, draw);
  // Follows the bar once its slider rests (150 ms): while it moves, the bar's own requests have the
  // Python worker to themselves, so each redraw is not kept waiting behind this panel's.
  let timer = null;
  const follow = (e) => {
    clearTimeout(timer);
    timer = setTimeout(() => send({ model: e.detail.model, config: e.detail.config, s: e.detail.s, b: e.detail.b }), 150);
  };
  document.addEventListener("c9:memory-bar", follow);
  return () => { clearTimeout(timer); document.removeEventListener("c9:memory-bar", follow); };
}
