"""Every page of the served site: links, accessibility (axe-core), JavaScript off, Python blocked."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import PYTHON_TIMEOUT, ROOT, reading_context
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def page_paths(site: Path) -> list[str]:
    """Every page of the site, as a path under the sub-path ('' for the home page)."""
    out = []
    for p in sorted(site.rglob("index.html")):
        rel = p.parent.relative_to(site).as_posix()
        if rel.startswith(("assets", "vendor", "search")):
            continue
        out.append("" if rel == "." else rel + "/")
    return out


def test_no_broken_link_image_or_anchor(built_site, site_server):
    """linkinator crawls the served site from the home page. Other origins are not requested, and neither
    is the canonical address (the build's SITE_URL, which has no port here)."""
    origin = site_server.url.split("/c9/")[0]
    proc = subprocess.run(
        [
            str(ROOT / "node_modules" / ".bin" / "linkinator"),
            site_server.url,
            "--recurse",
            "--format",
            "json",
            "--skip",
            "^(?!" + re.escape(origin) + ")",
            "--timeout",
            "20000",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(proc.stdout)
    broken = [(l["url"], l["status"], l.get("parent")) for l in report["links"] if l["state"] == "BROKEN"]
    assert broken == [], broken
    assert sum(1 for l in report["links"] if l["state"] == "OK") >= len(page_paths(built_site)) + 5
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_anchors_point_at_ids(built_site):
    ids = {}
    for p in built_site.rglob("*.html"):
        ids[p] = set(re.findall(r'\sid="([^"]+)"', p.read_text(encoding="utf-8")))
    for p in built_site.rglob("*.html"):
        if "vendor" in p.parts:
            continue
        html = p.read_text(encoding="utf-8")
        for href in re.findall(r'href="([^"]*#[^"]+)"', html):
            path, frag = href.split("#", 1)
            if path.startswith(("http:", "https:")):
                continue
            target = (p.parent / path).resolve() if path else p
            if target.is_dir():
                target = target / "index.html"
            assert unquote(frag) in ids.get(target, set()), (p.relative_to(built_site).as_posix(), href)


def test_every_page_is_whole_with_javascript_off(browser, built_site, site_server):
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    for path in page_paths(built_site):
        page.goto(site_server.url + path)
        text = page.text_content("article")
        assert len(text) > 300, path
        assert "{{" not in text and "\\(" not in text, path
        for fig in page.locator("[data-fig]").all():
            assert fig.text_content().strip(), (path, fig.get_attribute("data-fig"))
        for widget in page.locator(".c9-widget").all():
            summary = widget.locator(
                ".c9-summary, .c9-formula-summary, .c9-exercise-statement, .c9-scratch-intro, table, svg"
            ).first
            assert summary.count() and summary.text_content().strip(), (
                path,
                widget.get_attribute("data-widget"),
            )
    ctx.close()


def test_every_python_widget_says_so_when_python_is_blocked(browser, built_site, site_server):
    # The build's answer cache would answer a first step without Python (tests/site/test_browser_answer_cache.py):
    # block it too, so every widget has to fall back to Python and say that Python could not load.
    site_server.block("vendor/pyodide/", "assets/answers/")
    try:
        ctx = browser.new_context()
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        checked = 0
        for path in page_paths(built_site):
            page.goto(site_server.url + path)
            widgets = page.locator('.c9-widget[data-widget]:not([data-python="no"])')
            for i in range(widgets.count()):
                w = widgets.nth(i)
                control = w.locator("form select, form input").first
                if not control.count():
                    continue
                control.dispatch_event("input")  # sliders, selects, radios
                control.dispatch_event("change")  # typed entries send on commit
                expect(w.locator(".c9-status")).to_contain_text("Python 没能加载", timeout=PYTHON_TIMEOUT)
                checked += 1
            assert "{{" not in page.text_content("article")
        assert checked >= 2
        assert errors == [], errors
        ctx.close()
    finally:
        site_server.block()


BIT_CONTRAST = """() => {
  // rgb(…) / rgba(…), or color(srgb r g b / a) with channels in 0–1 (what color-mix() computes to)
  const parse = (c) => { const srgb = c.startsWith('color(srgb');
                         const p = c.replace(/^[^(]*\\(|\\)$/g, '').replace('srgb', '').split(/[ ,\\/]+/).filter(Boolean).map(Number);
                         const k = srgb ? 255 : 1;
                         return [p[0] * k, p[1] * k, p[2] * k, p.length > 3 ? p[3] : 1]; };
  const over = (t, b) => [0, 1, 2].map((i) => t[i] * t[3] + b[i] * (1 - t[3]));
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                       return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const page = parse(getComputedStyle(document.body).backgroundColor);
  return [...document.querySelectorAll('.c9-bit-flipper button.c9-bit')].map((b) => {
    const cs = getComputedStyle(b);
    const bg = over(parse(cs.backgroundColor), page), fg = over(parse(cs.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return {bit: b.getAttribute('title'), on: b.getAttribute('aria-pressed'), opacity: Number(cs.opacity),
            ratio: (hi + 0.05) / (lo + 0.05)};
  });
}"""


BIT_PAGES = ("lesson-2/", "lesson-3/", "lesson-4/", "fp4/")


def bits_keep_their_contrast(page, path: str, scheme: str) -> None:
    """axe skips one-character text: every bit flipper's digits, read here (test_layout runs it on both
    palettes). White on the mantissa teal read 3.3:1, and a bit that is off was faded whole (opacity 0.45),
    its 「0」 near 1.5:1."""
    bits = page.evaluate(BIT_CONTRAST)
    assert {b["on"] for b in bits} == {"true", "false"}, path
    bad = [b for b in bits if b["opacity"] < 1 or b["ratio"] < 4.5]
    assert not bad, (path, scheme, bad[:3])


EDITOR_CONTRAST = (
    BIT_CONTRAST.split("  const page =")[0]
    + """  const low = [];
  for (const ed of document.querySelectorAll('.c9-exercise .cm-editor')) {
    const bg = parse(getComputedStyle(ed).backgroundColor);
    for (const el of ed.querySelectorAll('.cm-line, .cm-line span')) {
      if (!el.textContent.trim()) continue;
      const fg = over(parse(getComputedStyle(el).color), bg);
      const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      const ratio = (hi + 0.05) / (lo + 0.05);
      if (ratio < 4.5) low.push(`${el.textContent.trim().slice(0, 12)} ${getComputedStyle(el).color} ${ratio.toFixed(3)}`);
    }
  }
  return {editors: document.querySelectorAll('.c9-exercise .cm-editor').length, low};
}"""
)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_exercise_editors_code_keeps_its_contrast(browser, site_server, scheme):
    """Punctuation and comments took Material's faded text colour, #717171 on #f5f5f5 in the light
    palette: 4.497:1, under 4.5:1 (axe rounds it up)."""
    ctx = reading_context(browser, color_scheme=scheme)
    page = ctx.new_page()
    page.goto(site_server.url + "lesson-4/")
    w = page.locator(".c9-exercise").first
    w.scroll_into_view_if_needed(timeout=30_000)
    expect(w).to_have_attribute("data-editor", "codemirror", timeout=30_000)  # fetched as it nears the screen
    expect(w.locator(".cm-line").first).to_be_visible(timeout=30_000)
    got = page.evaluate(EDITOR_CONTRAST)
    assert got["editors"] >= 1 and got["low"] == [], got
    ctx.close()
