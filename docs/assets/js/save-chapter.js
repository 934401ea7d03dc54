// The one action that saves the whole chapter for offline reading (the footer's 「保存整章」 on every page), and
// the offline fallback page's list of the chapter's pages, each marked saved or not. The service worker
// (sw.js) holds the manifest the build wrote (offline.json: every file with its size; hooks/offline.py) and
// stores the files; this module asks it for one file at a time (a few at once), shows how far it got (files
// and bytes), and says how it went. The footer is drawn anew on each instant-navigation page: mountSaveChapter
// binds the new one to the one state, so a save keeps going, and showing, while the reader moves on.
// A reader who asked for the chapter keeps it: after an update, the files that changed are saved on the next
// visit (with Save-Data off).
import { aboutMegabytes as about, megabytes as mb, thousands } from "./format.js";

const AT_ONCE = 4;
const QUIET_MS = 60_000; // a file with no byte for this long has failed (a stalled connection)

const state = { phase: "unknown", files: [], wanted: false, done: 0, bytes: 0, failed: 0, quota: false, resumed: false };
const roots = new Set(); // the footer blocks on screen (one per page, replaced on each instant-navigation page)

function serviceWorker() {
  if (!("serviceWorker" in navigator) || document.querySelector('meta[name="c9-offline"]')?.content !== "on") return null;
  return navigator.serviceWorker.ready.then((registration) => registration.active);
}

// One request to the service worker and its answer; `heard(n)` gets the bytes reported on the way.
function ask(worker, message, heard) {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    let timer;
    const quiet = () => { clearTimeout(timer); timer = setTimeout(() => finish({ ok: false }), QUIET_MS); };
    const finish = (data) => { clearTimeout(timer); channel.port1.close(); resolve(data); };
    channel.port1.onmessage = ({ data }) => {
      if (data.loaded) heard?.(data.loaded);
      if ("ok" in data) finish(data); else quiet();
    };
    quiet();
    worker.postMessage(message, [channel.port2]);
  });
}

const totals = () => {
  const all = state.files.reduce((s, f) => s + f.bytes, 0);
  const kept = state.files.filter((f) => f.saved);
  return { all, count: state.files.length, kept: kept.length, keptBytes: kept.reduce((s, f) => s + f.bytes, 0) };
};

function statusText() {
  const { all, count, kept, keptBytes } = totals();
  const left = about(all - keptBytes);
  switch (state.phase) {
    case "saving":
      return state.resumed ? "课程更新过：正在补存改动过的文件……" : `正在保存整章，共 ${thousands(count)} 个文件，${about(all)}……`;
    case "saved":
      return `整章已存到本机（${thousands(count)} 个文件，${about(all)}）：断网也能读每一页、用每个组件。`;
    case "failed":
      return state.quota
        ? `没有存完：本机给这个网站的存储空间不够。已存的 ${thousands(kept)} 个文件留在本机；腾出空间后再点一次，会接着存剩下的${left}。`
        : `没有存完：有 ${thousands(state.failed)} 个文件没能下载，可能是网络断了。已存的 ${thousands(kept)} 个文件留在本机；联网后再点一次，会接着存剩下的${left}。`;
    default:
      if (state.wanted && kept) return `已存 ${thousands(kept)} / ${thousands(count)} 个文件，还差${left}。存好后断网也能读每一页、用每个组件。`;
      return `把整章存到本机：全部页面、组件的脚本、Python 和字体，共 ${thousands(count)} 个文件，${about(all)}`
        + (kept ? `，其中 ${thousands(kept)} 个已在本机，还要下载${left}` : "") + "。存好后断网也能读每一页、用每个组件。";
  }
}

