import { python, PythonRestarted, PythonStopped } from "./worker.js";

// ---- The reader's own code: the editor, what is kept in this browser, and one run in the Python worker ----
// Shared by the exercises (c9/views/exercise.js) and the scratchpad (c9/views/scratchpad.js); their Python
// side shares c9/base/reader_code.py. A run gets LIMIT_MS once Python is up; past it the worker is stopped
// and restarted (worker.js: askWithin), so a loop that never ends costs the reader a few seconds and no
// other widget.
export const LIMIT_MS = 5000;

// CodeMirror 6, self-hosted (hooks/codemirror.py). Tab indents inside it, as in any code editor; Escape
// then Tab leaves it (CodeMirror's own tab-focus mode); Ctrl/Cmd-Enter calls `onRun` when given. If it
// cannot load, the labelled <textarea> stays.
const CM = "../../vendor/codemirror/";
async function codeEditor(textarea, { onChange, onRun = null }) {
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
    { tag: tags.comment, color: hl("comment") }, // upright: the comments are Chinese, which has no italic
    { tag: [tags.function(tags.variableName), tags.definition(tags.variableName)], color: hl("function") },
    { tag: [tags.operator, tags.punctuation], color: hl("operator") },
  ]);
  const { EditorView, keymap, lineNumbers } = view;
  // Before the default keymap, whose Mod-Enter inserts a blank line.
  const runKeys = onRun ? [{ key: "Mod-Enter", run: () => { onRun(); return true; } }] : [];
  const editor = new EditorView({
    state: EditorState.create({
      doc: textarea.value,
      // where the reader was typing in the box, if they were (else CodeMirror's start)
      selection: { anchor: textarea.selectionStart ?? 0, head: textarea.selectionEnd ?? 0 },
      extensions: [
        lineNumbers(),
        EditorView.lineWrapping, // a phone shows a long comment whole, not behind a sideways scroll
        commands.history(),
        language.indentOnInput(),
        language.syntaxHighlighting(highlight),
        keymap.of([...runKeys, ...commands.defaultKeymap, ...commands.historyKeymap, commands.indentWithTab]),
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
  // one moved everything below it (a jump to a heading further down missed by the difference). A box not
  // laid out (inside a closed <details>) has no height to keep.
  if (textarea.offsetHeight) editor.dom.style.minHeight = `${textarea.offsetHeight}px`;
  // It arrives as the box nears the screen, maybe just after a jump to the heading under it: if the box
  // starts above the top of the screen, what the reader sees below it stays where it was (scroll anchoring
  // may hold the box itself instead, and a jump under it then ended 7 px low).
  const box = textarea.getBoundingClientRect();
  let after = box.top < 0 ? textarea.closest(".c9-widget") : null; // the first element after the widget
  while (after && !after.nextElementSibling) after = after.parentElement;
  const mark = after?.nextElementSibling;
  const markTop = mark?.getBoundingClientRect().top;
  const typing = document.activeElement === textarea; // hiding the box takes its focus: the editor gets it
  textarea.after(editor.dom);
  textarea.hidden = true;
  if (mark) {
    const moved = mark.getBoundingClientRect().top - markTop;
    if (Math.abs(moved) >= 1) scrollBy(0, moved);
  }
  if (typing) editor.focus();
  // The label points at the textarea: a click on it focuses the editor instead.
  textarea.labels[0]?.addEventListener("click", (e) => { e.preventDefault(); editor.focus(); });
  return {
    get value() { return editor.state.doc.toString(); },
    set value(text) { editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } }); },
    focus: () => editor.focus(),
    destroy: () => editor.destroy(),
  };
}

// The reader's code box: the labelled <textarea> until CodeMirror has loaded (and for good if it cannot),
// then the editor. root.dataset.editor says which ("codemirror" or "textarea", for tests); the widget's
// .c9-exercise-keys line gets `keysText` once the editor is up. `onChange` gets the text after each edit.
// CodeMirror (about 300 KB of script) is fetched when the box comes within NEAR of the screen or is
// focused, not with the page: a reader who never scrolls to the end does not pay for it, and the page's
// first seconds have that much less to run.
const NEAR = "900px 0px";
export function readerEditor(root, area, { onChange, onRun = null, keysText }) {
  let editor = null;
  let closed = false;
  let asked = false;
  const load = () => {
    if (asked || closed) return;
    asked = true;
    near?.disconnect();
    codeEditor(area, { onChange, onRun }).then((e) => {
      if (closed) { e.destroy(); return; }
      editor = e;
      const keys = root.querySelector(".c9-exercise-keys");
      if (keys) keys.textContent = keysText;
      root.dataset.editor = "codemirror";
    }, (err) => {
      console.warn("C9: the code editor did not load; the plain text box stays", err);
      root.dataset.editor = "textarea";
    });
  };
  const near = "IntersectionObserver" in window
    ? new IntersectionObserver((seen) => { if (seen.some((x) => x.isIntersecting)) load(); }, { rootMargin: NEAR })
    : null;
  if (near) near.observe(area); else load();
  area.addEventListener("focus", load, { once: true });
  const onInput = () => onChange(area.value);
  const onKey = (e) => {
    if (onRun && e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); onRun(); }
  };
  area.addEventListener("input", onInput);
  area.addEventListener("keydown", onKey);
  return {
    get value() { return editor ? editor.value : area.value; },
    set value(text) { if (editor) editor.value = text; else area.value = text; },
    focus: () => (editor || area).focus(),
    destroy() {
      closed = true;
      near?.disconnect();
      editor?.destroy();
      area.removeEventListener("input", onInput);
      area.removeEventListener("keydown", onKey);
    },
  };
}

// The reader's code and progress, in this browser only (localStorage); private mode keeps nothing.
export const storage = {
  read(key) {
    try { return JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch { return {}; }
  },
  write(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode: nothing kept */ }
  },
};

// One run of the reader's code: `params.code` asked of `widget` within LIMIT_MS. `say` tells the reader
// what is happening. Resolves to {view} (the widget's answer) or {message} (Chinese: why there is none);
// never rejects. A view with `restart` (the reader's code used up memory, which a wasm heap never gives
// back) has the worker replaced once it answered.
export async function runReaderCode(widget, params, say) {
  say(python.state === "ready" ? "正在运行……" : "正在启动 Python（第一次要几秒）……");
  try {
    // Boot first (an empty answer is quick), so that the time limit counts the reader's code only.
    if (python.state !== "ready") await python.ask({ widget, params: { ...params, code: "" } });
    say("正在运行……");
    const out = await python.askWithin({ widget, params }, LIMIT_MS);
    if (!out.ok) return { message: out.error };
    if (out.view.restart) python.renew();
    return { view: out.view };
  } catch (err) {
    if (err instanceof PythonStopped) {
      return { message: `代码运行超过 ${LIMIT_MS / 1000} 秒，已被停下（可能是死循环，或占用的内存太多）。`
        + "Python 已重新启动，页面上的其他组件照常可用。" };
    }
    if (err instanceof PythonRestarted) {
      return { message: "页面里的 Python 运行这段代码时崩溃了（可能是递归太深，或内存用尽），已重新启动；"
        + "页面上的其他组件照常可用。" };
    }
    return { message: "Python 没能启动，这里暂时无法运行。" };
  }
}
