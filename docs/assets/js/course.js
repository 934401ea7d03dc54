// The course's front end, entry point. Each widget lives in widgets/NAME.js and exports
// `mount(root) -> teardown | null`.
// Widget contract: one root element .c9-widget[data-widget=NAME] with its default view in data-default
// (computed at build time, so the page is whole before and without Python), CSS scoped to
// .c9-widget, no globals, mounted once (guarded by root.c9Mounted), torn down when the page is left.
import { python } from "./core.js";

document.documentElement.classList.add("c9-js");
// Material's search dialog has no accessible name; the dialog only works with scripts, so name it here.
document.querySelector(".md-search[role=dialog]")?.setAttribute("aria-label", "搜索");

const mounted = new Map(); // root element → teardown
const warmUp = "IntersectionObserver" in window
  ? new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) python.start(); }, { rootMargin: "400px" })
  : null;

async function mountOne(root, name, usesPython) {
  root.c9Mounted = true;
  try {
    const { default: mount } = await import(`./widgets/${name}.js`);
    if (!root.isConnected) return;
    mounted.set(root, mount(root) || (() => {}));
    if (usesPython) {
      warmUp?.observe(root);
      root.addEventListener("pointerdown", () => python.start(), { once: true });
      root.addEventListener("focusin", () => python.start(), { once: true });
    }
  } catch (err) {
    console.error("C9 widget failed to mount:", name, err);
    const status = root.querySelector(".c9-status");
    if (status) status.textContent = "这个组件没能启动;正文和默认数字不受影响。";
  }
}

function mountAll() {
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

// For tests and the benchmark: the state of the Python worker.
export const c9 = { python };
