// A widget's request loop, the one every interactive widget uses: it sends the controls' state to Python
// (or takes the answer the build or the worker computed ahead: answers.js), draws the view, and says in the
// widget's status line who answered and how fast, or what was wrong with the input. The latest input wins:
// one request is in flight per widget, and an answer overtaken by newer input is not drawn.
import { answers } from "./answers.js";
import { sentence, thousands } from "./format.js";
import { python, PythonRestarted, PythonUnavailable } from "./worker.js";

// What a reader sees when drawing an answer fails in our own code: the exception's text is for the console.
export const UNEXPECTED = "这一状态没能画出来（页面脚本出了意外）；正文和构建时的数字不受影响，换个输入再试。";
// What the reader sees when the page's Python died on this input (worker.js has already started a new one).
export const RESTARTED = "页面里的 Python 算这一步时停止了（内存或调用栈用尽），页面已经重新启动了它；上面仍是上一个结果，换个输入再试。";

// Who computed a state the widget shows, and how long taking it took (ms written with thousands separators).
export const answeredBy = (by, ms) => ({
  build: `构建网站时由 Python 算好，读取用时 ${ms} ms`,
  ahead: `页面里的 Python 趁你上一步之后的空闲提前算好，读取用时 ${ms} ms`,
  python: `页面里的 Python 现算，用时 ${ms} ms`,
})[by];

// `draw(view, restoring, index)` shows an accepted answer; `restoring` marks the state opened from the page
// address (url-state.js): set the controls then, and a refusal says the link was wrong, not the reader.
// Options, for a widget whose one input takes several requests (the block lab: one per scaling scheme, each
// short, each drawn into its own panel as it comes):
// - parts(params): the requests' parameters, in order (default: the one request);
// - progress(done, total): the status between two of them; ok(total, ms): the status once all are drawn
//   (ms already written with thousands separators; by: who answered, as answeredBy takes it);
// - kept: what stays on screen when Python cannot load;
// - said(text, kind): told each status line too (lesson 5's config box repeats a refusal beside its button);
// - markEdited: when Python refuses an input, mark the text box the reader last edited as invalid (false
//   where the widget marks its boxes itself: lesson 5's memory bar).
export function liveView(widget, root, draw, {
  parts = (params) => [params], progress = null, ok = null, kept = "图和数字停在构建时算好的默认状态", said = null,
  markEdited = true,
} = {}) {
  const status = root.querySelector(".c9-status");
  let inFlight = false, queued = null, current = 0; // current: the latest input, sent or refused
  const say = (text, kind) => { status.textContent = text; status.dataset.kind = kind || ""; said?.(text, kind); };
  // Python's message names the box it refuses, but not which element that is: the box the reader last
  // edited is marked, and so stay the boxes refused before it, until an input is accepted (a fraction in
  // a box the page's own checks pass would otherwise lose its mark when the reader edits another box).
  let edited = null;
  const refused = new Set();
  if (markEdited) {
    const note = (e) => { edited = e.target.matches("textarea, input[type=text], input[type=number], input:not([type])") ? e.target : null; };
    root.addEventListener("input", note);
    root.addEventListener("change", note);
  }
  // A widget may name its boxes as Python's messages do (data-said-as): then the box the message names is
  // the one marked, and a box corrected since loses its mark.
  const markRefused = (error) => {
    const named = [...root.querySelectorAll("[data-said-as]")].filter((box) => error.includes(box.dataset.saidAs));
    if (named.length) {
      for (const box of refused) if (!named.includes(box)) markInvalid(box, false, status);
      refused.clear();
      for (const box of named) refused.add(box);
    } else if (edited) refused.add(edited);
    for (const box of refused) markInvalid(box, true, status);
  };
  const clearRefused = () => { for (const box of refused) markInvalid(box, false, status); refused.clear(); };
  async function send(params, restoring = false) {
    // A new input replaces the last one's refusal at once: the reader sees it is being worked on, not
    // the old 「输入有误」 for as long as Python takes to start or to answer.
    if (!restoring && status.dataset.kind === "error") {
      say(python.state === "ready" ? "正在计算……" : "正在启动页面里的 Python（第一次约需几秒）……", "busy");
    }
    if (inFlight) { queued = [params, restoring]; return; }
    inFlight = true;
    const mine = ++current;
    const t0 = performance.now();
    const asked = parts(params), by = new Set();
    try {
      for (const [index, part] of asked.entries()) {
        const tAsk = performance.now();
        const request = { widget, params: part };
        const hit = await answers.lookup(request, root);
        let answer = hit?.answer;
        if (!hit) {
          if (restoring) restoringFromAddress(root, say);
          else if (python.state !== "ready") say("正在启动页面里的 Python（第一次约需几秒）……", "busy");
          answer = await python.ask(request);
        }
        by.add(hit?.by ?? "python");
        const tAnswer = performance.now();
        // The benchmark's breakdown: a round trip to Python, or an answer the build computed.
        performance.measure(`c9:${hit ? "built" : "python"}:${widget}`, { start: tAsk, end: tAnswer });
        // A newer input is waiting: drawing this older state would undo what the reader just did
        // (a bit flipped twice quickly would show the first flip, and a third click act on it).
        if (mine !== current) return; // the reader's newer input was refused: its message stays on screen
        if (queued) return; // the reader's newer input is waiting: not this one's view, nor its refusal
        if (!answer.ok) {
          if (restoring) { root.dataset.state = "default"; root.removeAttribute("aria-busy"); }
          say(restoring ? `链接里的参数有误：${answer.error}。这里仍是默认状态。` : sentence(`输入有误：${answer.error}`), "error");
          if (!restoring) { root.dataset.stale = ""; markRefused(answer.error); } // the result shown is the previous input's (course.css fades it)
          return;
        }
        clearRefused();
        draw(answer.view, restoring, index);
        root.c9Url?.write({ ...params, ...answer.view.params });
        if (index < asked.length - 1) say(progress(index + 1, asked.length), "busy");
        else {
          delete root.dataset.stale;
          root.dataset.state = "live";
          root.removeAttribute("aria-busy");
          const ms = thousands(Math.max(1, Math.round(performance.now() - t0))); // 「20,936 ms」 as the site writes it
          const who = ["python", "ahead", "build"].find((b) => by.has(b)); // Python if it answered any part
          say(ok ? ok(asked.length, ms, who) : `已算出这一状态：${answeredBy(who, ms)}。`, "ok");
          // For tests and the benchmark: who answered, inputs answered in full.
          root.dataset.answeredBy = who;
          root.dataset.runs = String(Number(root.dataset.runs || 0) + 1);
          performance.mark("c9:redraw");
        }
        performance.measure(`c9:draw:${widget}`, { start: tAnswer, end: performance.now() });
      }
    } catch (err) {
      if (err instanceof PythonRestarted) { // the widget keeps working: its next input goes to the new Python
        say(RESTARTED, "error");
        root.dataset.stale = "";
        root.removeAttribute("aria-busy");
        if (restoring) root.dataset.state = "default";
        return;
      }
      root.dataset.state = "no-python";
      root.removeAttribute("aria-busy");
      say(err instanceof PythonUnavailable
        ? `页面里的 Python 没能加载（网络或浏览器不支持 WebAssembly）。${restoring ? "地址里的参数没法重算：" : ""}${kept}，正文不受影响。`
        : UNEXPECTED, "error");
      if (!(err instanceof PythonUnavailable)) console.error("C9:", widget, err);
    } finally {
      inFlight = false;
      if (queued) { const [next, r] = queued; queued = null; send(next, r); }
    }
  }
  // A reader's input the page itself cannot read: say why, fade the result, and draw no answer still on its way.
  const refuse = (text) => { current++; queued = null; say(text, "error"); root.dataset.stale = ""; };
  return { send, say, refuse };
}

