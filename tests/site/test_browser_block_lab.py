"""In headless Chromium: choosing DeepSeek-V3 drives the block lab; the heat maps
draw each scheme's block boundaries; the predict-first task's answer shows without JavaScript."""

from __future__ import annotations

import re

import pytest
from conftest import PYTHON_TIMEOUT, evaluate_within, new_page, python_error, python_view
from playwright.sync_api import expect

from c9.core import quant_configs
from c9.views import block_lab

pytestmark = pytest.mark.browser


def _lab(page, url):
    page.goto(url)
    w = page.locator('[data-widget="block-lab"]')
    w.scroll_into_view_if_needed()
    expect(w).to_have_attribute("data-chart", "drawn", timeout=30_000)
    return w


def test_choosing_deepseek_v3_drives_the_block_lab(page, site_server):
    w = _lab(page, site_server.url + "lesson-4/")
    named = quant_configs.recipe("deepseek-v3")["schemes"]
    w.locator('select[name="preset"]').select_option("deepseek-v3")
    expect(w).to_have_attribute("data-runs", "1", timeout=PYTHON_TIMEOUT)
    expect(w.locator(".c9-status")).to_contain_text(f"按 {len(named)} 种缩放")
    for scheme in block_lab.SCHEMES:
        panel = w.locator(f'.c9-bl-panel[data-scheme="{scheme}"]')
        row = w.locator(f'.c9-bl-table tr[data-scheme="{scheme}"]')
        if scheme in named:
            expect(panel).to_be_visible()
            expect(row).to_be_visible()
            want = python_view("block-lab", preset="deepseek-v3", scheme=scheme)
            expect(panel.locator(".c9-bl-summary")).to_have_text(want["summary"])
            assert panel.locator(".c9-chart").evaluate("el => el.data[0].z") == want["figure"]["data"][0]["z"]
        else:
            expect(panel).to_be_hidden()
            expect(row).to_be_hidden()
    # the config's fields, with the source, beside the lab
    recipe = w.locator(".c9-bl-recipe")
    for key in ("fmt", "weight_block_size", "activation_scheme"):
        expect(recipe).to_contain_text(key)
    expect(recipe.locator("a")).to_have_attribute("href", quant_configs.configs()["deepseek-v3"]["url"])
    assert "bl.preset=deepseek-v3" in page.url
    # keyboard: back to all six with the arrow keys on the focused select
    w.locator('select[name="preset"]').focus()
    page.keyboard.press("ArrowUp")
    expect(w).to_have_attribute("data-runs", "2", timeout=PYTHON_TIMEOUT)
    expect(w.locator(".c9-bl-panel:visible")).to_have_count(len(block_lab.SCHEMES))
    assert page.errors == []


def test_heat_maps_draw_block_boundaries_and_the_outliers(page, site_server):
    w = _lab(page, site_server.url + "lesson-4/")
    for scheme in block_lab.SCHEMES:
        v = python_view("block-lab", scheme=scheme)
        chart = w.locator(f'.c9-bl-panel[data-scheme="{scheme}"] .c9-chart')
        shapes = chart.evaluate("el => el.layout.shapes || []")
        # cells are centred on whole numbers: the edge before channel k is at k − 0.5
        xs = sorted(
            float(x) + 0.5
            for sh in shapes
            if sh.get("path")
            for x in re.findall(r"M([\d.]+),0V1", sh["path"])
        )
        assert xs == v["col_edges"][1:-1], scheme  # every inner block edge
        assert chart.locator(".shapelayer path").count() == len(shapes)  # and Plotly drew them
        assert chart.evaluate("el => el.data[0].z.length") == block_lab.ROWS  # one cell per number
    absmap = w.locator(".c9-bl-abs .c9-chart")
    assert absmap.evaluate("el => el.data[0].z.length") == block_lab.ROWS
    expect(w.locator(".c9-bl-abs-summary")).to_have_text(python_view("block-lab")["abs_summary"])
    assert page.errors == []


