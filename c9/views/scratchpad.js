import { readerEditor, runReaderCode, storage } from "../reader-code.js";

// ---- The Python scratchpad: the reader's lines, run like a notebook cell in the page's Python ----
// What it printed, then the value of its last expression. The code is kept per page in localStorage (this
// browser only); the editor and the run within a time limit are reader-code.js, which the exercises share.

export default function mount(root) {
  const key = `c9:scratchpad:${root.dataset.page}`;
  const live = root.querySelector(".c9-scratch-live");
  const area = root.querySelector(".c9-exercise-code");
  const run = root.querySelector(".c9-scratch-run");
  const clear = root.querySelector(".c9-scratch-clear");
  const reset = root.querySelector(".c9-scratch-reset");
  const summary = root.querySelector(".c9-scratch-summary");
  const out = root.querySelector(".c9-scratch-out");
  const example = area.defaultValue;
  const code = readerEditor(root, area, {
    onChange: () => keep(),
    onRun: () => execute(),
    keysText: "按 Ctrl+Enter（Mac 上按 ⌘+Enter）或「运行」执行。编辑框里 Tab 键用来缩进；要离开编辑框，"
      + "先按 Esc 再按 Tab。代码只保存在这台设备的浏览器里。",
  });
  const saved = storage.read(key);
  if (typeof saved.code === "string") code.value = saved.code;
  const keep = () => storage.write(key, { code: code.value });
  live.hidden = false;

  const say = (text, error = false) => {
    summary.textContent = text;
    if (error) summary.dataset.kind = "error"; else delete summary.dataset.kind;
  };
  const show = (text) => {
    out.firstElementChild.textContent = text;
    out.hidden = !text;
  };

  let runs = 0; // finished runs, for tests (data-runs)
  let running = false;
  const execute = async () => {
    if (running) return;
    running = true;
    run.disabled = true;
    root.setAttribute("aria-busy", "true");
    try {
      const { view: v, message } = await runReaderCode("scratchpad", { code: code.value }, say);
      if (!v) { say(message, true); show(""); return; }
      // The output as a notebook shows it: what was printed, then the last value.
      show(v.output + (v.value && v.output && !v.output.endsWith("\n") ? "\n" : "") + v.value);
      say(v.summary, Boolean(v.error));
    } finally {
      root.dataset.runs = String(++runs);
      running = false;
      run.disabled = false;
      root.removeAttribute("aria-busy");
    }
  };

  const replace = (text, said) => {
    code.value = text;
    keep();
    show("");
    say(said);
    code.focus();
  };
  const onClear = () => replace("", "已清空。");
  const onReset = () => replace(example, "已恢复示例。");
  run.addEventListener("click", execute);
  clear.addEventListener("click", onClear);
  reset.addEventListener("click", onReset);
  return () => {
    code.destroy();
    run.removeEventListener("click", execute);
    clear.removeEventListener("click", onClear);
    reset.removeEventListener("click", onReset);
  };
}
