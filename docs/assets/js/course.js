// The course's front end, entry point. Each widget's script is c9/views/NAME.js (served as widgets/NAME.js) and exports
// `mount(root) -> teardown | null`.
// Widget contract: one root element .c9-widget[data-widget=NAME] with its default view in data-default
// (computed at build time, so the page is whole before and without Python), CSS scoped to
// .c9-widget, no globals, mounted once (guarded by root.c9Mounted), torn down when the page is left.
import { answers, python } from "./core.js";

// Material's search dialog has no accessible name; the dialog only works with scripts, so name it here.
document.querySelector(".md-search[role=dialog]")?.setAttribute("aria-label", "搜索");

const mounted = new Map(); // root element → teardown
// A widget near the screen fetches its answer cache (the build's answers one step from its default, a few
// KB to a few hundred) and starts Python (about 6 MB the first time). With Save-Data on, nothing is fetched
// ahead: a touch fetches the widget's cache, which answers it, and Python starts only for a state the cache
// does not hold (core.js: python.ask), so a reader who only reads or tries one step downloads no Python.
const saveData = () => Boolean(navigator.connection?.saveData);
const warmUp = "IntersectionObserver" in window
  ? new IntersectionObserver((entries) => {
    if (saveData()) return;
    for (const e of entries.filter((x) => x.isIntersecting)) answers.load(e.target);
    if (entries.some((e) => e.isIntersecting)) python.start();
  }, { rootMargin: "400px" })
  : null;
const touched = (root) => { answers.load(root); if (!saveData()) python.start(); };

async function mountOne(root, name, usesPython) {
  root.c9Mounted = true;
  try {
    const { default: mount } = await import(`./widgets/${name}.js`);
    if (!root.isConnected) return;
    const t0 = performance.now();
    mounted.set(root, mount(root) || (() => {}));
    // Our code's share of the main thread, for the benchmark's long-task check.
    performance.measure(`c9:mount:${name}`, { start: t0, end: performance.now() });
    if (usesPython) {
      warmUp?.observe(root);
      root.addEventListener("pointerdown", () => touched(root), { once: true });
      root.addEventListener("focusin", () => touched(root), { once: true });
    }
  } catch (err) {
    console.error("C9 widget failed to mount:", name, err);
    const status = root.querySelector(".c9-status");
    if (status) status.textContent = "这个组件没能启动；正文和默认数字不受影响。";
  }
}

// ---- Wide tables: a cue above the box that scrolls, saying how many columns are out of view ---------
// The scrolling box is the table itself or the nearest wrapper that scrolls sideways (Material's
// .md-typeset__scrollwrap, a widget's .c9-*-scroll). Its first column stays pinned (course.css).
const cueText = (hidden) => `表格比这里宽：还有 ${hidden} 列在右边，左右滑动查看（第一列固定不动）`;
function scrollerOf(table) {
  for (let el = table; el && el.tagName !== "ARTICLE"; el = el.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(el).overflowX)) return el;
  }
  return null;
}
// Measures every box first and writes the cues after: a write between two boxes' measurements would make the
// browser lay the whole page out again for each table (lesson 5 lost about half a second to that).
function measureCue(box) {
  const right = box.getBoundingClientRect().right;
  const cells = [...(box.querySelector("tr")?.cells || [])];
  return {
    box,
    hidden: cells.filter((c) => c.getBoundingClientRect().right > right + 1).length,
    more: box.scrollWidth > box.clientWidth + 1,
    atEnd: box.scrollLeft + box.clientWidth >= box.scrollWidth - 1,
  };
}
function writeCue({ box, hidden, more, atEnd }) {
  box.c9Cue.hidden = !more;
  if (more && !box.hasAttribute("tabindex")) {
    // A box that scrolls must be reachable by keyboard (arrow keys scroll it once it has focus).
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    const caption = box.querySelector("caption")?.textContent.trim();
    box.setAttribute("aria-label", caption ? `${caption}（可左右滑动）` : "可左右滑动的表格");
  }
  if (more) box.c9Cue.textContent = hidden ? cueText(hidden) : "表格比这里宽：左右滑动查看（第一列固定不动）";
  box.classList.toggle("c9-more-right", more && !atEnd);
}
const updateCues = (boxes) => boxes.map(measureCue).forEach(writeCue);
// The observer's first report for each box comes after the page's next layout, all boxes in one call.
const cueSizes = "ResizeObserver" in window ? new ResizeObserver((entries) => updateCues(entries.map((e) => e.target))) : null;
// A table's cue is made when the table nears the screen: finding its scroll box reads computed styles, which
// for a table in a part not yet drawn (hooks/sections.py) would make the browser draw that part at load.
function addCue(table) {
  const box = scrollerOf(table);
  if (!box || box.c9Cue) return;
  box.c9Cue = Object.assign(document.createElement("p"), { className: "c9-scroll-cue", hidden: true });
  box.c9Cue.setAttribute("aria-hidden", "true"); // the table itself is there for screen readers
  box.before(box.c9Cue);
  box.addEventListener("scroll", () => updateCues([box]), { passive: true });
  if (cueSizes) cueSizes.observe(box);
  else updateCues([box]);
}
const nearScreen = "IntersectionObserver" in window
  ? new IntersectionObserver((entries) => {
    for (const e of entries.filter((x) => x.isIntersecting)) { nearScreen.unobserve(e.target); addCue(tableIn(e.target)); }
  }, { rootMargin: "100% 0px" })
  : null;