def test_predict_task_answer_without_javascript(browser, site_server):
    """No JS: the build-time panels and the answer carry the figures the task asks about."""
    ctx, pg = new_page(browser, viewport={"width": 390, "height": 800}, java_script_enabled=False)
    try:
        pg.goto(site_server.url + "lesson-4/")
        task = pg.locator(".admonition.task", has_text="先猜再看图")
        shown = re.sub(r"<[^>]+>", "", re.sub(r'<span class="fig-how".*?</span>', "", task.inner_html()))
        answer = {a["scheme"]: a for a in block_lab.page_context()["predict"]}
        a = answer["deepseek_1x128"]
        assert f"1×128 在右半边的 {a['blocks']} 个块坏了 {a['ruined']} 个" in shown
        b = answer["deepseek_128x128"]
        assert f"128×128 在右半边有 {b['blocks']} 个块，坏了 {b['ruined']} 个" in shown
        want = python_view("block-lab", scheme="deepseek_1x128")
        expect(pg.locator('.c9-bl-panel[data-scheme="deepseek_1x128"] .c9-bl-summary')).to_have_text(
            want["summary"]
        )
    finally:
        ctx.close()


def test_a_typed_tensor_refused_on_a_phone_is_answered_on_screen(browser, site_server):
    # At 390 px the lab is several screens tall; its status used to sit under the table, ~4,000 px below
    # the text box, so a tensor that does not parse seemed to do nothing.
    ctx, page = new_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(site_server.url + "lesson-4/")
    w = page.locator('[data-widget="block-lab"]')
    expect(w).to_have_attribute("data-mounted", "yes", timeout=30_000)  # before that a click does nothing
    w.locator('input[name="source"][value="typed"]').check()
    text = w.locator("textarea")
    text.evaluate("e => e.scrollIntoView({block: 'center'})")
    text.fill("1, 2\n3")
    w.locator(".c9-bl-typed button").click()
    status = w.locator(".c9-status")
    expect(status).to_have_text(
        "输入有误：各行长度不一：第 1 行有 2 个数，第 2 行有 1 个（逗号分隔数：「1,5」是两个数）。",
        timeout=PYTHON_TIMEOUT,
    )
    expect(status).to_be_in_viewport()
    assert page.errors == []
    ctx.close()


def test_heat_maps_whose_file_failed_are_drawn_by_the_next_answer(browser, site_server):
    """The default heat maps come in a file (data-figures) fetched as the lab nears the screen. When it
    cannot be had, each chart says so; the reader's next answer from Python draws them all (a chart left
    with its message stayed so for good)."""
    # the service worker's own fetches would slip past page.route
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 800}, service_workers="block")
    try:
        failed = []
        page.goto(site_server.url + "lesson-4/")
        w = page.locator('[data-widget="block-lab"]')
        expect(w).to_have_attribute("data-mounted", "yes", timeout=30_000)
        figures = w.get_attribute("data-figures").rsplit("/", 1)[1]
        page.route(f"**/{figures}", lambda route: (failed.append(route.request.url), route.abort()))
        charts = w.locator(".c9-chart")
        charts.first.scroll_into_view_if_needed()
        for i in range(charts.count()):
            expect(charts.nth(i)).to_contain_text("图没能画出来", timeout=30_000)
        assert failed
        page.unroute(f"**/{figures}")
        seed = w.locator('input[name="seed"]')
        seed.fill("21")
        seed.press("Enter")
        expect(w).to_have_attribute("data-state", "live", timeout=PYTHON_TIMEOUT)
        page.wait_for_function(
            "(w) => [...w.querySelectorAll('.c9-chart')].every((c) => c.querySelector('.main-svg') && !c.textContent.includes('没能画出来'))",
            arg=w.element_handle(),
            timeout=30_000,
        )
        assert [e for e in page.errors if "Failed to load resource" not in e] == []
    finally:
        ctx.close()


# The drawn heatmap's own pixels: Plotly paints a heatmap as one <image> (a PNG data URL); its colours are
# counted on a canvas, most common first.
PIXELS = """async (chart) => {
  const image = chart.querySelector('.hm image, image');
  const im = new Image();
  im.src = image.getAttribute('href') || image.getAttribute('xlink:href');
  await im.decode();
  const c = document.createElement('canvas');
  c.width = im.naturalWidth; c.height = im.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(im, 0, 0);
  const px = g.getImageData(0, 0, c.width, c.height).data, seen = new Map();
  for (let i = 0; i < px.length; i += 4) {
    if (px[i + 3] < 250) continue;
    const k = `${px[i]},${px[i + 1]},${px[i + 2]}`;
    seen.set(k, (seen.get(k) || 0) + 1);
  }
  const counts = [...seen.values()].sort((a, b) => b - a);
  return {colours: counts.length, top: counts[0] / counts.reduce((a, b) => a + b, 0)};
}"""


