"""The article's parts that skip layout while off screen (hooks/sections.py): the page's HTML is
the same apart from the wrappers, headings stay outside them, each part's height before it is drawn is not
under its real height on a 412 px phone, and a figure's tooltip at a part's edge is neither cut off nor
covered by the next part."""

from __future__ import annotations

import re

import pytest
from conftest import evaluate_within, new_page
from test_site_quality import page_paths

from hooks.sections import estimate_px, wrap_parts


def test_headings_stay_outside_and_nothing_else_changes():
    html = (
        '<p>甲</p>\n<h2 id="a">一</h2>\n<p>乙<br>丙</p>\n<div class="admonition"><p>丁</p></div>\n<hr>\n'
        '<h3 id="b">二</h3><table><tr><td>戊</td></tr></table>\n'
    )
    out = wrap_parts(html)
    parts = re.findall(r'<div class="c9-part"[^>]*>(.*?)</div>(?=\s*<h\d|\s*$)', out, re.S)
    assert parts == [
        "<p>甲</p>",
        '<p>乙<br>丙</p>\n<div class="admonition"><p>丁</p></div>\n<hr>',
        "<table><tr><td>戊</td></tr></table>",
    ]
    assert re.sub(r'<div class="c9-part"[^>]*>|</div>(?=\s*<h\d|\s*$)', "", out) == html
    assert '<h2 id="a">一</h2>' in out and not re.search(r'c9-part"[^>]*>\s*<h', out)


def test_a_fragment_it_cannot_read_is_left_alone():
    assert wrap_parts("<p>甲</p></div><p>乙</p>") == "<p>甲</p></div><p>乙</p>"
    assert wrap_parts("<div><p>甲</p>") == "<div><p>甲</p>"


def test_the_estimate_grows_with_text_rows_and_widgets():
    line = "字" * 21
    one, ten = estimate_px(f"<p>{line}</p>"), estimate_px(f"<p>{line * 10}</p>")
    assert 100 <= one < ten and ten >= 10 * 26
    table = "<table>" + "<tr><td>1</td></tr>" * 30 + "</table>"
    assert estimate_px(table) >= 30 * 20
    assert estimate_px('<figure class="c9-widget">图</figure>') >= 300
    # the tooltip's text is not on the page until it is shown
    assert estimate_px(f'<p>甲<span class="fig-how">{line * 20}</span></p>') == estimate_px("<p>甲</p>")


PARTS = """() => [...document.querySelectorAll('.c9-part')].map((p) => {
  const placeholder = parseFloat(p.style.containIntrinsicSize.split(' ').pop());
  p.style.contentVisibility = 'visible';
  const real = p.getBoundingClientRect().height;
  p.style.contentVisibility = '';
  return {placeholder, real: Math.round(real)};
})"""


@pytest.mark.browser
def test_every_page_has_parts_and_no_part_is_taller_than_its_placeholder(browser, built_site, site_server):
    """On a 412 px phone (Lighthouse's): a part measured while skipped is laid out from its placeholder's top,
    so one taller than its placeholder would overlap the next part and the footer (axe then reported text
    under the footer). A few parts at most may run a little over."""
    ctx, page = new_page(browser, python=False, viewport={"width": 412, "height": 823}, is_mobile=True)
    over = {}
    try:
        for path in page_paths(built_site):
            page.goto(site_server.url + path)
            parts = page.evaluate(PARTS)
            assert len(parts) >= 5, (path, parts)
            bad = [p for p in parts if p["real"] > p["placeholder"] * 1.15]
            if bad:
                over[path] = bad
        assert sum(len(v) for v in over.values()) <= 3, over
        assert page.errors == []
    finally:
        ctx.close()


# Focus each figure near the foot of a part until one's tooltip runs past the part's foot; there, the
# tooltip's last line must be what is on top (not cut by the part's paint containment, not under the next part).
FOOT_TOOLTIP = """async () => {
  for (const fig of document.querySelectorAll('.c9-part .fig')) {
    const part = fig.closest('.c9-part');
    if (!part.nextElementSibling) continue;
    fig.scrollIntoView({block: 'center'});
    await new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
    if (fig.getBoundingClientRect().bottom < part.getBoundingClientRect().bottom - 80) continue;
    fig.focus();
    const how = fig.querySelector('.fig-how').getBoundingClientRect();
    const foot = part.getBoundingClientRect().bottom;
    if (how.bottom <= foot + 8) { fig.blur(); continue; }
    const top = document.elementFromPoint(how.left + how.width / 2, how.bottom - 4);
    return {fig: fig.dataset.fig, past: Math.round(how.bottom - foot), onTop: Boolean(top?.closest('.fig-how'))};
  }
  return null;
}"""


@pytest.mark.browser
@pytest.mark.parametrize("path", ["lesson-5/", "lesson-1/"])
def test_a_tooltip_at_the_foot_of_a_part_shows_whole_above_the_next_part(browser, site_server, path):
    ctx, page = new_page(browser, python=False, viewport={"width": 390, "height": 800}, is_mobile=True)
    try:
        page.goto(site_server.url + path)
        found = evaluate_within(page, FOOT_TOOLTIP)
        assert found is not None, "no figure near a part's foot whose tooltip runs past it"
        assert found["onTop"], found
    finally:
        ctx.close()