function render() {
  const { all, count, keptBytes } = totals();
  for (const root of roots) {
    if (!root.isConnected) { roots.delete(root); continue; }
    root.hidden = state.phase === "unknown";
    root.dataset.state = state.phase;
    const status = root.querySelector(".c9-save-status");
    const text = statusText();
    if (status.textContent !== text) status.textContent = text;
    const button = root.querySelector(".c9-save-button");
    button.hidden = state.phase === "saved";
    button.setAttribute("aria-disabled", String(state.phase === "saving"));
    button.textContent = state.phase === "saving" ? "正在保存……"
      : state.wanted && keptBytes ? `接着保存（还差${about(all - keptBytes)}）`
        : `保存整章（${about(keptBytes ? all - keptBytes : all)}）`;
    const progress = root.querySelector(".c9-save-progress");
    progress.hidden = state.phase !== "saving";
    const bar = progress.querySelector("progress");
    bar.max = all;
    bar.value = state.bytes;
    progress.querySelector(".c9-save-count").textContent =
      `第 ${thousands(state.done)} / ${thousands(count)} 个文件，已存 ${mb(state.bytes)} / ${mb(all)}`;
  }
  markPages();
}

// The fallback page's list: each page saved or not, and the one the reader asked for.
function markPages() {
  const saved = new Map(state.files.map((f) => [f.url, f.saved]));
  const here = location.href.split(/[?#]/)[0];
  for (const link of document.querySelectorAll("[data-c9-pages] a")) {
    const mark = link.parentElement.querySelector(".c9-saved-mark");
    if (!mark || !saved.has(link.href)) continue;
    const text = (saved.get(link.href) ? "已存" : "未存") + (link.href === here ? " · 你要打开的" : "");
    mark.hidden = false;
    mark.textContent = text;
    mark.dataset.saved = saved.get(link.href) ? "yes" : "no";
  }
}

async function refresh() {
  const worker = await serviceWorker();
  if (!worker) return;
  const answer = await ask(worker, { offline: "status" });
  if (!answer.ok || state.phase === "saving") return;
  state.files = answer.files;
  state.wanted = answer.wanted;
  const { count, kept } = totals();
  state.phase = kept === count ? "saved" : state.phase === "failed" ? "failed" : "idle";
  render();
  // The reader asked for the chapter and the site changed since: save what changed.
  if (state.phase === "idle" && state.wanted && navigator.onLine && !navigator.connection?.saveData) save(true);
}

async function save(resumed = false) {
  if (state.phase === "saving" || state.phase === "unknown") return;
  const worker = await serviceWorker();
  Object.assign(state, { phase: "saving", resumed, failed: 0, quota: false });
  const { count, kept, keptBytes } = totals();
  Object.assign(state, { done: kept, bytes: keptBytes });
  render();
  navigator.storage?.persist?.().catch(() => {}); // ask the browser not to clear it when space runs low
  await ask(worker, { offline: "want" });
  const queue = state.files.filter((f) => !f.saved);
  let frame = 0;
  const redraw = () => { frame = frame || requestAnimationFrame(() => { frame = 0; render(); }); };
  const one = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      let heard = 0;
      const answer = await ask(worker, { offline: "save", url: file.url }, (n) => { heard += n; state.bytes += n; redraw(); });
      state.bytes += file.bytes - heard; // the manifest's size counts, whatever the connection reported
      if (answer.ok) { file.saved = true; state.done += 1; } else { state.bytes -= file.bytes; state.failed += 1; state.quota ||= answer.quota; }
      redraw();
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, count) }, one));
  state.phase = state.failed ? "failed" : "idle";
  await refresh(); // what the worker holds now decides: saved, or not yet
}

// A new build's worker taking over (clients.claim) may hold less than the old one did: look again.
navigator.serviceWorker?.addEventListener("controllerchange", () => refresh().catch(() => {}));

export function mountSaveChapter() {
  for (const root of document.querySelectorAll("[data-c9-save]")) {
    if (roots.has(root)) continue;
    roots.add(root);
    root.querySelector(".c9-save-button").addEventListener("click", () => save());
  }
  if (state.phase === "saving") render();
  else refresh().catch((err) => console.warn("C9: the offline copy's state is unknown:", err));
}