@pytest.mark.parametrize("width", [390, 1280])
def test_no_heat_map_is_one_flat_colour(browser, site_server, width):
    """Reviewer: the per-tensor, 128×128, MXFP4 and NVFP4 panels were one flat colour on the default tensor
    and taught nothing. Every panel, as drawn, shows the four classes' colours, none on 95 % of its pixels."""
    ctx, page = new_page(browser, viewport={"width": width, "height": 900})
    try:
        w = _lab(page, site_server.url + "lesson-4/")
        for scheme in block_lab.SCHEMES:
            chart = w.locator(f'.c9-bl-panel[data-scheme="{scheme}"] .c9-chart')
            chart.scroll_into_view_if_needed()
            got = evaluate_within(chart, PIXELS)
            assert got["colours"] >= 4 and got["top"] < 0.95, (scheme, got)
        assert page.errors == [], page.errors
    finally:
        ctx.close()


def test_cells_nothing_measured_show_dashes(page, site_server):
    """A typed tensor whose every MX block's scale is NaN (and that the other schemes do not quantise): the table
    shows each scheme's own bits (from the shape) and a dash in every measured cell, no 0% or 0 / 0; a mixed
    tensor's clipped column counts the blocks outside the NaN ones, as Python does."""
    w = _lab(page, site_server.url + "lesson-4/")
    w.locator('input[name="source"][value="typed"]').check()  # a run of the default typed tensor
    expect(w).to_have_attribute("data-runs", "1", timeout=PYTHON_TIMEOUT)
    for n, text in enumerate(["nan nan nan", "1, 2\nnan, 4"], start=1):
        w.locator("textarea").fill(text)
        w.locator(".c9-bl-typed button").click()
        expect(w).to_have_attribute("data-runs", str(n + 1), timeout=PYTHON_TIMEOUT)
        skipped = [
            s
            for s in block_lab.SCHEMES
            if python_view("block-lab", source="typed", text=text, scheme=s)["quantized"] is False
        ]
        expect(w.locator(".c9-status")).to_contain_text(
            f"按 {len(block_lab.SCHEMES) - len(skipped)} 种缩放各量化了一次；另 {len(skipped)} 种遇到 NaN",
            timeout=PYTHON_TIMEOUT,
        )
        for scheme in block_lab.SCHEMES:
            params = {"source": "typed", "text": text, "scheme": scheme}
            if scheme in block_lab.MX_SCHEMES:
                params["rule"] = "floor"
            want = python_view("block-lab", **params)
            cells = w.locator(f'.c9-bl-table tr[data-scheme="{scheme}"] td')
            got = [cells.nth(k).text_content() for k in range(7)]
            if n == 1:  # nothing measured anywhere
                assert got[2:] == ["—"] * 5, (scheme, got)
            elif scheme in block_lab.MX_SCHEMES:  # two 1×32 blocks, the second's scale NaN: one block counted
                assert (want["counted_blocks"], want["n_scales"]) == (1, 2)
                assert got[6] == "0 / 1", (scheme, got)
            assert float(got[1]) == pytest.approx(want["bits_actual"], rel=1e-3), (scheme, got)
    assert page.errors == []


