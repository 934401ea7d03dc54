// The course's Python in a module Web Worker: Pyodide from the site's own copy, the course's
// modules from one zip. Messages in: {id, request, ahead} | {around: request}; out: {id, response} | {bootError} (once, when the boot fails), and
// {ahead: key, response} for the states answered ahead of the reader. c9.views.api never raises, so an
// error out of it means Python itself failed (Pyodide's stack overflowed, memory ran out): the worker
// then says {crashed, id} (no id when it failed answering ahead) and the page replaces it (worker.js).
import { loadPyodide } from "../../vendor/pyodide/pyodide.mjs";

const booting = (async () => {
  const t0 = performance.now();
  const py = await loadPyodide({ indexURL: new URL("../../vendor/pyodide/", import.meta.url).href });
  // No keyboard in a worker: Pyodide's default stdin calls prompt(), which is missing here (a console
  // error and an I/O error); reading stdin gives end of file instead.
  py.setStdin({ stdin: () => null });
  const zip = await fetch(new URL("../course-py.zip", import.meta.url));
  if (!zip.ok) throw new Error(`course-py.zip: HTTP ${zip.status}`);
  py.unpackArchive(await zip.arrayBuffer(), "zip");
  const api = py.pyimport("c9.views.api");
  // Everything imported so far lives as long as the page: moved out of the collector's way, a garbage
  // collection during a slider drag scans only the answer's own objects (a shorter worst case).
  py.runPython("import gc; gc.collect(); gc.freeze()");
  // What it loaded: the page has the service worker cache these if this worker started before it was in control.
  const loaded = [self.location.href, new URL("../../vendor/pyodide/pyodide.mjs", import.meta.url).href,
    ...performance.getEntriesByType("resource").map((e) => e.name)];
  self.postMessage({ ready: true, bootMs: performance.now() - t0, loaded });
  return api;
})();
// A boot that fails says so at once, not only when the first request arrives: the page may ask nothing
// for a while (its answers come from the build's cache), and meanwhile it should know Python is missing.
booting.catch((err) => self.postMessage({ bootError: String(err && err.message || err) }));

// Answers ahead: after each answer, the states one control step from it (c9.views.api.nearby), one per
// task, so that a new request waits for at most one of them. A new request replaces the list.
let around = null; // the request whose neighbours come next
let dead = false; // after a crash the page terminates this worker; nothing more is answered meanwhile
let ahead = [];
let working = false;
const nextTask = () => new Promise((resolve) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = resolve;
  channel.port2.postMessage(0);
});
async function answerAhead(api) {
  if (working) return;
  working = true;
  try {
    for (;;) {
      await nextTask(); // let a waiting request in first
      if (dead) break;
      if (around) {
        const keys = api.nearby(around);
        around = null;
        ahead = keys.toJs();
        keys.destroy();
      } else if (ahead.length) {
        const key = ahead.shift();
        self.postMessage({ ahead: key, response: api.handle(key) });
      } else break;
    }
  } catch (err) {
    crashed(err);
  } finally {
    working = false;
  }
}

self.onmessage = async ({ data }) => {
  let api;
  try {
    api = await booting;
  } catch {
    return; // the boot's failure was said once, as it happened (below the boot)
  }
  if (dead) return;
  ahead = [];
  try {
    if (data.around) { // a state the page answered from its cache: only its neighbours are wanted
      around = JSON.stringify(data.around);
    } else {
      const request = JSON.stringify(data.request);
      self.postMessage({ id: data.id, response: api.handle(request) });
      around = data.ahead ? request : null;
    }
  } catch (err) {
    crashed(err, data.id);
    return;
  }
  if (around) answerAhead(api);
};

function crashed(err, id) {
  if (dead) return;
  dead = true;
  self.onmessage = null;
  self.postMessage({ crashed: String(err && err.message || err), id });
}
