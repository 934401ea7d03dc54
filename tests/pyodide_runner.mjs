// Run a Python script inside Pyodide (npm package node_modules/pyodide) with the course's
// c9/ package (and anchor-model.json) on its file system, and print the script's RESULT (a string, usually JSON).
//
// usage: node tests/pyodide_runner.mjs SCRIPT.py
// The script runs with /home/pyodide as cwd (c9/ is there); it must set RESULT = "<string>".
// stdout: RESULT, one line. stderr: timing notes. Exit 1 on a Python error.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const indexURL = join(root, "node_modules", "pyodide") + "/";
const { loadPyodide } = await import(join(indexURL, "pyodide.mjs"));

const t0 = performance.now();
const pyodide = await loadPyodide({ indexURL, stdout: (s) => process.stderr.write(s + "\n") });
const tBoot = performance.now() - t0;

for (const name of readdirSync(join(root, "c9"), { recursive: true })) {
  if (name.endsWith(".py")) {
    const dest = `/home/pyodide/c9/${name}`;
    pyodide.FS.mkdirTree(dest.slice(0, dest.lastIndexOf("/")));
    pyodide.FS.writeFile(dest, readFileSync(join(root, "c9", name)));
  }
}
pyodide.FS.writeFile("/home/pyodide/anchor-model.json", readFileSync(join(root, "anchor-model.json")));
const script = readFileSync(process.argv[2], "utf8");
try {
  pyodide.runPython("import os, sys; os.chdir('/home/pyodide'); sys.path.insert(0, '/home/pyodide')");
  const t1 = performance.now();
  pyodide.runPython(script);
  const tRun = performance.now() - t1;
  process.stdout.write(String(pyodide.globals.get("RESULT")) + "\n");
  process.stderr.write(`pyodide boot ${tBoot.toFixed(0)} ms, script ${tRun.toFixed(0)} ms\n`);
} catch (err) {
  process.stderr.write(String(err) + "\n");
  process.exit(1);
}
