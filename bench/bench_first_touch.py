#!/usr/bin/env python3
"""First touch → first redraw while Python may still be booting (the target: ≤ 200 ms).

Each run opens a page in a new browser context (cold HTTP cache, no service worker in control: a first
visit), waits for the load event and for the widget to mount, and at once makes one touch with the mouse,
as Playwright's click does it (scroll into view, pointerdown, pointerup, click):
- lesson 5, memory bar: the b slider, clicked at the stop b = 2 (default 1);
- lesson 2, bit flipper: bit 0 of the FP16 row;
- lesson 4, block lab: the extra-token checkbox (unchecked; six schemes are redrawn, one by one).
Timed from the input event that changes the widget's state (its timeStamp: when the browser received it)
— the slider's pointerdown (the thumb jumps and "input" fires then), the click (on release) elsewhere — to:
- "redraw": the widget's DOM holding the answer — for the liveView widgets the end of the widget's
  `c9:draw:NAME` measure (live-view.js; after the whole draw), for the block lab the first scheme's summary
  changing (a MutationObserver; its draw includes the heatmap's Plotly call when Plotly is there);
- "frame": the next animation frame after that (the browser paints then);
- block lab only, "all": all six schemes drawn (its `c9:redraw` mark).
With the build's answer cache on (as shipped) and, as the control, off (answers.js: answers.enabled = false,
set after the load event and before the touch: the touch then waits for Python to boot and answer).
Runs alternate on/off per widget so that drift hits both alike. Records whether Python was ready at the
touch (it must not be), who answered (data-answered-by), and when the widget's answer file was fetched.
Not a test: figures depend on the machine.
Usage: .venv/bin/python bench/bench_first_touch.py [--runs N] [--site DIR (already built; else built here)]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_site import CHROMIUM, FLAGS, ROOT, build  # noqa: E402  (also puts tests/ on sys.path)
from conftest import SiteServer  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

WORKER = "new URL('../assets/js/worker.js', location.href)"  # the same module instances as the page's
ANSWERS = "new URL('../assets/js/answers.js', location.href)"

# Before any page script: the first event of each kind (capture phase, before any widget's handler), with
# its timeStamp (when the browser received the input) and when it was handled.
INIT = """window.__ev = {};
for (const type of ["pointerdown", "pointerup", "click", "input", "change"]) {
  document.addEventListener(type, (e) => {
    if (!window.__ev[type]) window.__ev[type] = {t: e.timeStamp, handled: performance.now(), target: e.target.outerHTML.slice(0, 80)};
  }, {capture: true});
}"""

# Armed just before the touch: the first mutation of the widget's summary, and the frame after it.
ARM = """([sel, summarySel]) => {
  const root = document.querySelector(sel);
  const summary = root.querySelector(summarySel);
  window.__redraw = {};
  const mo = new MutationObserver(() => {
    mo.disconnect();
    window.__redraw.summary = performance.now();
    requestAnimationFrame(() => { window.__redraw.frame = performance.now(); });
  });
  mo.observe(summary, {childList: true, characterData: true, subtree: true});
}"""

WIDGETS = {
    "memory-bar": {
        "page": "lesson-5/",
        "root": '[data-widget="memory-bar"]',
        "summary": ".c9-summary",
        "what": "lesson 5 memory bar: b slider 1 → 2",
    },
    "bit-flipper": {
        "page": "lesson-2/",
        "root": '[data-widget="bit-flipper"]',
        "summary": ".c9-summary",
        "what": "lesson 2 bit flipper: FP16 bit 0",
    },
    "block-lab": {
        "page": "lesson-4/",
        "root": '[data-widget="block-lab"]',
        "summary": ".c9-bl-panel:not([hidden]) .c9-bl-summary",
        "what": "lesson 4 block lab: token checkbox",
    },
}


def touch(page, name: str) -> dict:
    root = page.locator(WIDGETS[name]["root"]).first
    if name == "memory-bar":
        b = root.locator('input[name="b_stop"]')  # b's log slider: its value is the stop's index (1 → b = 2)
        w, h, lo, hi = b.evaluate("(el) => [el.offsetWidth, el.offsetHeight, Number(el.min), Number(el.max)]")
        thumb = (
            16  # Chromium's range thumb, px: value v sits at thumb/2 + (v − lo)/(hi − lo) · (width − thumb)
        )
        b.click(
            position={"x": thumb / 2 + (1 - lo) / (hi - lo) * (w - thumb), "y": h / 2}
        )  # scrolls it into view
        return {"b": root.locator('input[name="b"]').input_value()}
    if name == "bit-flipper":
        root.locator('.c9-bf-row[data-format="float16"] .c9-bit[data-pos="0"]').click()
    elif name == "block-lab":
        root.locator('input[name="token"]').click()
    return {}


def one_run(browser, url: str, name: str, cache: bool) -> dict:
    w = WIDGETS[name]
    ctx = browser.new_context(service_workers="block")  # a first visit: cold cache, no worker in control
    page = ctx.new_page()
    page.add_init_script(INIT)
    try:
        page.goto(url + w["page"], wait_until="load")
        t_load = page.evaluate("() => performance.now()")
        page.wait_for_function(
            f"() => performance.getEntriesByName('c9:mount:{name}').length > 0", polling="raf"
        )
        before = page.evaluate(
            f"""async (cache) => {{
            const {{ python }} = await import({WORKER});
            if (!cache) (await import({ANSWERS})).answers.enabled = false;   // the control: every answer from Python
            return {{state: python.state, next_id: python.nextId}}; }}""",
            cache,
        )
        page.evaluate(ARM, [w["root"], w["summary"]])
        extra = touch(page, name)
        done = (
            "() => window.__redraw.frame !== undefined && performance.getEntriesByName('c9:redraw').length > 0"
            if name == "block-lab"
            else f"() => window.__redraw.frame !== undefined && performance.getEntriesByName('c9:draw:{name}').length > 0"
        )
        page.wait_for_function(done, timeout=180_000, polling=50)
        r = page.evaluate(
            f"""async ([name, sel]) => {{
            const {{ python }} = await import({WORKER});
            // The touch: the event that changes the widget's state — pointerdown on the slider (its thumb
            // jumps and "input" fires then), the click (after the button is released) everywhere else.
            const ev = window.__ev, t = (name === "memory-bar" ? ev.pointerdown : ev.click).t;
            const at = (e) => e ? e.startTime - t : null;
            const draw = performance.getEntriesByName(`c9:draw:${{name}}`)[0];
            const redrawMark = performance.getEntriesByName("c9:redraw")[0];
            const file = document.querySelector(sel).dataset.answers;
            const res = file && performance.getEntriesByType("resource").find((e) => e.name.endsWith(file.replace(/^(\\.\\.\\/)+/, "")));
            return {{
              touch_at_ms: t, handler_delay_ms: (name === "memory-bar" ? ev.pointerdown : ev.click).handled - t,
              events_ms: Object.fromEntries(Object.entries(ev).map(([k, v]) => [k, [v.t - t, v.handled - t]])),
              target: (name === "memory-bar" ? ev.pointerdown : ev.click).target,
              draw_end_ms: draw ? draw.startTime + draw.duration - t : null,
              summary_ms: window.__redraw.summary - t, frame_ms: window.__redraw.frame - t,
              all_ms: name === "block-lab" ? at(redrawMark) : null,
              answered_by: document.querySelector(sel).dataset.answeredBy || null,
              built_measure: performance.getEntriesByName(`c9:built:${{name}}`).length,
              python_measure: performance.getEntriesByName(`c9:python:${{name}}`).length,
              python_start_ms: at(performance.getEntriesByName("c9:python-start")[0]),
              python_ready_ms: at(performance.getEntriesByName("c9:python-ready")[0]),
              python_state_now: python.state, python_next_id: python.nextId,
              answers_file: file || null,
              answers_fetch_ms: res ? [res.startTime - t, res.responseEnd - t] : null,
              status: document.querySelector(sel).querySelector(".c9-status")?.textContent || "",
            }}; }}""",
            [name, w["root"]],
        )
        r.update(extra)
        # Requests sent to Python by the page since just before the touch (the formula widget follows the
        # memory bar with its own request; with the cache on, both are cached).
        r["python_requests"] = r.pop("python_next_id") - before["next_id"]
        r["load_to_touch_ms"] = r["touch_at_ms"] - t_load
        start, ready = r["python_start_ms"], r["python_ready_ms"]
        r["python_state_at_touch"] = (
            "ready"
            if ready is not None and ready <= 0
            else "booting"
            if start is not None and start <= 0
            else "idle"
        )
        # The redraw: the whole draw of a liveView widget (c9:draw measure), the first panel of the block lab.
        r["redraw_ms"] = r["draw_end_ms"] if name != "block-lab" else r["summary_ms"]
        r["cache"] = cache
        r["errors"] = []
        return r
    finally:
        ctx.close()


def stats(xs: list[float]) -> dict:
    xs = sorted(x for x in xs if x is not None)
    return (
        {
            "n": len(xs),
            "median": round(statistics.median(xs), 1),
            "min": round(xs[0], 1),
            "max": round(xs[-1], 1),
        }
        if xs
        else {"n": 0}
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--site", type=Path, help="an already built site (built with SITE_URL under /c9/); default: build one"
    )
    ap.add_argument("--widgets", default=",".join(WIDGETS))
    args = ap.parse_args()
    names = args.widgets.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or Path(tmp) / "site"
        build_s = None if args.site else build(site)
        server = SiteServer(site)
        server.httpd.handle_error = lambda *a: None  # a context closed mid-download resets its connections
        runs: dict = {n: {"on": [], "off": []} for n in names}
        t0 = time.perf_counter()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            for i in range(args.runs):
                for n in names:
                    for cache in (True, False) if i % 2 == 0 else (False, True):
                        r = one_run(browser, server.url, n, cache)
                        runs[n]["on" if cache else "off"].append(r)
                        print(
                            f"  run {i + 1} {n:<12} cache {'on ' if cache else 'off'}: redraw {r['redraw_ms']:8.1f} ms, "
                            f"frame {r['frame_ms']:8.1f} ms, by {r['answered_by'] or ('build' if r['built_measure'] else 'python')}, "
                            f"Python {r['python_state_at_touch']} at touch",
                            flush=True,
                        )
            browser.close()
        server.close()
    summary = {}
    for n in names:
        summary[n] = {}
        for mode in ("on", "off"):
            rs = runs[n][mode]
            summary[n][mode] = {
                "redraw_ms": stats([r["redraw_ms"] for r in rs]),
                "frame_ms": stats([r["frame_ms"] for r in rs]),
                **({"all_six_ms": stats([r["all_ms"] for r in rs])} if n == "block-lab" else {}),
                "python_ready_after_touch_ms": stats([r["python_ready_ms"] for r in rs]),
                "load_to_touch_ms": stats([r["load_to_touch_ms"] for r in rs]),
                "python_ready_at_touch": sum(r["python_state_at_touch"] == "ready" for r in rs),
                "answered_by": sorted(
                    {r["answered_by"] or ("build" if r["built_measure"] else "python") for r in rs}
                ),
            }
    results = {
        "runs_per_mode": args.runs,
        "build_seconds": round(build_s, 2) if build_s else None,
        "bench_seconds": round(time.perf_counter() - t0, 1),
        "widgets": {n: WIDGETS[n]["what"] for n in names},
        "summary": summary,
        "runs": runs,
    }
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "first_touch.json").write_text(json.dumps(results, indent=1, ensure_ascii=False))

    fmt = lambda s: f"{s['median']:,.0f} ({s['min']:,.0f}–{s['max']:,.0f})" if s["n"] else "—"  # noqa: E731
    print(
        "\nFirst touch → redraw, right after the load event (fresh context each run; median (min–max) ms; "
        "target ≤ 200 ms)"
    )
    head = [
        "widget (touch)",
        "N",
        "cache on: redraw",
        "→ frame",
        "cache off: redraw",
        "→ frame",
        "Python ready (off)",
    ]
    rows = []
    for n in names:
        on, off = summary[n]["on"], summary[n]["off"]
        rows.append(
            [
                WIDGETS[n]["what"],
                f"{on['redraw_ms']['n']}+{off['redraw_ms']['n']}",
                fmt(on["redraw_ms"]),
                fmt(on["frame_ms"]),
                fmt(off["redraw_ms"]),
                fmt(off["frame_ms"]),
                fmt(off["python_ready_after_touch_ms"]),
            ]
        )
        if n == "block-lab":
            rows.append(
                ["  … all six schemes drawn", "", fmt(on["all_six_ms"]), "", fmt(off["all_six_ms"]), "", ""]
            )
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        print(
            "  ".join(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(r))
        )
    for n in names:
        for mode in ("on", "off"):
            s = summary[n][mode]
            if s["python_ready_at_touch"]:
                print(
                    f"! {n} cache {mode}: Python was already ready at the touch in {s['python_ready_at_touch']} run(s)"
                )
            if s["answered_by"] != (["build"] if mode == "on" else ["python"]):
                print(f"! {n} cache {mode}: answered by {s['answered_by']}")
    print(f"→ {out / 'first_touch.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
