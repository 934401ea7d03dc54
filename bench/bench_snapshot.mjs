// Pyodide's memory snapshot (worth adopting only if it cuts Python's ready time by a third, offline and
// under the CSP). Under Node, in one run: the boot the page does today (load Pyodide, the course's Python,
// import c9.views.api) against a boot from a snapshot taken after that import, medians of RUNS each, and
// the snapshot's size (the reader would download it on top of Pyodide). Prints figures; asserts nothing.
// The options are private (_makeSnapshot / _loadSnapshot, Pyodide 314.0.7): not a public API.
import { readFileSync, readdirSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const indexURL = join(root, "node_modules", "pyodide") + "/";
const { loadPyodide } = await import(join(indexURL, "pyodide.mjs"));
const RUNS = Number(process.argv[2] || 5);

// The files go in either way (the snapshot holds the heap, not the file system: a lazily imported module
// is read from them); only the import is in the snapshot.
function addCourse(py, importIt = true) {
  py.FS.mkdirTree("/home/pyodide/widgets");
  for (const name of readdirSync(join(root, "widgets"))) {
    if (name.endsWith(".py")) py.FS.writeFile(`/home/pyodide/widgets/${name}`, readFileSync(join(root, "widgets", name)));
  }
  py.FS.writeFile("/home/pyodide/anchor-model.json", readFileSync(join(root, "anchor-model.json")));
  if (importIt) py.runPython("import sys; sys.path.insert(0, '/home/pyodide'); import c9.views.api");
}
async function boot(options) {
  const t0 = performance.now();
  const py = await loadPyodide({ indexURL, ...options });
  addCourse(py, !options._loadSnapshot);
  const out = py.runPython("import c9.views.api as a; a.handle('{\"widget\": \"memory-bar\", \"params\": {}}')");
  if (!out.startsWith('{"ok": true')) throw new Error(`no answer: ${out.slice(0, 200)}`);
  return [performance.now() - t0, py];
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

const maker = await loadPyodide({ indexURL, _makeSnapshot: true });
addCourse(maker);
const snapshot = maker.makeMemorySnapshot();
const plain = [], snap = [];
for (let i = 0; i < RUNS; i++) {  // interleaved, so the machine's noise falls on both alike
  plain.push((await boot({}))[0]);
  snap.push((await boot({ _loadSnapshot: snapshot }))[0]);
}
console.log(`Pyodide boot + course import + one answer, median of ${RUNS} (range), under Node:`);
console.log(`  today (no snapshot)   ${median(plain).toFixed(0)} ms (${spread(plain)})`);
console.log(`  from a snapshot       ${median(snap).toFixed(0)} ms (${spread(snap)})`);
console.log(`  snapshot size         ${(snapshot.length / 1e6).toFixed(1)} MB, gzip ${(gzipSync(snapshot, { level: 6 }).length / 1e6).toFixed(1)} MB (downloaded on top of Pyodide's 6.5 MB)`);
