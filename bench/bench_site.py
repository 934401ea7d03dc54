#!/usr/bin/env python3
"""Benchmark the built site in headless Chromium: prints a table and writes bench/results/site.json.

Measures, in one run on this machine:
- bare Pyodide boot from the site's own copy (the floor of this stack) vs our worker's boot to
  "ready" (Pyodide + the course zip + import), cold and warm HTTP cache;
- slider-to-redraw latency (input event → Python → Plotly.react done), p50 / p95 over N events;
- main-thread long tasks (> 50 ms) during load and interaction;
- bytes per page over the network, gzip-compressed, with and without Pyodide;
- the build's own time.
Not a test: figures depend on the machine. Usage: .venv/bin/python bench/bench_site.py [--events N]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from conftest import SUB_PATH, SiteServer  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

CHROMIUM = os.environ.get("C9_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]

BARE_WORKER = """
import { loadPyodide } from "../vendor/pyodide/pyodide.mjs";
await loadPyodide({ indexURL: new URL("../vendor/pyodide/", import.meta.url).href });
postMessage("ready");
"""

# In the page: resolve when the next "c9:redraw" performance mark appears.
NEXT_REDRAW = """() => new Promise((resolve) => {
  const before = performance.getEntriesByName("c9:redraw").length;
  const poll = () => performance.getEntriesByName("c9:redraw").length > before ? resolve() : requestAnimationFrame(poll);
  poll();
})"""


def build(out: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT, check=True,
                   env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": f"http://127.0.0.1{SUB_PATH}"},
                   capture_output=True)
    return time.perf_counter() - t0


def bare_boot(browser, url: str) -> float:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(url + "404.html")
    # Timed on the main thread from `new Worker` to the worker's message, as our own boot is timed
    # (python-start → python-ready marks), so both include fetching and compiling the worker's modules.
    ms = page.evaluate("""(src) => new Promise((resolve, reject) => {
        const t0 = performance.now();
        const w = new Worker(src, {type: "module"});
        w.onmessage = () => resolve(performance.now() - t0); w.onerror = reject; })""",
                       url + "__bench/bare-worker.js")
    ctx.close()
    return ms


def our_boot(page) -> float:
    page.locator('[data-widget="memory-bar"] select').focus()  # focusing a widget starts Python
    page.wait_for_function("() => performance.getEntriesByName('c9:python-ready').length > 0", timeout=120_000)
    return page.evaluate("""() => performance.getEntriesByName('c9:python-ready')[0].startTime
                                  - performance.getEntriesByName('c9:python-start')[0].startTime""")


def slider_latency(page, n: int) -> list[float]:
    out = []
    for i in range(n):
        value = str(1 + (i + 1) % 8)  # every event changes b, so every event redraws
        out.append(page.evaluate("""async ([value, nextRedraw]) => {
            const slider = document.querySelector('[data-widget="memory-bar"] input[name="b"]');
            const wait = (${NEXT})();
            const t0 = performance.now();
            slider.value = value; slider.dispatchEvent(new Event("input", {bubbles: true}));
            await wait;
            return performance.now() - t0;
        }""".replace("${NEXT}", NEXT_REDRAW), [value, None]))  # noqa: E501
    return out


def page_bytes(site: Path, paths: set[str]) -> dict:
    """gzip-compressed bytes of the given site paths, by share: Pyodide, the web font (only fetched
    where the reader has no CJK font of their own), Plotly, and everything else."""
    out = {"pyodide": 0, "font": 0, "plotly": 0, "rest": 0}
    for p in paths:
        f = site / p
        if f.is_file():
            n = len(gzip.compress(f.read_bytes(), 6))
            key = ("pyodide" if "vendor/pyodide/" in p else "font" if "vendor/fonts/" in p
                   else "plotly" if "vendor/plotly/" in p else "rest")
            out[key] += n
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build_s = build(site)
        (site / "__bench").mkdir()
        (site / "__bench" / "bare-worker.js").write_text(BARE_WORKER)
        server = SiteServer(site)
        results: dict = {"build_seconds": round(build_s, 2)}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            results["bare_pyodide_boot_ms"] = [round(bare_boot(browser, server.url), 1) for _ in range(3)]

            ctx = browser.new_context()
            page = ctx.new_page()
            requested: set[str] = set()
            page.context.on("request", lambda r: requested.add(r.url.split(SUB_PATH, 1)[-1].split("?")[0]))
            page.add_init_script("""window.__longtasks = [];
                new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longtasks.push(e.duration); })
                  .observe({type: "longtask", buffered: true});""")
            page.goto(server.url + "lesson-5/")
            cold = our_boot(page)
            page.wait_for_timeout(300)
            lat = slider_latency(page, args.events)
            long_tasks = page.evaluate("() => window.__longtasks")
            page.goto(server.url + "lesson-5/")
            warm = our_boot(page)
            ctx.close()
            browser.close()
        server.close()
        paths_l5 = {u for u in requested if not u.startswith("__bench")}
        share = page_bytes(site, paths_l5)
        no_py, py = share["font"] + share["plotly"] + share["rest"], share["pyodide"]
        lat.sort()
        results.update({
            "our_boot_cold_ms": round(cold, 1), "our_boot_warm_ms": round(warm, 1),
            "slider_events": len(lat), "slider_p50_ms": round(statistics.median(lat), 2),
            "slider_p95_ms": round(lat[int(0.95 * (len(lat) - 1))], 2), "slider_max_ms": round(lat[-1], 2),
            "long_tasks_ms": [round(x) for x in long_tasks],
            "lesson5_gzip_bytes_without_pyodide": no_py, "lesson5_gzip_bytes_pyodide": py,
            "lesson5_gzip_bytes_font": share["font"], "lesson5_gzip_bytes_plotly": share["plotly"],
        })
    bare = statistics.median(results["bare_pyodide_boot_ms"])
    results["boot_ratio_cold"] = round(results["our_boot_cold_ms"] / bare, 2)
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "site.json").write_text(json.dumps(results, indent=1))
    rows = [
        ("build (mkdocs build --strict)", f"{results['build_seconds']} s", ""),
        ("bare Pyodide boot (median of 3)", f"{bare:.0f} ms", "the floor"),
        ("our worker ready, cold", f"{results['our_boot_cold_ms']:.0f} ms", f"{results['boot_ratio_cold']}× bare (target ≤ 1.15×)"),
        ("our worker ready, warm", f"{results['our_boot_warm_ms']:.0f} ms", ""),
        (f"slider → redraw p50 / p95 (n = {len(lat)})", f"{results['slider_p50_ms']} / {results['slider_p95_ms']} ms", "target p95 ≤ 16.7 ms"),
        ("long tasks > 50 ms (load + interaction)", str(results["long_tasks_ms"]), "target: none from our code"),
        ("lesson 5 bytes, gzip, without Pyodide", f"{no_py / 1000:.0f} KB", "target < 800 KB"),
        ("  of which the Noto Sans SC web font", f"{results['lesson5_gzip_bytes_font'] / 1000:.0f} KB", "only without a CJK system font"),
        ("  of which Plotly.js (cartesian)", f"{results['lesson5_gzip_bytes_plotly'] / 1000:.0f} KB", ""),
        ("Pyodide bytes, gzip", f"{py / 1000:.0f} KB", ""),
    ]
    w = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{w}}  {value:>18}  {note}")
    print(f"→ {out / 'site.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
