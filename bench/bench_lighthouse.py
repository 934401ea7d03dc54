#!/usr/bin/env python3
"""Lighthouse 12.2.3 (mobile: the default form factor, simulated throttling) on every page of the built site.

Prints a table (page × the four category scores, LCP, TBT, CLS, DOM size; medians of --runs runs, 3 by default) and writes bench/results/lighthouse.json with,
per page, the scores, the metrics, every audit of accessibility / best practices / SEO that did not pass, and
the performance opportunities by estimated saving. Targets: performance ≥ 90, accessibility 100, best practices
≥ 95, SEO ≥ 95. Not a test: the performance figures depend on the machine.

The site is built with SITE_URL set to the address it is served from (so the canonical link is right) and
served under the sub-path with the strict CSP header, text gzip-compressed as GitHub Pages serves it.
The control: the same lessons' Markdown built with stock Material in a temporary folder (no course hooks,
CSS or JavaScript; figures as their plain text, no widgets; the same Markdown extensions, math rendered in
the browser by KaTeX as Material's documentation recommends, https://squidfunk.github.io/mkdocs-material/
reference/math/#katex, from the same node_modules), served the same way (its CSP allows Material's inline
scripts, which our site moved to files), measured with the same runs and printed beside ours: the part of
the blocking time that is ours.
Each page is measured twice by default (--fonts both): on this machine as it is, where no CJK font is
installed and the pages fetch their web font, and with a CJK system font installed for the run
(bench/cjk_font.py), as a Chinese reader's machine has one; a table is printed for each.
Usage: .venv/bin/python bench/bench_lighthouse.py [--pages lesson-5/,fp4/] [--runs N] [--control lesson-5/|all|none]
       [--fonts web|system|both]
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
from cjk_font import system_font_env  # noqa: E402
from conftest import CSP, SiteServer, _SubPathHandler  # noqa: E402

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROME_PATH = os.environ.get("C9_CHROMIUM", "/usr/bin/chromium")
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync"
)
PAGES = ["", "lesson-1/", "lesson-2/", "lesson-3/", "lesson-4/", "fp4/", "lesson-5/", "lab/"]
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
TARGETS = {"performance": 90, "accessibility": 100, "best-practices": 95, "seo": 95}
COMPRESSIBLE = (".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".txt", ".map")


class _GzipHandler(_SubPathHandler):
    """The test server's handler (sub-path, CSP header), plus gzip for text files as GitHub Pages serves them,
    so that Lighthouse's simulated slow 4G sees the bytes a reader would fetch."""

    def send_head(self):
        url_path = self.path.split("?", 1)[0].split("#", 1)[0]
        path = self.translate_path(url_path)
        if os.path.isdir(path):
            if not url_path.endswith("/"):
                return super().send_head()  # the redirect to the slashed address
            path = os.path.join(path, "index.html")
        if (
            not path.endswith(COMPRESSIBLE)
            or "gzip" not in self.headers.get("Accept-Encoding", "")
            or not os.path.isfile(path)
        ):
            return super().send_head()
        body = gzip.compress(Path(path).read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")  # what GitHub Pages sends
        self.end_headers()
        return io.BytesIO(body)


class _ControlHandler(_GzipHandler):
    """The control site's handler: our policy, plus the inline scripts stock Material's templates carry."""

    def end_headers(self):
        self.send_header(
            "Content-Security-Policy", CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
        )
        http.server.SimpleHTTPRequestHandler.end_headers(self)


def _server(directory: Path, handler_class=_GzipHandler) -> SiteServer:
    """conftest's SiteServer with the gzip handler."""
    return SiteServer(directory, handler_class)


def build(out: Path, site_url: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
        cwd=ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": site_url},
        capture_output=True,
    )
    return time.perf_counter() - t0


# Material's KaTeX recipe (the page above), as a local file.
CONTROL_KATEX = r"""document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "$$",  right: "$$",  display: true },
      { left: "$",   right: "$",   display: false },
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true }
    ],
  })
})
"""


class _PlainFigures:
    """``fig.NAME`` → the figure's text, with no provenance tooltip (the control has none of the course's additions)."""

    def __init__(self, figures):
        self._figures = figures

    def __getattr__(self, name):
        fig = self._figures[name]
        return type("Plain", (str,), {"text": fig.text, "value": fig.value})(fig.text)


def build_control(out: Path, work: Path, site_url: str) -> float:
    """The control site (module docstring): every page's Markdown with figures as text and no widgets, our nav
    and Markdown extensions, stock Material, KaTeX in the browser."""
    import jinja2

    sys.path.insert(0, str(ROOT))
    import build_numbers
    from hooks.course import CODE

    t0 = time.perf_counter()
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        comment_start_string="{##",
        comment_end_string="##}",
    )
    env.globals.update(fig=_PlainFigures(build_numbers.compute()), widget=lambda *a, **k: "")
    docs = work / "docs"
    for md in sorted((ROOT / "docs").glob("*.md")):
        text, parts, last = md.read_text(encoding="utf-8"), [], 0
        for m in CODE.finditer(text):  # code is left as written, as our hook does
            parts += [env.from_string(text[last : m.start()]).render(), m.group(0)]
            last = m.end()
        parts.append(env.from_string(text[last:]).render())
        (docs / md.name).parent.mkdir(parents=True, exist_ok=True)
        (docs / md.name).write_text("".join(parts), encoding="utf-8")
    katex = ROOT / "node_modules" / "katex" / "dist"
    (docs / "javascripts").mkdir()
    (docs / "javascripts" / "katex.js").write_text(CONTROL_KATEX, encoding="utf-8")
    for src in ("katex.min.js", "contrib/auto-render.min.js", "katex.min.css", "fonts"):
        dst = docs / "katex" / src
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (katex / src).is_dir() else shutil.copyfile)(katex / src, dst)
    ours = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = ours[ours.index("\nnav:") :].split("\n\n", 1)[0]
    extensions = ours[ours.index("\nmarkdown_extensions:") :]
    (work / "mkdocs.yml").write_text(
        f"{ours.splitlines()[0]}\nsite_url: {site_url}\ntheme:\n  name: material\n  language: zh\n  font: false\n"
        "plugins:\n  - search\n"
        "extra_javascript:\n  - javascripts/katex.js\n  - katex/katex.min.js\n  - katex/contrib/auto-render.min.js\n"
        "extra_css:\n  - katex/katex.min.css\n" + nav + "\n" + extensions,
        encoding="utf-8",
    )
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(work / "mkdocs.yml"), "-d", str(out)],
        cwd=work,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
    )
    return time.perf_counter() - t0