// A widget that redraws a table (lesson 5's estimator: another model chosen before the reader scrolled down)
// replaces it inside its [data-part] box: watching the old table, the cue was never made; the box stays.
const tableIn = (el) => (el.tagName === "TABLE" ? el : el.querySelector("table"));
function addScrollCues() {
  for (const table of document.querySelectorAll("article table")) {
    const watched = table.closest("[data-part]") || table;
    if (watched.c9CueAsked) continue;
    watched.c9CueAsked = true;
    if (nearScreen) nearScreen.observe(watched);
    else addCue(table);
  }
}

function mountAll() {
  addScrollCues();
  for (const [root, teardown] of mounted) {
    if (!root.isConnected) { teardown(); mounted.delete(root); }
  }
  for (const root of document.querySelectorAll(".admonition.task")) {
    if (!root.c9Mounted) mountOne(root, "task", false);
  }
  for (const root of document.querySelectorAll(".c9-widget[data-widget]")) {
    const name = root.dataset.widget;
    if (!root.c9Mounted) mountOne(root, name, root.dataset.python !== "no");
  }
}

if (window.document$) window.document$.subscribe(mountAll);
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
else mountAll();

// Offline use after a first visit: the service worker at the site's root (sw.js) keeps what the reader
// used. Only on a built site (the template writes <meta name="c9-offline" content="on">; not under
// `mkdocs serve`, where a worker left from a built site is removed). A failure only warns.
function registerServiceWorker() {
  if (!("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) return;
  const url = new URL("../../sw.js", import.meta.url);
  const scope = new URL("./", url).href;
  const sw = navigator.serviceWorker;
  if (document.querySelector('meta[name="c9-offline"]')?.content !== "on") {
    sw.getRegistration(scope).then((r) => r?.unregister()).catch(() => {});
    return;
  }
  if (!sw.controller) {
    // The first visit loads before the worker is in control: once it is, it caches what this page loaded,
    // and what Python's worker loaded if that started before (its requests did not pass the service worker).
    sw.addEventListener("controllerchange", () => {
      const send = (urls) => urls.length && sw.controller?.postMessage({ cache: urls });
      const since = performance.now(); // requests started before this did not pass the service worker
      send([location.href, ...performance.getEntriesByType("resource").map((e) => e.name)]);
      new PerformanceObserver((list) => send(list.getEntries().filter((e) => e.startTime < since).map((e) => e.name)))
        .observe({ type: "resource" });
      if (!python.worker) return;
      new PerformanceObserver((list, observer) => {
        const ready = list.getEntriesByName("c9:python-ready")[0];
        if (ready) { observer.disconnect(); send(ready.detail || []); }
      }).observe({ type: "mark", buffered: true });
    }, { once: true });
  }
  sw.register(url, { scope }).catch((err) => console.warn("C9: no offline cache (service worker not registered):", err));
}
registerServiceWorker();

// For tests and the benchmark: the state of the Python worker.
export const c9 = { python };
