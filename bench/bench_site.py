#!/usr/bin/env python3
"""Benchmark the built site in headless Chromium: prints a table and writes bench/results/site.json.

Measures, in one run on this machine:
- bare Pyodide boot from the site's own copy (the floor of this stack) vs our worker's boot to
  "ready" (Pyodide + the course zip + import), cold and warm HTTP cache;
- slider-to-redraw (lesson 5's memory bar) and bit-flip-to-redraw (lesson 2's bit flipper) latency,
  input event → Python → DOM updated, p50 / p95 over N events each;
- main-thread long tasks (> 50 ms) during load and interaction;
- bytes per page over the network, gzip-compressed: every page as loaded (no scrolling, no widget used),
  and lesson 5 read to the end with its widgets used (with and without Pyodide);
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
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

BARE_WORKER = """
import { loadPyodide } from "../vendor/pyodide/pyodide.mjs";
const py = await loadPyodide({ indexURL: new URL("../vendor/pyodide/", import.meta.url).href });
// The floor of any answer from Python: the request in, through json, straight back (no computing).
const echo = py.runPython("import json\\nlambda s: json.dumps({'ok': True, 'view': json.loads(s)})");
postMessage("ready");
onmessage = ({ data }) => postMessage({ id: data.id, response: echo(JSON.stringify(data.request)) });
"""

# In the page: n round trips through the bare worker, each timed like ours (post → answer parsed), sorted.
BARE_ROUND_TRIPS = """async ([src, n]) => {
  const w = new Worker(src, {type: "module"});
  await new Promise((resolve) => { w.onmessage = resolve; });
  const out = [];
  for (let i = 0; i < n; i++) {
    const request = {widget: "memory-bar", params: {model: "qwen3.8-27b", s: "4096", b: 1 + (i + 1) % 8,
                                                    mode: "store_all", s2_full_only: false}};
    const t0 = performance.now();
    await new Promise((resolve) => { w.onmessage = ({data}) => resolve(JSON.parse(data.response)); w.postMessage({id: i, request}); });
    out.push(performance.now() - t0);
  }
  w.terminate();
  return out.sort((a, b) => a - b);
}"""

# In the page: resolve when the next "c9:redraw" performance mark appears.
NEXT_REDRAW = """() => new Promise((resolve) => {
  const before = performance.getEntriesByName("c9:redraw").length;
  const poll = () => performance.getEntriesByName("c9:redraw").length > before ? resolve() : requestAnimationFrame(poll);
  poll();
})"""


def build(out: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
        cwd=ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": f"http://127.0.0.1{SUB_PATH}"},
        capture_output=True,
    )
    return time.perf_counter() - t0


def bare_boot(browser, url: str) -> float:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(url + "404.html")
    # Timed on the main thread from `new Worker` to the worker's message, as our own boot is timed
    # (python-start → python-ready marks), so both include fetching and compiling the worker's modules.
    ms = page.evaluate(
        """(src) => new Promise((resolve, reject) => {
        const t0 = performance.now();
        const w = new Worker(src, {type: "module"});
        w.onmessage = () => resolve(performance.now() - t0); w.onerror = reject; })""",
        url + "__bench/bare-worker.js",
    )
    ctx.close()
    return ms


def our_boot(page) -> float:
    page.locator('[data-widget="memory-bar"] select[name="model"]').focus()  # focusing a widget starts Python
    page.wait_for_function(
        "() => performance.getEntriesByName('c9:python-ready').length > 0", timeout=120_000
    )
    return page.evaluate("""() => performance.getEntriesByName('c9:python-ready')[0].startTime
                                  - performance.getEntriesByName('c9:python-start')[0].startTime""")


def redraw_latency(page, n: int, act: str) -> tuple[list[float], list[float]]:
    """n events, `act(i)` being JS that fires event i. For each: ms from the event to the "c9:redraw"
    mark (the DOM holds Python's answer), and to the first animation frame after it (when the
    browser paints it). Returns both lists, sorted."""
    dom, frame = [], []
    for i in range(n):
        d, f = page.evaluate(
            """async ([act, i]) => {
            const wait = (${NEXT})();
            const t0 = performance.now();
            new Function("i", act)(i);
            await wait;
            const painted = performance.now();
            return [performance.getEntriesByName("c9:redraw").at(-1).startTime - t0, painted - t0];
        }""".replace("${NEXT}", NEXT_REDRAW),
            [act, i],
        )
        dom.append(d)
        frame.append(f)
    return sorted(dom), sorted(frame)


def reader_latency(page, n: int, act: str, pause_ms: int, widget: str) -> tuple[list[float], dict]:
    """As redraw_latency, with the answer cache and the answers ahead on and `pause_ms` between events (a
    reader holding an arrow key moves a slider every ~33 ms; a click comes slower): ms from each event to
    the "c9:redraw" mark, sorted, and how many answers came from the build, from ahead, or from Python."""
    dom, by = [], {}
    for i in range(n):
        page.evaluate("(i) => { window.__c9act = () => { " + act + " }; }", i)  # no eval in the page (CSP)
        d, who = page.evaluate(
            """async ([i, pause, widget]) => {
            await new Promise((r) => setTimeout(r, pause));
            const wait = (${NEXT})();
            const t0 = performance.now();
            window.__c9act();
            await wait;
            return [performance.getEntriesByName("c9:redraw").at(-1).startTime - t0,
                    document.querySelector(`[data-widget="${widget}"]`).dataset.answeredBy];
        }""".replace("${NEXT}", NEXT_REDRAW),
            [i, pause_ms, widget],
        )
        dom.append(d)
        by[who] = by.get(who, 0) + 1
    return sorted(dom), by


# A reader's drag: s up and down the slider's stops at b = 2 (so not the build's states one step from
# the default), one stop per event.
S_DRAG = """const r = document.querySelector('[data-widget="memory-bar"] input[name="s_stop"]');
const k = i % 16, v = 16 + (k < 8 ? k : 16 - k);  // stops 256 … 4,096
r.value = String(v); r.dispatchEvent(new Event("input", {bubbles: true}));"""
B_TWO = """const s = document.querySelector('[data-widget="memory-bar"] input[name="b_stop"]');
s.value = "1"; s.dispatchEvent(new Event("input", {bubbles: true}));"""  # b's stop 1 is b = 2
# A reader trying bits: FP16's bits one after another, each flip from the state the last one left.
BITS_WALK = """document.querySelector('[data-widget="bit-flipper"] .c9-bf-row[data-format="float16"] .c9-bit[data-pos="' + (i % 14) + '"]').click();"""
ANSWERS_ON = "() => import(new URL('../assets/js/answers.js', location.href)).then((m) => { m.answers.enabled = true; })"

# Every event changes b, so every event redraws.
SLIDER = """const s = document.querySelector('[data-widget="memory-bar"] input[name="b_stop"]');
s.value = String((i + 1) % 6); s.dispatchEvent(new Event("input", {bubbles: true}));"""  # b's stops 1, 2, 3, 4, 6, 8
# Flip bit 14 of FP16 (the exponent's top bit) back and forth: every event is a new code.
BIT_FLIP = """document.querySelector('[data-widget="bit-flipper"] .c9-bf-row[data-format="float16"] .c9-bit[data-pos="14"]').click();"""

# Warm input is timed through Python: the build's answer cache (answers.js: answers) holds every b and the
# bit flips above, and would answer them without a round trip.
PYTHON_ONLY = "() => import(new URL('../assets/js/answers.js', location.href)).then((m) => { m.answers.enabled = false; })"


def longest_mount(page) -> float:
    """The longest synchronous run of our own code while the page opened: a widget's mount()
    (course.js measures each as "c9:mount:NAME")."""
    return page.evaluate("""() => Math.max(0, ...performance.getEntriesByType("measure")
        .filter((m) => m.name.startsWith("c9:mount:")).map((m) => m.duration))""")


def measures(page, name: str) -> list[float]:
    """Durations (ms) of the performance measures called `name`, sorted, then cleared."""
    out = page.evaluate(
        """(name) => { const d = performance.getEntriesByName(name).map((m) => m.duration);
                                       performance.clearMeasures(name); return d; }""",
        name,
    )
    return sorted(out)


def percentile(xs: list[float], q: float) -> float:
    return xs[int(q * (len(xs) - 1))]


def requested_paths(page, action) -> set[str]:
    """Site paths the page fetched while `action()` ran (plus a quiet second after it)."""
    got: set[str] = set()
    listener = lambda r: got.add(r.url.split(SUB_PATH, 1)[-1].split("?")[0])  # noqa: E731
    page.context.on("request", listener)  # the context sees the Web Worker's requests too
    action()
    page.wait_for_timeout(1500)
    page.context.remove_listener("request", listener)
    return {u for u in got if u and not u.startswith("__bench")} | ({"index.html"} if "" in got else set())


def page_bytes(site: Path, paths: set[str]) -> dict:
    """gzip-compressed bytes of the given site paths, by share: Python (Pyodide and course-py.zip), the web font (only fetched
    where the reader has no CJK font of their own), Plotly, and everything else."""
    out = {"pyodide": 0, "font": 0, "plotly": 0, "rest": 0}
    for p in paths:
        f = site / p
        if f.is_dir():
            f = f / "index.html"
        if f.is_file():
            n = len(gzip.compress(f.read_bytes(), 6))
            key = (
                "pyodide"
                if "vendor/pyodide/" in p or p.endswith("course-py.zip")
                else "font"
                if "vendor/fonts/" in p
                else "plotly"
                if "vendor/plotly/" in p
                else "rest"
            )
            out[key] += n
    return out


PAGES = ["", "lesson-1/", "lesson-2/", "lesson-3/", "lesson-4/", "lesson-5/", "fp4/", "lab/"]
LONG_TASKS = """window.__longtasks = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longtasks.push(e.duration); })
  .observe({type: "longtask", buffered: true});"""


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
        results: dict = {"build_seconds": round(build_s, 2), "pages": {}}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            results["bare_pyodide_boot_ms"] = [round(bare_boot(browser, server.url), 1) for _ in range(3)]

            # Every page as a reader first opens it: a fresh cache, no scrolling, no widget touched.
            for path in PAGES:
                ctx = browser.new_context(service_workers="block")  # a first visit: no worker in control
                page = ctx.new_page()
                page.add_init_script(LONG_TASKS)
                got = requested_paths(page, lambda: page.goto(server.url + path, wait_until="load"))  # noqa: B023 (called at once)
                share = page_bytes(site, got)
                if path == "lesson-5/":
                    results["lesson5_as_opened_files"] = sorted(got)
                results["pages"][path or "index"] = {
                    **share,
                    "long_tasks_ms": [round(x) for x in page.evaluate("() => window.__longtasks")],
                    "our_longest_mount_ms": round(longest_mount(page), 1),
                }
                ctx.close()

            # Lesson 5 used: Python booted, the memory bar moved, read to the end (the timeline's Plotly).
            ctx = browser.new_context(service_workers="block")  # count every byte from the network
            page = ctx.new_page()
            page.add_init_script(LONG_TASKS)
            used: set[str] = set()
            used |= requested_paths(page, lambda: page.goto(server.url + "lesson-5/"))
            boot = {}
            used |= requested_paths(page, lambda: boot.setdefault("ms", our_boot(page)))
            results["our_boot_cold_ms"] = round(boot["ms"], 1)
            page.wait_for_timeout(300)
            measures(page, "c9:python:memory-bar"), measures(page, "c9:draw:memory-bar")
            page.evaluate(PYTHON_ONLY)
            # The control, in the same page and run: the bare worker's round trip (events interleaved in
            # blocks so that the machine's noise falls on both alike).
            bare_rt, slider, slider_frame = [], [], []
            for _block in range(4):
                bare_rt += page.evaluate(
                    BARE_ROUND_TRIPS, [server.url + "__bench/bare-worker.js", args.events // 4]
                )
                d, f = redraw_latency(page, args.events // 4, SLIDER)
                slider += d
                slider_frame += f
            bare_rt.sort()
            slider.sort()
            slider_frame.sort()
            py, draw = measures(page, "c9:python:memory-bar"), measures(page, "c9:draw:memory-bar")
            page.evaluate(ANSWERS_ON)
            redraw_latency(page, 1, B_TWO)
            drag, drag_by = reader_latency(page, args.events, S_DRAG, 50, "memory-bar")
            results["reader_drag_p50_p95_ms"] = [
                round(statistics.median(drag), 2),
                round(percentile(drag, 0.95), 2),
            ]
            results["reader_drag_answered_by"] = drag_by
            results["slider_python_round_trip_p50_p95_ms"] = [
                round(statistics.median(py), 2),
                round(percentile(py, 0.95), 2),
            ]
            results["slider_draw_p50_p95_ms"] = [
                round(statistics.median(draw), 2),
                round(percentile(draw, 0.95), 2),
            ]

            def read_to_the_end():
                page.locator('[data-widget="timeline"]').scroll_into_view_if_needed()
                page.wait_for_selector('[data-widget="timeline"][data-chart="drawn"]', timeout=60_000)
                page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")

            used |= requested_paths(page, read_to_the_end)
            long_tasks = page.evaluate("() => window.__longtasks")
            page.goto(server.url + "lesson-5/")
            results["our_boot_warm_ms"] = round(our_boot(page), 1)
            page.goto(server.url + "lesson-2/")
            page.locator('[data-widget="bit-flipper"] .c9-bit').first.focus()  # starts Python
            page.wait_for_function(
                "() => performance.getEntriesByName('c9:python-ready').length > 0", timeout=120_000
            )
            page.evaluate(PYTHON_ONLY)
            measures(page, "c9:python:bit-flipper"), measures(page, "c9:draw:bit-flipper")
            flips, flips_frame = redraw_latency(page, args.events, BIT_FLIP)
            py, draw = measures(page, "c9:python:bit-flipper"), measures(page, "c9:draw:bit-flipper")
            page.evaluate(ANSWERS_ON)
            walk, walk_by = reader_latency(page, args.events, BITS_WALK, 120, "bit-flipper")
            results["reader_bits_p50_p95_ms"] = [
                round(statistics.median(walk), 2),
                round(percentile(walk, 0.95), 2),
            ]
            results["reader_bits_answered_by"] = walk_by
            results["bitflip_python_round_trip_p50_p95_ms"] = [
                round(statistics.median(py), 2),
                round(percentile(py, 0.95), 2),
            ]
            results["bitflip_draw_p50_p95_ms"] = [
                round(statistics.median(draw), 2),
                round(percentile(draw, 0.95), 2),
            ]
            ctx.close()
            browser.close()
        server.close()
        full = page_bytes(site, used)
    bare = statistics.median(results["bare_pyodide_boot_ms"])
    without = lambda share: share["font"] + share["plotly"] + share["rest"]  # noqa: E731
    results.update(
        {
            "boot_ratio_cold": round(results["our_boot_cold_ms"] / bare, 2),
            "bare_round_trip_p50_p95_ms": [
                round(statistics.median(bare_rt), 2),
                round(percentile(bare_rt, 0.95), 2),
            ],
            "slider_events": len(slider),
            "slider_p50_ms": round(statistics.median(slider), 2),
            "slider_p95_ms": round(percentile(slider, 0.95), 2),
            "slider_max_ms": round(slider[-1], 2),
            "bitflip_events": len(flips),
            "bitflip_p50_ms": round(statistics.median(flips), 2),
            "bitflip_p95_ms": round(percentile(flips, 0.95), 2),
            "bitflip_max_ms": round(flips[-1], 2),
            "slider_to_frame_p50_ms": round(statistics.median(slider_frame), 2),
            "slider_to_frame_p95_ms": round(percentile(slider_frame, 0.95), 2),
            "bitflip_to_frame_p50_ms": round(statistics.median(flips_frame), 2),
            "bitflip_to_frame_p95_ms": round(percentile(flips_frame, 0.95), 2),
            "lesson5_used_long_tasks_ms": [round(x) for x in long_tasks],
            "lesson5_used_gzip_bytes": full,
        }
    )
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "site.json").write_text(json.dumps(results, indent=1))
    kb = lambda n: f"{n / 1000:,.0f} KB"  # noqa: E731
    rows = [
        ("build (mkdocs build --strict)", f"{results['build_seconds']} s", ""),
        ("bare Pyodide boot (median of 3)", f"{bare:.0f} ms", "the floor"),
        (
            "our worker ready, cold",
            f"{results['our_boot_cold_ms']:.0f} ms",
            f"{results['boot_ratio_cold']}× bare (target ≤ 1.15×)",
        ),
        ("our worker ready, warm", f"{results['our_boot_warm_ms']:.0f} ms", ""),
        (
            f"slider → DOM redrawn p50 / p95 (n = {len(slider)})",
            f"{results['slider_p50_ms']} / {results['slider_p95_ms']} ms",
            "target p95 ≤ 16.7 ms",
        ),
        (
            "  … → the next animation frame",
            f"{results['slider_to_frame_p50_ms']} / {results['slider_to_frame_p95_ms']} ms",
            "includes waiting for vsync",
        ),
        (
            "  control: bare Pyodide worker round trip",
            " / ".join(map(str, results["bare_round_trip_p50_p95_ms"])) + " ms",
            f"p95 ratio {results['slider_p95_ms'] / max(results['bare_round_trip_p50_p95_ms'][1], 0.01):.2f}× (target ≤ 1.5×)",
        ),
        (
            "  of which the Python round trip",
            " / ".join(map(str, results["slider_python_round_trip_p50_p95_ms"])) + " ms",
            "worker postMessage → answer",
        ),
        (
            "  of which drawing the answer",
            " / ".join(map(str, results["slider_draw_p50_p95_ms"])) + " ms",
            "SVG + table + summary + address",
        ),
        (
            f"bit flip → DOM redrawn p50 / p95 (n = {len(flips)})",
            f"{results['bitflip_p50_ms']} / {results['bitflip_p95_ms']} ms",
            f"target p95 ≤ 16.7 ms; {results['bitflip_p95_ms'] / max(results['bare_round_trip_p50_p95_ms'][1], 0.01):.2f}× bare p95 (≤ 1.5×)",
        ),
        (
            "  of which the Python round trip",
            " / ".join(map(str, results["bitflip_python_round_trip_p50_p95_ms"])) + " ms",
            "",
        ),
        (
            "  of which drawing the answer",
            " / ".join(map(str, results["bitflip_draw_p50_p95_ms"])) + " ms",
            "rows, bits, tooltips, address",
        ),
        (
            "  … → the next animation frame",
            f"{results['bitflip_to_frame_p50_ms']} / {results['bitflip_to_frame_p95_ms']} ms",
            "includes waiting for vsync",
        ),
        (
            "reader: s dragged a stop per 50 ms at b = 2, p50 / p95",
            " / ".join(map(str, results["reader_drag_p50_p95_ms"])) + " ms",
            f"answered by {results['reader_drag_answered_by']} (target p95 ≤ 16.7 ms)",
        ),
        (
            "reader: FP16 bits flipped one per 120 ms, p50 / p95",
            " / ".join(map(str, results["reader_bits_p50_p95_ms"])) + " ms",
            f"answered by {results['reader_bits_answered_by']}",
        ),
        (
            "lesson 5 used: long tasks > 50 ms",
            str(results["lesson5_used_long_tasks_ms"]),
            "target: none from our code",
        ),
    ]
    for path, share in results["pages"].items():
        rows.append(
            (
                f"{path}: as opened, gzip (font / Plotly)",
                kb(without(share)),
                f"({kb(share['font'])} / {kb(share['plotly'])}) long tasks {share['long_tasks_ms']}, "
                f"ours ≤ {share['our_longest_mount_ms']} ms",
            )
        )
    rows += [
        (
            "lesson 5 used to the end, without Python",
            kb(without(full)),
            f"font {kb(full['font'])}, Plotly {kb(full['plotly'])}",
        ),
        (
            "  Pyodide + the course's Python, gzip",
            kb(full["pyodide"]),
            "fetched once, when a widget is first used",
        ),
    ]
    w = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{w}}  {value:>16}  {note}")
    print("(font: only readers without a CJK system font fetch it; target < 800 KB per page without Pyodide)")
    print(f"→ {out / 'site.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
