// ---- Guided tasks: predict, try it in the widget, check ------------------------------------------
// Markdown: an admonition "task" holding a list of choices (the right one marked {: .correct }) and a
// collapsible answer. The build writes each choice's radio button, the 「核对」 button and the verdict line
// (hooks/tasks.py), so the task does not change size here; this only listens. Without JavaScript the
// radios and the button are hidden and the reader opens the answer.
export default function mount(root) {
  const answer = root.querySelector("details");
  const check = root.querySelector(".c9-task-check");
  const verdict = root.querySelector(".c9-verdict");
  const choices = [...root.querySelectorAll(".c9-task-choices li")].map((li) => ({
    li, input: li.querySelector('input[type="radio"]'), correct: li.classList.contains("correct"),
  }));
  if (!answer || !check || !verdict || !choices.length) return null;
  const onCheck = () => {
    const picked = choices.find((c) => c.input.checked);
    if (!picked) { verdict.textContent = "先选一个你的预测。"; return; }
    verdict.textContent = picked.correct ? "预测对了。下面是道理：" : "和算出来的不一样。下面是道理：";
    verdict.dataset.kind = picked.correct ? "ok" : "error";
    for (const c of choices) c.li.classList.toggle("c9-correct", c.correct);
    answer.open = true;
  };
  check.addEventListener("click", onCheck);
  return () => check.removeEventListener("click", onCheck);
}
