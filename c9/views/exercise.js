import { readerEditor, runReaderCode, storage } from "../reader-code.js";

// ---- 动手写: the reader's function, run in the Python worker and checked against the chapter's ----
// The reader's code is kept per exercise in localStorage (this browser only); the editor and the run
// within a time limit are reader-code.js, which the scratchpad shares.

export default function mount(root) {
  const id = root.dataset.exercise;
  const key = `c9:exercise:${id}`;
  const attempts = Number(root.dataset.attempts) || 3;
  const area = root.querySelector(".c9-exercise-code");
  const run = root.querySelector(".c9-exercise-run");
  const reset = root.querySelector(".c9-exercise-reset");
  const summary = root.querySelector(".c9-exercise-summary");
  const caseList = root.querySelector(".c9-exercise-case");
  const hint = root.querySelector(".c9-exercise-hint");
  const solution = root.querySelector(".c9-exercise-solution");
  const stub = area.defaultValue;
  const code = readerEditor(root, area, {
    onChange: () => keep(),
    keysText: "编辑框里 Tab 键用来缩进；要离开编辑框，先按 Esc 再按 Tab。代码只保存在这台设备的浏览器里。",
  });
  const saved = storage.read(key);
  if (typeof saved.code === "string") code.value = saved.code;
  let failures = Number(saved.failures) || 0;
  let solved = Boolean(saved.solved);
  const keep = () => storage.write(key, { code: code.value, failures, solved });

  const showSolution = () => { solution.hidden = !(solved || failures >= attempts); };
  showSolution();
  run.hidden = reset.hidden = false;
  summary.textContent = summary.querySelector(".c9-js-only").textContent; // the build wrote it, shown from the start

  const say = (text, v = null) => {
    summary.textContent = text;
    caseList.hidden = !(v && v.case);
    if (v && v.case) {
      root.querySelector(".c9-exercise-in").textContent = v.case.input;
      root.querySelector(".c9-exercise-got").textContent = v.case.got || "（出错，没有返回值）";
      root.querySelector(".c9-exercise-want").textContent = v.case.want;
    }
    hint.textContent = (v && v.hint) ? `提示：${v.hint}` : "";
    hint.hidden = !hint.textContent;
  };

  let runs = 0; // finished runs, for tests (data-runs)
  const check = async () => {
    run.disabled = true;
    root.setAttribute("aria-busy", "true");
    try {
      const { view: v, message } = await runReaderCode("exercise", { id, code: code.value }, say);
      if (!v) { say(message); return; }
      if (v.passed) solved = true; else if (v.ran) failures += 1; // code that never ran is no attempt
      keep();
      const opened = !v.passed && failures === attempts ? "已经试了 " + attempts + " 次，参考答案已在下面展开。" : "";
      say(v.summary + opened, v);
      showSolution();
      if (opened) solution.open = true;
    } finally {
      root.dataset.runs = String(++runs);
      run.disabled = false;
      root.removeAttribute("aria-busy");
    }
  };

  const onReset = () => {
    code.value = stub;
    keep();
    say("已恢复初始代码。");
    code.focus();
  };
  run.addEventListener("click", check);
  reset.addEventListener("click", onReset);
  return () => {
    code.destroy();
    run.removeEventListener("click", check);
    reset.removeEventListener("click", onReset);
  };
}