def run_lighthouse(url: str, out: Path, env: dict[str, str]) -> dict:
    proc = subprocess.run(
        [
            str(LIGHTHOUSE),
            url,
            "--output=json",
            f"--output-path={out}",
            "--quiet",
            f"--only-categories={','.join(CATEGORIES)}",
            f"--chrome-flags={CHROME_FLAGS}",
            "--locale=en-US",
        ],
        env={**os.environ, "CHROME_PATH": CHROME_PATH, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"lighthouse failed on {url}:\n{proc.stderr[-3000:]}")
    return json.loads(out.read_text())


def summarise(lhr: dict) -> dict:
    audits = lhr["audits"]
    cats = lhr["categories"]
    scores = {c: (None if cats[c]["score"] is None else round(cats[c]["score"] * 100)) for c in CATEGORIES}
    failing = {}
    for c in CATEGORIES[1:]:
        for ref in cats[c]["auditRefs"]:
            a = audits[ref["id"]]
            if ref["weight"] > 0 and a["score"] is not None and a["score"] < 1:
                items = (a.get("details") or {}).get("items") or []
                failing.setdefault(c, []).append(
                    {
                        "id": a["id"],
                        "title": a["title"],
                        "score": a["score"],
                        "items": [_item(i) for i in items[:8]],
                    }
                )
    opportunities = []
    for ref in cats["performance"]["auditRefs"]:
        a = audits[ref["id"]]
        d = a.get("details") or {}
        saving = a.get("metricSavings") or {}
        ms = d.get("overallSavingsMs") or max((v for k, v in saving.items() if k != "CLS" and v), default=0)
        if a["score"] is not None and a["score"] < 1 and (ms or d.get("overallSavingsBytes")):
            opportunities.append(
                {
                    "id": a["id"],
                    "title": a["title"],
                    "savings_ms": round(ms or 0),
                    "savings_bytes": round(d.get("overallSavingsBytes") or 0),
                    "display": a.get("displayValue", ""),
                }
            )
    opportunities.sort(key=lambda o: (-o["savings_ms"], -o["savings_bytes"]))
    metric = {
        k: audits[k]["numericValue"]
        for k in (
            "first-contentful-paint",
            "largest-contentful-paint",
            "total-blocking-time",
            "cumulative-layout-shift",
            "speed-index",
        )
    }
    dom = (audits.get("dom-size") or {}).get("numericValue")
    tasks = ((audits.get("long-tasks") or {}).get("details") or {}).get("items") or []
    return {
        "scores": scores,
        "fcp_ms": round(metric["first-contentful-paint"]),
        "lcp_ms": round(metric["largest-contentful-paint"]),
        "tbt_ms": round(metric["total-blocking-time"]),
        "cls": round(metric["cumulative-layout-shift"], 3),
        "si_ms": round(metric["speed-index"]),
        "dom_size": None if dom is None else round(dom),
        "long_tasks": [
            {"url": t.get("url", ""), "ms": round(t.get("duration", 0))}
            for t in sorted(tasks, key=lambda t: -t.get("duration", 0))[:5]
        ],
        # Lighthouse 12.2.3 against this newer Chromium: the trace-based gatherers (LCP element, layout
        # shift culprits) fail; their audits are listed here rather than silently missing.
        "audit_errors": sorted(k for k, a in audits.items() if a.get("scoreDisplayMode") == "error"),
        "failing": failing,
        "opportunities": opportunities[:8],
        "runtime_errors": [w for w in lhr.get("runWarnings", [])],
    }


def _item(item: dict) -> dict:
    node = item.get("node") or {}
    keep = {k: v for k, v in item.items() if isinstance(v, (str, int, float)) and k != "node"}
    if isinstance(item.get("source"), dict):  # e.g. the font-size audit's source location
        keep["source"] = item["source"].get("url") or item["source"].get("value", "")
    if node:
        keep.update(
            selector=node.get("selector"),
            snippet=(node.get("snippet") or "")[:160],
            explanation=(node.get("explanation") or "")[:300],
        )
    return keep


def _median_run(runs: list[dict]) -> dict:
    runs.sort(key=lambda r: r["scores"]["performance"] or 0)
    best = runs[len(runs) // 2]
    if len(runs) > 1:
        best["performance_runs"] = [r["scores"]["performance"] for r in runs]
        best["tbt_runs"] = sorted(r["tbt_ms"] for r in runs)
    return best


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", help="comma-separated page paths ('' is the home page); default: all eight")
    ap.add_argument("--runs", type=int, default=3, help="runs per page; the median performance run is kept")
    ap.add_argument(
        "--control",
        default="lesson-5/",
        help="pages also measured on the control site: comma-separated, 'all' or 'none'",
    )
    ap.add_argument("--keep", help="a folder to keep every run's full Lighthouse JSON in (for analysis)")
    ap.add_argument(
        "--fonts",
        choices=["web", "system", "both"],
        default="both",
        help="web: this machine as it is (no CJK font: the pages fetch their web font); system: with Debian's "
        "Noto Sans CJK installed for the run (bench/cjk_font.py), as a Chinese reader's machine has one",
    )
    args = ap.parse_args()
    pages = PAGES if args.pages is None else [p.strip() for p in args.pages.split(",")]
    control = {"all": pages, "none": []}.get(args.control, [p.strip() for p in args.control.split(",")])
    if not LIGHTHOUSE.exists():
        print("lighthouse is missing: run `npm ci`", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        site, control_site, work = Path(tmp) / "site", Path(tmp) / "control", Path(tmp) / "control-src"
        for d in (site, control_site, work):
            d.mkdir()
        server = _server(site)  # first, so that the build's SITE_URL is the served address (canonical links)
        control_server = _server(control_site, _ControlHandler)
        build_s = build(site, server.url)
        build_control(control_site, work, control_server.url)
        results: dict = {
            "lighthouse": "12.2.3",
            "form_factor": "mobile",
            "throttling": "simulate",
            "chrome": subprocess.run(
                [CHROME_PATH, "--version"], capture_output=True, text=True
            ).stdout.strip(),
            "build_seconds": round(build_s, 2),
            "runs": args.runs,
            "load_before": _load(),
        }
        keep = Path(args.keep) if args.keep else Path(tmp) / "lhr"
        keep.mkdir(parents=True, exist_ok=True)
        fonts = ["web", "system"] if args.fonts == "both" else [args.fonts]
        env = {"web": {}, "system": system_font_env() if "system" in fonts else {}}
        try:
            for font in fonts:
                results[font] = {"pages": {}, "control": {}}
                for path in pages:
                    name = f"{path.strip('/') or 'index'}-{font}"
                    ours, theirs = [], []
                    for i in range(
                        args.runs
                    ):  # ours and the control's runs alternate: the same load for both
                        lhr = run_lighthouse(server.url + path, keep / f"{name}-{i}.json", env[font])
                        ours.append(summarise(lhr))
                        if path in control:
                            lhr = run_lighthouse(
                                control_server.url + path, keep / f"control-{name}-{i}.json", env[font]
                            )
                            theirs.append(summarise(lhr))
                    results[font]["pages"][path or "index"] = _median_run(ours)
                    if theirs:
                        results[font]["control"][path or "index"] = _median_run(theirs)
                    scores = results[font]["pages"][path or "index"]["scores"]
                    print(
                        f"  {path or 'index'} ({font} font): {scores} (load {_load()})",
                        file=sys.stderr,
                        flush=True,
                    )
        finally:
            server.close()
            control_server.close()
        results["load_after"] = _load()
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "lighthouse.json").write_text(json.dumps(results, indent=1, ensure_ascii=False))

    print(
        f"Lighthouse 12.2.3, mobile, simulated throttling ({results['chrome']}); median of {args.runs} runs per page "
        f"(load average {results['load_before']} before, {results['load_after']} after)"
    )
    for font in fonts:
        _print_table(results[font], pages, FONT_TITLES[font])
    print(f"→ {out / 'lighthouse.json'}")
    return 0


FONT_TITLES = {
    "web": "As this machine is (no CJK system font: each page fetches its web-font slices)",
    "system": "With a CJK system font installed for the run (Debian's fonts-noto-cjk: no web-font slice is fetched)",
}


def _print_table(results: dict, pages: list[str], title: str) -> None:
    print(f"\n{title}")
    head = (
        f"{'page':<12} {'perf':>5} {'a11y':>5} {'b.p.':>5} {'seo':>5} {'LCP ms':>7} {'TBT ms':>7} {'CLS':>6} "
        f"{'DOM':>6}  perf runs"
    )
    print(head)
    print("-" * len(head))
    rows = [(n, r) for n, r in results["pages"].items()]
    rows += [(f"{n} ctrl", r) for n, r in results["control"].items()]
    for name, r in sorted(rows, key=lambda x: (pages.index(x[0].split()[0].replace("index", "")), x[0])):
        s = r["scores"]
        print(
            f"{name:<12} {s['performance']:>5} {s['accessibility']:>5} {s['best-practices']:>5} {s['seo']:>5} "
            f"{r['lcp_ms']:>7} {r['tbt_ms']:>7} {r['cls']:>6} {r['dom_size'] or 0:>6}  {r.get('performance_runs', '')}"
        )
    for name, c in results["control"].items():
        r = results["pages"][name]
        print(
            f"ours − control on {name}: TBT {r['tbt_ms'] - c['tbt_ms']:+} ms, LCP {r['lcp_ms'] - c['lcp_ms']:+} ms, "
            f"DOM {(r['dom_size'] or 0) - (c['dom_size'] or 0):+} elements "
            "(control: stock Material, figures as text, no widgets, KaTeX in the browser)"
        )
    med = {c: statistics.median(r["scores"][c] for r in results["pages"].values()) for c in CATEGORIES}
    print(
        "targets:",
        ", ".join(f"{c} ≥ {t}" for c, t in TARGETS.items()),
        "CLS ≤ 0.05",
        "| median:",
        ", ".join(f"{c} {med[c]:g}" for c in CATEGORIES),
    )
    for n, r in results["pages"].items():
        for c in CATEGORIES:
            if (r["scores"][c] or 0) >= TARGETS[c]:
                continue
            if c != "performance":
                extra = "; ".join(a["id"] for a in r["failing"].get(c, []))
            else:
                extra = "; ".join(f"{o['id']} {o['savings_ms']} ms" for o in r["opportunities"][:3])
            print(f"  missed: {n} {c} {r['scores'][c]}  ({extra})")
        if r["cls"] > 0.05:
            print(f"  missed: {n} CLS {r['cls']}")


if __name__ == "__main__":
    sys.exit(main())
