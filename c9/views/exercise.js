import { python, PythonStopped } from "../worker.js";

// ---- 动手写: the reader's function, run in the Python worker and checked against the chapter's ----
// The reader's code is kept per exercise in localStorage (this browser only). A run gets LIMIT_MS once
// Python is up; past it the worker is stopped and restarted (worker.js: askWithin), so a loop that never
// ends costs the reader a few seconds and no other widget.
const LIMIT_MS = 5000;

// CodeMirror 6, self-hosted (hooks/codemirror.py). Tab indents inside it, as in any code editor; Escape
// then Tab leaves it (CodeMirror's own tab-focus mode). If it cannot load, the labelled <textarea> stays.
const CM = "../../../vendor/codemirror/";
async function codeEditor(textarea, onChange) {
  const [{ EditorState }, view, commands, language, { python: pythonLanguage }, { tags }] = await Promise.all(
    ["codemirror-state", "codemirror-view", "codemirror-commands", "codemirror-language", "codemirror-lang-python",
      "lezer-highlight"].map((name) => import(`${CM}${name}.js`)),
  );
  // Material's own code colours, which it sets for both palettes (CodeMirror's default style is for light only).
  const hl = (name) => `var(--md-code-hl-${name}-color)`;
  const highlight = language.HighlightStyle.define([
    { tag: tags.keyword, color: hl("keyword") },
    { tag: [tags.number, tags.bool, tags.null], color: hl("number") },
    { tag: tags.string, color: hl("string") },
    { tag: tags.comment, color: hl("comment"), fontStyle: "italic" },
    { tag: [tags.function(tags.variableName), tags.definition(tags.variableName)], color: hl("function") },
    { tag: [tags.operator, tags.punctuation], color: hl("operator") },
  ]);
  const { EditorView, keymap, lineNumbers } = view;
  const editor = new EditorView({
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        lineNumbers(),
        EditorView.lineWrapping, // a phone shows a long comment whole, not behind a sideways scroll
        commands.history(),
        language.indentOnInput(),
        language.syntaxHighlighting(highlight),
        keymap.of([...commands.defaultKeymap, ...commands.historyKeymap, commands.indentWithTab]),
        EditorState.tabSize.of(4),
        language.indentUnit.of("    "),
        pythonLanguage(),
        EditorView.contentAttributes.of({
          "aria-label": textarea.labels[0]?.textContent || "代码",
          "aria-describedby": textarea.getAttribute("aria-describedby") || "",
          autocapitalize: "off", spellcheck: "false",
        }),
        EditorView.updateListener.of((u) => { if (u.docChanged) onChange(u.state.doc.toString()); }),
      ],
    }),
  });
  // As tall as the box it replaces, at least: the editor arrives after the page is laid out, and a shorter
  // one moved everything below it (a jump to a heading further down missed by the difference).
  editor.dom.style.minHeight = `${textarea.offsetHeight}px`;
  textarea.after(editor.dom);
  textarea.hidden = true;
  // The label points at the textarea: a click on it focuses the editor instead.
  textarea.labels[0]?.addEventListener("click", (e) => { e.preventDefault(); editor.focus(); });
  return {
    get value() { return editor.state.doc.toString(); },
    set value(text) { editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } }); },
    focus: () => editor.focus(),
    destroy: () => editor.destroy(),
  };
}

const storage = {
  read(key) {
    try { return JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch { return {}; }
  },
  write(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode: nothing kept */ }
  },
};

export default function mount(root) {
  const id = root.dataset.exercise;
  const key = `c9:exercise:${id}`;
  const attempts = Number(root.dataset.attempts) || 3;
  const area = root.querySelector(".c9-exercise-code");
  let code = area; // the textarea until CodeMirror has loaded, then an object with the same value/focus
  const run = root.querySelector(".c9-exercise-run");
  const reset = root.querySelector(".c9-exercise-reset");
  const summary = root.querySelector(".c9-exercise-summary");
  const caseList = root.querySelector(".c9-exercise-case");
  const hint = root.querySelector(".c9-exercise-hint");
  const solution = root.querySelector(".c9-exercise-solution");
  const stub = area.defaultValue;
  const saved = storage.read(key);
  if (typeof saved.code === "string") code.value = saved.code;
  let failures = Number(saved.failures) || 0;
  let solved = Boolean(saved.solved);
  const keep = () => storage.write(key, { code: code.value, failures, solved });

  const showSolution = () => { solution.hidden = !(solved || failures >= attempts); };
  showSolution();
  run.hidden = reset.hidden = false;
  summary.textContent = "写好后按「运行并核对」：代码在本页的 Python 里运行，和本章的编码器逐个情形比对。";

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
    say(python.state === "ready" ? "正在运行……" : "正在启动 Python（第一次要几秒）……");
    try {
      // Boot first (an empty answer is quick), so that the time limit counts the reader's code only.
      if (python.state !== "ready") await python.ask({ widget: "exercise", params: { id, code: "" } });
      say("正在运行……");
      const out = await python.askWithin({ widget: "exercise", params: { id, code: code.value } }, LIMIT_MS);
      if (!out.ok) { say(out.error); return; }
      const v = out.view;
      if (v.passed) solved = true; else failures += 1;
      keep();
      const opened = !v.passed && failures === attempts ? "已经试了 " + attempts + " 次，参考答案已在下面展开。" : "";
      say(v.summary + opened, v);
      showSolution();
      if (opened) solution.open = true;
    } catch (err) {
      if (err instanceof PythonStopped) {
        say(`代码运行超过 ${LIMIT_MS / 1000} 秒，已被停下（可能是死循环）。Python 已重新启动，页面上的其他组件照常可用。`);
      } else {
        say("Python 没能启动，这里暂时无法核对；参考答案不受影响。");
      }
    } finally {
      root.dataset.runs = String(++runs);
      run.disabled = false;
      root.removeAttribute("aria-busy");
    }
  };

  const onInput = () => keep();
  const keys = root.querySelector(".c9-exercise-keys");
  let closed = false;
  codeEditor(area, () => keep()).then((editor) => {
    if (closed) { editor.destroy(); return; }
    code = editor;
    keys.textContent = "编辑框里 Tab 键用来缩进；要离开编辑框，先按 Esc 再按 Tab。代码只保存在这台设备的浏览器里。";
    root.dataset.editor = "codemirror";
  }, (err) => {
    console.warn("C9: the code editor did not load; the plain text box stays", err);
    root.dataset.editor = "textarea";
  });
  const onReset = () => {
    code.value = stub;
    keep();
    say("已恢复初始代码。");
    code.focus();
  };
  run.addEventListener("click", check);
  reset.addEventListener("click", onReset);
  area.addEventListener("input", onInput);
  return () => {
    closed = true;
    if (code !== area) code.destroy();
    run.removeEventListener("click", check);
    reset.removeEventListener("click", onReset);
    area.removeEventListener("input", onInput);
  };
}
