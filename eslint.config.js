// ESLint (flat config): `npm run lint`. The recommended rules over every script of the site and its tools,
// each file with the globals of where it runs.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "site/", "build/", ".cache/"] },
  js.configs.recommended,
  {
    // The page's modules (docs/assets/js) and the widgets' scripts beside their views (c9/views).
    files: ["docs/assets/js/*.js", "c9/views/*.js"],
    languageOptions: { sourceType: "module", globals: globals.browser },
  },
  {
    // The course's Python in a module Web Worker.
    files: ["docs/assets/js/py-worker.js"],
    languageOptions: { sourceType: "module", globals: globals.worker },
  },
  {
    // Material's inline scripts, moved to files as they are (classic scripts sharing its __md_* globals).
    files: ["docs/assets/js/material/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: { ...globals.browser, __md_scope: "writable", __md_hash: "writable", __md_get: "writable", __md_set: "writable" },
    },
  },
  {
    // Run before Material's bundle, as a classic script (overrides/main.html).
    files: ["docs/assets/js/in-page-jumps.js"],
    languageOptions: { sourceType: "script", globals: globals.browser },
  },
  {
    // The service worker: a classic script.
    files: ["docs/sw.js"],
    languageOptions: { sourceType: "script", globals: globals.serviceworker },
  },
  {
    // Build tools, test helpers and benchmarks run by Node.
    files: ["tools/*.mjs", "tests/*.mjs", "bench/*.mjs", "eslint.config.js"],
    languageOptions: { sourceType: "module", globals: globals.node },
  },
];