def test_a_seed_left_wrong_blocks_no_typed_tensor_and_nan_is_counted(page, site_server):
    """Reader check: 3.5 in the seed box, Enter: the browser's English bubble, nothing sent; after switching
    to 「自己输入」 the hidden seed still blocked the typed tensor. A tensor holding NaN was said to be
    「按 6 种缩放各量化了一次」 while four panels said they do not quantise it; the refused tensor box was
    never marked."""
    w = _lab(page, site_server.url + "lesson-4/")
    status, seed, box = w.locator(".c9-status"), w.locator('input[name="seed"]'), w.locator("textarea")
    w.locator('input[name="source"][value="generated"]').check()
    seed.fill("3.5")
    seed.press("Enter")
    expect(status).to_have_text(
        "输入有误：" + python_error("block-lab", source="generated", seed="3.5") + "。",
        timeout=PYTHON_TIMEOUT,
    )
    expect(seed).to_have_attribute("aria-invalid", "true")
    w.locator('input[name="source"][value="typed"]').check()
    expect(status).to_have_attribute("data-kind", "ok", timeout=PYTHON_TIMEOUT)
    expect(seed).not_to_have_attribute("aria-invalid", "true")
    text = "1, 2\nnan, 4"
    box.fill(text)
    w.locator(".c9-bl-typed button").click()
    skipped = [
        s
        for s in block_lab.SCHEMES
        if python_view("block-lab", source="typed", text=text, scheme=s)["quantized"] is False
    ]
    assert 0 < len(skipped) < len(block_lab.SCHEMES)
    done = len(block_lab.SCHEMES) - len(skipped)
    expect(status).to_contain_text(
        f"这个张量按 {done} 种缩放各量化了一次；另 {len(skipped)} 种遇到 NaN 或无穷大，这次不量化",
        timeout=PYTHON_TIMEOUT,
    )
    box.fill("abc")
    w.locator(".c9-bl-typed button").click()
    expect(status).to_have_attribute("data-kind", "error", timeout=PYTHON_TIMEOUT)
    expect(box).to_have_attribute("aria-invalid", "true")
    box.fill("1, 2")
    w.locator(".c9-bl-typed button").click()
    expect(status).to_have_attribute("data-kind", "ok", timeout=PYTHON_TIMEOUT)
    expect(box).not_to_have_attribute("aria-invalid", "true")
    assert page.errors == []


def test_coming_back_to_the_default_is_answered_from_the_page(page, site_server):
    """Reader check: a slider moved and moved back had Python recompute the default tensor (2.9 s), which the
    page already holds (data-defaults and its figures file); it is now answered from them."""
    w = _lab(page, site_server.url + "lesson-4/")
    w.locator('input[name="source"][value="generated"]').check()  # already so: no request
    channels = w.locator('input[name="channels"]')
    default = channels.input_value()
    for value, runs in ((str(int(default) - 1), "1"), (default, "2")):
        channels.evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }", value
        )
        expect(w).to_have_attribute("data-runs", runs, timeout=PYTHON_TIMEOUT)
    expect(w).to_have_attribute("data-answered-by", "build")
    expect(w.locator(".c9-status")).to_contain_text("构建网站时由 Python 算好")
    for scheme in block_lab.SCHEMES:
        want = python_view("block-lab", scheme=scheme)
        panel = w.locator(f'.c9-bl-panel[data-scheme="{scheme}"]')
        expect(panel.locator(".c9-bl-summary")).to_have_text(want["summary"])
        assert panel.locator(".c9-chart").evaluate("el => el.data[0].z") == want["figure"]["data"][0]["z"]
    expect(w.locator(".c9-bl-abs-summary")).to_have_text(python_view("block-lab")["abs_summary"])
    assert page.errors == []


def test_a_typed_tensor_edited_before_does_not_hide_the_built_default(page, site_server):
    """Reader check: after quantising a typed tensor, back to the generated one, a slider moved and moved back
    was recomputed by Python: the edited text box was sent with the generated tensor, which never reads it."""
    w = _lab(page, site_server.url + "lesson-4/")
    w.locator('input[name="source"][value="typed"]').check()
    w.locator("textarea").fill("1, 2\n3, 4")
    w.locator(".c9-bl-typed button").click()
    expect(w).to_have_attribute("data-runs", "2", timeout=PYTHON_TIMEOUT)
    w.locator('input[name="source"][value="generated"]').check()
    expect(w).to_have_attribute("data-runs", "3", timeout=PYTHON_TIMEOUT)
    expect(w).to_have_attribute("data-answered-by", "build")
    assert "bl.text" not in page.url  # the generated tensor's state names no text
    w.locator('input[name="source"][value="typed"]').check()  # the reader's text is still in its box
    expect(w).to_have_attribute("data-runs", "4", timeout=PYTHON_TIMEOUT)
    expect(w.locator("textarea")).to_have_value("1, 2\n3, 4")
    assert page.errors == []
