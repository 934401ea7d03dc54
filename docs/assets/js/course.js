// The course's front end, entry point: mounts the widgets of each page Material shows, asks for the wide
// tables' cues, registers the service worker and shows the footer's 「保存整章」 (save-chapter.js); jumps
// within a page are in-page-jumps.js, before Material's bundle. Each widget's script is c9/views/NAME.js (served as
// widgets/NAME.js) and exports `mount(root) -> teardown | null`; it imports what it needs from the modules
// beside this one: worker.js (Python in a Web Worker), answers.js (answers computed ahead), live-view.js
// (the request loop), charts.js (Plotly), url-state.js (the page address), format.js (numbers).
// Widget contract: one root element .c9-widget[data-widget=NAME] with its default view in data-default
// (computed at build time, so the page is whole before and without Python), CSS scoped to
// .c9-widget, no globals, mounted once (guarded by root.c9Mounted), torn down when the page is left.
import { answers } from "./answers.js";
import { registerServiceWorker } from "./offline.js";
import { mountSaveChapter } from "./save-chapter.js";
import { addScrollCues } from "./table-cues.js";
import { python } from "./worker.js";
// The modules the widgets share, fetched with this one (before the page's load event), so that mounting a
// widget waits for its own script only: a control touched right after the page loaded is not missed.
import "./charts.js";
import "./format.js";
import "./live-view.js";
import "./url-state.js";

// Material's search dialog has no accessible name; the dialog only works with scripts, so name it here.
document.querySelector(".md-search[role=dialog]")?.setAttribute("aria-label", "搜索");
// Material's back-to-top button is an arrow alone in the header here (course.css): its words as its tooltip.
const backToTop = document.querySelector(".md-top");
if (backToTop) backToTop.title = backToTop.textContent.trim();

const mounted = new Map(); // root element → teardown
// A widget near the screen fetches its answer cache (the build's answers one step from its default, a few
// KB to a few hundred) and starts Python (about 6 MB the first time). With Save-Data on, nothing is fetched
// ahead: a touch fetches the widget's cache, which answers it, and Python starts only for a state the cache
// does not hold (worker.js: python.ask), so a reader who only reads or tries one step downloads no Python.
const saveData = () => Boolean(navigator.connection?.saveData);
const warmUp = "IntersectionObserver" in window
  ? new IntersectionObserver((entries) => {
    if (saveData()) return;
    for (const e of entries.filter((x) => x.isIntersecting)) answers.load(e.target);
    if (entries.some((e) => e.isIntersecting)) python.start();
  }, { rootMargin: "400px" })
  : null;
const touched = (root) => { answers.load(root); if (!saveData()) python.start(); };

// Said in the widget when its script was never saved and the network is cut (sw.js answers such a script
// with a module that only says so): the page's text, tables and figures are whole without it.
const NOT_SAVED = "现在断网，这个组件的脚本还没存到本机，暂时不能操作；正文、表格和图照常可读。"
  + "联网后再打开这一页，或在页脚点「保存整章」，以后断网也能用。";

function tell(root, text) {
  let status = root.querySelector(".c9-status");
  if (!status) { // a task has no status line of its own
    status = Object.assign(document.createElement("p"), { className: "c9-status" });
    status.setAttribute("role", "status");
    root.append(status);
  }
  status.textContent = text;
  status.dataset.kind = "error";
}

// A control the reader changes while the widget's script is still on its way (a slow network, a busy
// machine) keeps its new value but no listener hears it: noted here, and said again once the widget listens.
function noteEarlyInput(root) {
  const early = [];
  const note = (e) => {
    if (e.type === "submit") e.preventDefault(); // Enter in a box: no reload to an address the page cannot read
    const i = early.findIndex(([el, type]) => el === e.target && type === e.type);
    if (i >= 0) early.splice(i, 1);
    early.push([e.target, e.type]);
  };
  const TYPES = ["input", "change", "submit"];
  for (const type of TYPES) root.addEventListener(type, note, true);
  return (resend) => { // the widget listens now (resend), or never will
    for (const type of TYPES) root.removeEventListener(type, note, true);
    if (!resend) return;
    for (const [el, type] of early) if (el.isConnected) el.dispatchEvent(new Event(type, { bubbles: true, cancelable: true }));
  };
}

async function mountOne(root, name, usesPython) {
  root.c9Mounted = true;
  const endNoting = noteEarlyInput(root);
  let listening = false;
  try {
    const { default: mount, unavailable } = await import(`./widgets/${name}.js`);
    if (!root.isConnected) return;
    if (unavailable) { root.dataset.state = "offline"; tell(root, NOT_SAVED); return; }
    const t0 = performance.now();
    mounted.set(root, mount(root) || (() => {}));
    root.dataset.mounted = "yes"; // its controls answer from now on
    // Our code's share of the main thread, for the benchmark's long-task check.
    performance.measure(`c9:mount:${name}`, { start: t0, end: performance.now() });
    if (usesPython) {
      warmUp?.observe(root);
      root.addEventListener("pointerdown", () => touched(root), { once: true });
      root.addEventListener("focusin", () => touched(root), { once: true });
      if (root.contains(document.activeElement)) touched(root);
    }
    listening = true;
  } catch (err) {
    console.error("C9 widget failed to mount:", name, err);
    tell(root, "这个组件没能启动；正文和默认数字不受影响。");
  } finally {
    endNoting(listening);
  }
}

function mountAll() {
  addScrollCues();
  mountSaveChapter();
  for (const [root, teardown] of mounted) {
    if (!root.isConnected) { teardown(); mounted.delete(root); }
  }
  const mounting = [];
  for (const root of document.querySelectorAll(".admonition.task")) {
    if (!root.c9Mounted) mounting.push(mountOne(root, "task", false));
  }
  for (const root of document.querySelectorAll(".c9-widget[data-widget]")) {
    const name = root.dataset.widget;
    if (!root.c9Mounted) mounting.push(mountOne(root, name, root.dataset.python !== "no"));
  }
  // Mounting changes the layout above an address's #target: in-page-jumps.js holds the target in place until
  // this reads "mounted".
  const round = ++mountRound, { dataset } = document.documentElement;
  dataset.c9Widgets = "mounting";
  Promise.allSettled(mounting).then(() => { if (mountRound === round) dataset.c9Widgets = "mounted"; });
}
let mountRound = 0; // a later page's mounting (instant navigation) owns the mark

if (window.document$) window.document$.subscribe(mountAll);
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
else mountAll();

registerServiceWorker();

// For tests and the benchmark: the state of the Python worker.
export const c9 = { python };