// A state opened from the address is drawn only once Python has recomputed it (a second or more while
// Python starts): until then the default view stays, dimmed and marked busy, and the status says the
// numbers shown are not yet the address's, so the address and what the reader sees never disagree unsaid.
export function restoringFromAddress(root, say) {
  root.dataset.state = "restoring";
  root.setAttribute("aria-busy", "true");
  say("正在按地址里的参数重算（页面里的 Python 第一次启动约需几秒）；算好之前，下面还是默认状态。", "busy");
}

// A number box holding what it cannot read (letters, 1e400) reports "" with validity.badInput set: the
// message to show instead of letting Python call it empty, or null when the box reads fine.
export function unreadableNumber(input, name) {
  return input.validity.badInput
    ? `输入有误：${name}读不成数字，请填 ${input.min} 到 ${thousands(input.max)} 之间的整数。`
    : null;
}

// A number box holding an integer outside its min…max (b = 0): the message Python gives for it
// (c9/base/typed.py: integer), said at once rather than after Python starts; null when the box is in range,
// or holds what Python words on its own (a fraction, a number of 15 digits or more).
export function outOfRange(input, name) {
  const v = Number(input.value), min = Number(input.min), max = Number(input.max);
  if (input.value === "" || !Number.isInteger(v) || Math.abs(v) >= 1e15 || (v >= min && v <= max)) return null;
  const spaced = /[A-Za-z0-9]$/.test(name) ? `${name} ` : name; // 「序列长度 s 要在」, but 「随机种子要在」
  return `输入有误：${spaced}要在 ${thousands(min)} 到 ${thousands(max)} 之间，收到的是 ${thousands(v)}。`;
}

// A box whose value was refused is marked so (assistive technology reads it as invalid; course.css draws it),
// and points at the message that says why: the widget's status, or `message` where the widget says it beside
// the box (lesson 5's config box).
let messageIds = 0;
export function markInvalid(input, invalid, message = input.closest(".c9-widget")?.querySelector(".c9-status")) {
  if (!invalid) {
    input.removeAttribute("aria-invalid");
    if (message && input.getAttribute("aria-describedby") === message.id) input.removeAttribute("aria-describedby");
    return;
  }
  input.setAttribute("aria-invalid", "true");
  if (message && !input.hasAttribute("aria-describedby")) {
    if (!message.id) message.id = `c9-message-${++messageIds}`;
    input.setAttribute("aria-describedby", message.id);
  }
}
