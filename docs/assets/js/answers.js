// Answers computed before the request, for the first touch while Python boots and for the next step after.
// The build runs each widget's Python for the states one control step from its default (each stop of a
// slider, each option, each bit) through the worker's own entry point, and writes the answers into one
// file per widget, named in the root's data-answers (hooks/answers.py). A request the file holds is answered
// from it, before Python is ready and after (it is faster than a round trip); any other request goes to
// Python. While the reader works, the worker also answers the states one step from the one on screen, in its
// idle time (py-worker.js, c9.views.api.nearby): kept here too, the latest AHEAD_KEPT of them.
import { python } from "./worker.js";

// The key is the request as JSON with its object keys sorted (Python: hooks/answers.py canonical).
export function canonical(value) {
  return JSON.stringify(value, (key, v) => (v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

const AHEAD_KEPT = 400;
export const answers = {
  enabled: true,       // the benchmark turns it off to time Python's own round trip
  aheadEnabled: true,  // … or only the answers ahead
  byKey: new Map(), files: new Map(), ahead: new Map(),
  get aheadOn() { return this.enabled && this.aheadEnabled; },
  keepAhead(key, response) {
    this.ahead.delete(key);
    this.ahead.set(key, response); // kept as text: parsed only if the reader goes there
    if (this.ahead.size > AHEAD_KEPT) this.ahead.delete(this.ahead.keys().next().value);
  },
  // Fetches a widget's file once (when it nears the screen, or at its first touch); never rejects.
  load(root) {
    const name = root?.dataset.answers;
    if (!name) return Promise.resolve();
    const url = new URL(name, document.baseURI).href;
    if (!this.files.has(url)) {
      this.files.set(url, fetch(url).then((r) => (r.ok ? r.json() : { answers: {} }))
        .then((file) => { for (const [k, v] of Object.entries(file.answers)) this.byKey.set(k, v); })
        .catch(() => { this.files.delete(url); })); // offline before it was cached: try again next time
    }
    return this.files.get(url);
  },
  // An answer computed before the request: {answer, by: "build" | "ahead"} (the answer a copy: a draw may
  // keep or change it), or null. On a hit the worker still answers ahead around the state.
  async lookup(request, root) {
    if (!this.enabled) return null;
    const loading = this.load(root);
    if (python.state !== "ready") await loading; // a small file: worth the wait while Python boots
    const key = canonical(request);
    const built = this.byKey.get(key), text = this.ahead.get(key);
    if (built === undefined && text === undefined) return null;
    python.around(request);
    return built !== undefined ? { answer: structuredClone(built), by: "build" } : { answer: JSON.parse(text), by: "ahead" };
  },
};
python.aheadWanted = () => answers.aheadOn;
python.onAhead = (key, response) => answers.keepAhead(key, response);
