// The course's Python in a module Web Worker: Pyodide from the site's own copy, the course's
// modules from one zip. Messages in: {id, request}; out: {id, response} | {id, bootError}.
import { loadPyodide } from "../../vendor/pyodide/pyodide.mjs";

const booting = (async () => {
  const t0 = performance.now();
  const py = await loadPyodide({ indexURL: new URL("../../vendor/pyodide/", import.meta.url).href });
  const zip = await fetch(new URL("../course-py.zip", import.meta.url));
  if (!zip.ok) throw new Error(`course-py.zip: HTTP ${zip.status}`);
  py.unpackArchive(await zip.arrayBuffer(), "zip");
  const api = py.pyimport("widgets.api");
  // What it loaded: the page has the service worker cache these if this worker started before it was in control.
  const loaded = [self.location.href, new URL("../../vendor/pyodide/pyodide.mjs", import.meta.url).href,
    ...performance.getEntriesByType("resource").map((e) => e.name)];
  self.postMessage({ ready: true, bootMs: performance.now() - t0, loaded });
  return api;
})();

self.onmessage = async ({ data }) => {
  let api;
  try {
    api = await booting;
  } catch (err) {
    self.postMessage({ id: data.id, bootError: String(err && err.message || err) });
    return;
  }
  self.postMessage({ id: data.id, response: api.handle(JSON.stringify(data.request)) });
};
