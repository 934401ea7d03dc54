// ---- Guided tasks: predict, try it in the widget, check ------------------------------------------
// Markdown: an admonition "task" holding a list of choices (the right one marked {: .correct }) and a
// collapsible answer. Without JavaScript the reader sees the choices and opens the answer.
export default function mount(root) {
  const list = root.querySelector("ul");
  const answer = root.querySelector("details");
  if (!list || !answer) return null;
  const name = `c9-task-${Math.random().toString(36).slice(2)}`;
  const choices = [...list.children].map((li, i) => {
    const label = document.createElement("label");
    label.className = "c9-choice";
    const input = Object.assign(document.createElement("input"), { type: "radio", name, value: String(i) });
    label.append(input, " ", ...li.childNodes);
    li.replaceChildren(label);
    return { li, input, correct: li.classList.contains("correct") };
  });
  list.classList.add("c9-task-choices");
  const check = Object.assign(document.createElement("button"), { type: "button", className: "md-button", textContent: "核对" });
  const verdict = Object.assign(document.createElement("p"), { className: "c9-verdict" });
  verdict.setAttribute("aria-live", "polite");
  list.after(check, verdict);
  check.addEventListener("click", () => {
    const picked = choices.find((c) => c.input.checked);
    if (!picked) { verdict.textContent = "先选一个你的预测。"; return; }
    verdict.textContent = picked.correct ? "预测对了。下面是道理：" : "和算出来的不一样。下面是道理：";
    verdict.dataset.kind = picked.correct ? "ok" : "error";
    for (const c of choices) c.li.classList.toggle("c9-correct", c.correct);
    answer.open = true;
  });
  return null;
}
