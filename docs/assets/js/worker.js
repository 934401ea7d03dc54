// The course's Python in a Web Worker (py-worker.js), started lazily and shared across Material's
// instant-navigation pages: the one client every widget asks through. It knows nothing of the answers the
// build or the worker computed ahead (answers.js): that module plugs itself in through `aheadWanted` and
// `onAhead`. When the worker's Python dies after it started (a stack overflow, out of memory), a fresh
// worker takes over: the request it died on is refused with PythonRestarted, the others are asked again.

export class PythonUnavailable extends Error {}
// A request that ran past its time limit: the worker was stopped and the next request starts a new one.
export class PythonStopped extends PythonUnavailable {}
export class PythonRestarted extends Error {}

const MAX_RESTARTS = 5; // a Python that keeps dying is given up (PythonUnavailable), not restarted forever
// A boot that failed (the network dropped, a file was missing) is tried again by a request that comes this
// long after: a reader whose connection came back need not reload the page.
const RETRY_AFTER_MS = 3000;

export const python = {
  worker: null, nextId: 1, waiting: new Map(), state: "idle", bootMs: null, restarts: 0, failedAt: 0,
  // Whether the worker should answer ahead of the reader (set by answers.js), and where those answers go.
  aheadWanted: () => false,
  onAhead: () => {},
  start() {
    if (this.worker) return;
    this.state = "booting";
    performance.mark("c9:python-start");
    try {
      this.worker = new Worker(new URL("py-worker.js", import.meta.url), { type: "module" });
    } catch (err) {
      this.fail(String(err));
      return;
    }
    this.worker.onmessage = ({ data }) => {
      if (data.crashed) { this.restart(data.crashed, data.id); return; }
      if (data.ahead) { this.onAhead(data.ahead, data.response); return; }
      if (data.ready) {
        this.state = "ready"; this.bootMs = data.bootMs;
        performance.mark("c9:python-ready", { detail: data.loaded }); // the files it loaded (for sw.js)
        return;
      }
      if (data.bootError) { this.fail(data.bootError); return; } // said once per worker; fail() rejects the waiting
      const done = this.waiting.get(data.id);
      this.waiting.delete(data.id);
      if (done) done.resolve(JSON.parse(data.response));
    };
    // An error the worker did not catch: before it was ready, Python cannot start here; after, it died.
    this.worker.onerror = (e) => {
      e.preventDefault();
      if (this.state === "ready") this.restart(e.message || "worker error");
      else this.fail(e.message || "worker error");
    };
  },
  fail(message) {
    this.state = "failed";
    this.failedAt = performance.now();
    console.warn("C9: Python could not start:", message);
    for (const { reject } of this.waiting.values()) reject(new PythonUnavailable(message));
    this.waiting.clear();
  },
  // The worker died answering request `culprit` (an id; none when it died answering ahead): a new worker
  // answers every other waiting request, in order; the culprit is refused, so that it cannot kill the next.
  restart(message, culprit, counted = true) {
    console.warn("C9: the page's Python stopped; starting a new one:", message);
    this.worker.terminate();
    this.worker = null;
    if (counted) this.restarts += 1;
    if (this.restarts > MAX_RESTARTS) { this.fail(message); return; }
    const pending = [...this.waiting];
    this.waiting.clear();
    this.start();
    for (const [id, asked] of pending) {
      if (id === culprit) asked.reject(new PythonRestarted(message));
      else this.post(id, asked);
    }
    performance.mark("c9:python-restart");
  },
  // A Python that is well but holds the memory the reader's code grew (a wasm heap never shrinks): a new
  // worker takes over as after a crash, without counting as one (nothing failed).
  renew() {
    if (this.worker && this.state !== "failed") this.restart("renewed to free memory", undefined, false);
  },
  post(id, asked) {
    this.waiting.set(id, asked);
    this.worker.postMessage({ id, request: asked.request, ahead: asked.ahead });
  },
  // The worker answers ahead around a state the page answered from its cache (no request reached Python).
  around(request) {
    if (this.worker && this.state !== "failed" && this.aheadWanted()) this.worker.postMessage({ around: request });
  },
  // The reader's own code (widget exercise) may loop forever: past `ms` the worker is terminated, every
  // request still waiting fails with PythonStopped, and the next request boots a fresh worker.
  askWithin(request, ms) {
    const answer = this.ask(request);
    let timer;
    const limit = new Promise((_, reject) => {
      timer = setTimeout(() => { this.stop(); reject(new PythonStopped(`over ${ms} ms`)); }, ms);
    });
    return Promise.race([answer, limit]).finally(() => clearTimeout(timer));
  },
  stop() {
    this.worker?.terminate();
    this.worker = null;
    this.state = "idle";
    for (const { reject } of this.waiting.values()) reject(new PythonStopped("stopped"));
    this.waiting.clear();
  },
  ask(request) {
    // (not a Python given up after MAX_RESTARTS crashes: that one stays given up)
    if (this.state === "failed" && this.restarts <= MAX_RESTARTS && performance.now() - this.failedAt >= RETRY_AFTER_MS) {
      this.worker?.terminate();
      this.worker = null;
    }
    this.start();
    if (this.state === "failed") return Promise.reject(new PythonUnavailable("failed earlier"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.post(id, { resolve, reject, request, ahead: this.aheadWanted() });
    });
  },
};
