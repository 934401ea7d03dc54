// Offline use: the service worker at the site's root (sw.js) keeps what the reader used, the offline
// fallback page with what it loads, and the whole chapter once saved (save-chapter.js). Registered by
// course.js once the page has loaded (its install fetches the fallback's files: they do not compete with the
// page's own), only on a built site (the template writes <meta name="c9-offline" content="on">; not under
// `mkdocs serve`, where a worker left from a built site is removed). A failure only warns.
import { python } from "./worker.js";

export function registerServiceWorker() {
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
  const register = () => sw.register(url, { scope })
    .catch((err) => console.warn("C9: no offline cache (service worker not registered):", err));
  if (document.readyState === "complete") register();
  else addEventListener("load", register, { once: true });
}
