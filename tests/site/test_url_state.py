"""Each widget's state in the page address (url-state.js: urlState), in headless Chromium, one test per page.

Every test opens its page with bad values in the address first (each widget shows Python's Chinese
message and keeps its build-time default), then sets a state through the controls (which rewrites
the address in place, without new history entries), then opens that address in a fresh page: the
controls and the numbers, recomputed by Python in the page, must match the same views in CPython."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlparse

import pytest
from conftest import PYTHON_TIMEOUT, WIDGETS_MOUNTED, python_view
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LINK_ERROR = "链接里的参数有误"


def python_error(widget: str, **params) -> str:
    """The Chinese message Python gives for these parameters."""
    from c9.views import api

    out = json.loads(api.handle(json.dumps({"widget": widget, "params": params})))
    assert not out["ok"], out
    return out["error"]


def query(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


@pytest.fixture(scope="module")
def ctx(browser):
    c = browser.new_context(viewport={"width": 1280, "height": 900})
    yield c
    c.close()


@pytest.fixture
def open_page(ctx):
    """Opens a page and collects its script errors; at the end of the test there must be none."""
    pages = []

    def go(url):
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
        page.goto(url)
        pages.append(page)
        return page

    yield go
    for page in pages:
        assert page.errors == [], page.errors
        page.close()


def widget(page, name, nth=0):
    return page.locator(f'[data-widget="{name}"]').nth(nth)


def expect_refused(w, message, default_summary):
    """A bad value from the address: the link is named, Python's message shown, the default kept."""
    status = w.locator(".c9-status")
    expect(status).to_contain_text(LINK_ERROR, timeout=PYTHON_TIMEOUT)
    expect(status).to_contain_text(message)
    expect(w.locator(".c9-summary")).to_have_text(default_summary)


def test_lesson_1_ledger(open_page, site_server):
    # Out of range even with a named model chosen: the slider would otherwise pin itself at its end.
    page = open_page(site_server.url + "lesson-1/?ledger.log10=99")
    w = widget(page, "ledger")
    expect_refused(w, python_error("ledger", log10_params="99"), python_view("ledger")["summary"])
    expect(w.locator('input[name="model"][value="qwen3.8-27b"]')).to_be_checked()
    expect(w.locator('input[name="log10_params"]')).to_have_value("10")
    length = page.evaluate("history.length")

    w.locator('select[name="convention"]').select_option("hf")
    slider = w.locator('input[name="log10_params"]')
    slider.focus()
    slider.press("ArrowRight")
    slider.press("ArrowRight")
    want = python_view("ledger", model="custom", log10_params=10.1, convention="hf")
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    assert query(page) == {"ledger.model": "custom", "ledger.log10": "10.1", "ledger.conv": "hf"}
    assert page.evaluate("history.length") == length  # replaceState only

    shared = open_page(page.url)
    w = widget(shared, "ledger")
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(w.locator('input[name="model"][value="custom"]')).to_be_checked()
    expect(w.locator('input[name="log10_params"]')).to_have_value("10.1")
    expect(w.locator('select[name="convention"]')).to_have_value("hf")
    expect(w.locator('output[name="n_out"]')).to_have_text(f"{want['params']['param_total']:,}")
    expect(w.locator('.c9-ledger-conv tr[aria-current="true"]')).to_have_attribute("data-key", "hf")
    hf = next(c for c in want["conventions"] if c["key"] == "hf")
    expect(w.locator('.c9-ledger-conv tr[data-key="hf"] td').nth(1)).to_have_text(hf["total_text"])
    assert query(shared) == query(page)


def test_lesson_2_bit_flipper_repeated_update_loss_scale(open_page, site_server):
    fmts = "float16,float32"
    page = open_page(site_server.url + "lesson-2/?bf.value=abc&ru.steps=999999&ls.k=99")
    bf, ru, ls = widget(page, "bit-flipper"), widget(page, "repeated-update"), widget(page, "loss-scale")
    expect_refused(
        bf,
        python_error("bit-flipper", formats=fmts, value="abc"),
        python_view("bit-flipper", formats=fmts, value="1")["summary"],
    )
    expect_refused(
        ru, python_error("repeated-update", steps="999999"), python_view("repeated-update")["summary"]
    )
    expect_refused(ls, python_error("loss-scale", k="99"), python_view("loss-scale")["summary"])
    expect(ls.locator('input[name="k"]')).to_have_value("0")
    length = page.evaluate("history.length")

    bf.get_by_role("button", name="FP16 尾数位 10").click()  # 1 → the next FP16 number, 0x3C01
    want_bf = python_view("bit-flipper", formats=fmts, source="float16", code="0x3C01")
    expect(bf.locator(".c9-summary")).to_have_text(want_bf["summary"], timeout=PYTHON_TIMEOUT)
    ru.locator('input[name="fmt"][value="bfloat16"]').check()
    ru.locator('input[name="steps"]').fill("200")
    ru.locator('input[name="steps"]').press("Enter")
    want_ru = python_view("repeated-update", fmt="bfloat16", steps="200")
    expect(ru.locator(".c9-summary")).to_have_text(want_ru["summary"], timeout=PYTHON_TIMEOUT)
    ls.locator('input[name="k"]').focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    want_ls = python_view("loss-scale", k=5)
    expect(ls.locator(".c9-summary")).to_have_text(want_ls["summary"], timeout=PYTHON_TIMEOUT)
    # Every bad key was replaced by the state now shown; nothing at its default is written.
    assert query(page) == {
        "bf.source": "float16",
        "bf.code": "0x3C01",
        "ru.fmt": "bfloat16",
        "ru.steps": "200",
        "ls.k": "5",
    }
    assert page.evaluate("history.length") == length

    shared = open_page(page.url)
    bf, ru, ls = (
        widget(shared, "bit-flipper"),
        widget(shared, "repeated-update"),
        widget(shared, "loss-scale"),
    )
    expect(bf.locator(".c9-summary")).to_have_text(want_bf["summary"], timeout=PYTHON_TIMEOUT)
    expect(bf.get_by_role("button", name="FP16 尾数位 10")).to_have_attribute("aria-pressed", "true")
    fp32 = want_bf["rows"][1]
    expect(bf.locator('.c9-bf-row[data-format="float32"] input[name="hex"]')).to_have_value(fp32["hex"])
    expect(bf.locator('.c9-bf-row[data-format="float32"] dd[data-k="exact"]')).to_have_text(fp32["exact"])
    expect(ru.locator(".c9-summary")).to_have_text(want_ru["summary"], timeout=PYTHON_TIMEOUT)
    expect(ru.locator('input[name="fmt"][value="bfloat16"]')).to_be_checked()
    expect(ru.locator('input[name="steps"]')).to_have_value("200")
    expect(ru.locator(".c9-ru-final td").first).to_have_text(want_ru["table"][0]["text"])
    expect(ls.locator(".c9-summary")).to_have_text(want_ls["summary"], timeout=PYTHON_TIMEOUT)
    expect(ls.locator('input[name="k"]')).to_have_value("5")
    expect(ls.locator('output[name="k_out"]')).to_have_text(want_ls["k_text"])
    expect(ls.locator('td[data-k="zero"]')).to_have_text(want_ls["shares"]["zero"])


def test_lesson_3_second_widget_of_a_kind_has_its_own_keys(open_page, site_server):
    fmts = "float32,float16,bfloat16"
    first_default = python_view("repeated-update", fmt="bfloat16", delta="1e-3")
    second = dict(fmt="bfloat16", w0="0", delta="1", steps=1000)  # lesson-3.md's options
    page = open_page(site_server.url + "lesson-3/?ru2.delta=0")
    ru1, ru2 = widget(page, "repeated-update", 0), widget(page, "repeated-update", 1)
    expect_refused(
        ru2,
        python_error("repeated-update", **{**second, "delta": "0"}),
        python_view("repeated-update", **second)["summary"],
    )
    expect(ru2.locator('input[name="delta"]')).to_have_value("1")
    expect(ru1.locator(".c9-status")).not_to_contain_text(LINK_ERROR)
    expect(ru1.locator(".c9-summary")).to_have_text(first_default["summary"])

    ru2.locator('input[name="steps"]').fill("300")
    ru2.locator('input[name="steps"]').press("Enter")
    want_ru2 = python_view("repeated-update", **{**second, "steps": "300"})
    expect(ru2.locator(".c9-summary")).to_have_text(want_ru2["summary"], timeout=PYTHON_TIMEOUT)
    bf = widget(page, "bit-flipper")
    bf.locator('input[name="value"]').fill("0.1")
    bf.locator('input[name="value"]').press("Enter")
    want_bf = python_view("bit-flipper", formats=fmts, value="0.1")
    expect(bf.locator(".c9-summary")).to_have_text(want_bf["summary"], timeout=PYTHON_TIMEOUT)
    assert query(page) == {"ru2.steps": "300", "bf.value": "0.1"}  # the bad ru2.delta is gone

    shared = open_page(page.url)
    ru1, ru2, bf = (
        widget(shared, "repeated-update", 0),
        widget(shared, "repeated-update", 1),
        widget(shared, "bit-flipper"),
    )
    expect(ru2.locator(".c9-summary")).to_have_text(want_ru2["summary"], timeout=PYTHON_TIMEOUT)
    expect(ru2.locator('input[name="steps"]')).to_have_value("300")
    expect(bf.locator(".c9-summary")).to_have_text(want_bf["summary"], timeout=PYTHON_TIMEOUT)
    expect(bf.locator('input[name="value"]')).to_have_value("0.1")
    expect(bf.locator('.c9-bf-row[data-format="bfloat16"] input[name="hex"]')).to_have_value(
        want_bf["rows"][2]["hex"]
    )
    expect(ru1.locator(".c9-summary")).to_have_text(first_default["summary"])
    expect(ru1.locator('input[name="steps"]')).to_have_value("1000")


def test_lesson_4_block_lab(open_page, site_server):
    from c9.views.block_lab import SCHEMES as schemes

    page = open_page(site_server.url + "lesson-4/?bl.magnitude=7")
    w = widget(page, "block-lab")
    status = w.locator(".c9-status")
    expect(status).to_contain_text(LINK_ERROR, timeout=PYTHON_TIMEOUT)
    expect(status).to_contain_text(python_error("block-lab", magnitude="7", scheme=schemes[0]))
    default = python_view("block-lab", scheme=schemes[0])
    expect(w.locator(f'.c9-bl-table tr[data-scheme="{schemes[0]}"] td').nth(2)).to_have_text(
        default["max_rel_text"]
    )
    expect(w.locator('select[name="magnitude"]')).to_have_value("1000")

    text = "1000, 0.01, 0.02, 0.5"
    w.locator('input[name="source"][value="typed"]').check()
    w.locator('textarea[name="text"]').fill(text)
    w.get_by_role("button", name="量化这个张量").click()
    last = python_view("block-lab", source="typed", text=text, scheme=schemes[-1])
    expect(w.locator(f'.c9-bl-panel[data-scheme="{schemes[-1]}"] .c9-bl-summary')).to_have_text(
        last["summary"], timeout=PYTHON_TIMEOUT
    )
    assert query(page) == {"bl.source": "typed", "bl.text": text}
    assert "bl.text=1000,+0.01,+0.02,+0.5" in page.url  # commas stay readable

    shared = open_page(page.url)
    w = widget(shared, "block-lab")
    expect(w.locator(".c9-status")).to_contain_text(
        f"按 {len(schemes)} 种缩放各量化了一次", timeout=PYTHON_TIMEOUT
    )
    expect(w.locator('input[name="source"][value="typed"]')).to_be_checked()
    expect(w.locator('textarea[name="text"]')).to_have_value(text)
    expect(w.locator(".c9-bl-typed")).to_be_visible()
    expect(w.locator(".c9-bl-generated")).to_be_hidden()
    for scheme in schemes:
        want = python_view("block-lab", source="typed", text=text, scheme=scheme)
        cells = w.locator(f'.c9-bl-table tr[data-scheme="{scheme}"] td')
        expect(cells.nth(2)).to_have_text(want["max_rel_text"])
        expect(cells.nth(5)).to_have_text(f"{want['flushed']:,}")
        expect(w.locator(f'.c9-bl-panel[data-scheme="{scheme}"] .c9-bl-summary')).to_have_text(
            want["summary"]
        )


def test_fp4_mx_nv(open_page, site_server):
    page = open_page(site_server.url + "fp4/?mn.text=abc")
    w = widget(page, "mx-nv")
    expect_refused(w, python_error("mx-nv", text="abc"), python_view("mx-nv")["summary"])

    text = "0.3, -1.2, 2.7, 500"
    w.locator('input[name="text"]').fill(text)
    want = python_view("mx-nv", text=text)
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    assert query(page) == {"mn.text": text}

    shared = open_page(page.url)
    w = widget(shared, "mx-nv")
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(w.locator('input[name="text"]')).to_have_value(text)
    last = w.locator(".c9-mn-table tbody tr").last.locator("td")
    expect(last.nth(1)).to_contain_text(want["rows"][-1]["mx"]["dequantized_text"])
    expect(last.nth(4)).to_contain_text(want["rows"][-1]["nv"]["dequantized_text"])


def test_lesson_4_and_fp4_bit_flippers(open_page, site_server):
    """The codec lab: the overflow choice and a code made in E2M1 live in the address."""
    fp8, fp4 = "float8_e4m3fn,float8_e5m2", "float4_e2m1fn,float8_e8m0fnu"
    page = open_page(site_server.url + "lesson-4/?bf.overflow=maybe")
    w = widget(page, "bit-flipper")
    expect_refused(
        w,
        python_error("bit-flipper", formats=fp8, value="1", overflow="maybe"),
        python_view("bit-flipper", formats=fp8, value="1")["summary"],
    )
    w.locator('input[name="overflow"][value="saturate"]').check()
    box = w.locator('input[name="value"]')
    box.fill("465")
    box.press("Enter")
    want = python_view("bit-flipper", formats=fp8, value="465", overflow="saturate")
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    assert query(page) == {"bf.value": "465", "bf.overflow": "saturate"}
    shared = open_page(page.url)
    w = widget(shared, "bit-flipper")
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(w.locator('input[name="overflow"][value="saturate"]')).to_be_checked()
    expect(w.locator('.c9-bf-row[data-format="float8_e4m3fn"] input[name="hex"]')).to_have_value("0x7E")

    page = open_page(site_server.url + "fp4/")
    w = widget(page, "bit-flipper")
    w.locator('.c9-bf-row[data-format="float4_e2m1fn"] .c9-bit[data-pos="3"]').click()  # the sign: 1 → −1
    want = python_view("bit-flipper", formats=fp4, source="float4_e2m1fn", code="0xA")
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    assert query(page) == {"bf.source": "float4_e2m1fn", "bf.code": "0xA"}
    shared = open_page(page.url)
    w = widget(shared, "bit-flipper")
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(w.locator('.c9-bf-row[data-format="float4_e2m1fn"] .c9-bit[data-pos="3"]')).to_have_attribute(
        "aria-pressed", "true"
    )


def test_lesson_5_memory_bar_timeline_and_instant_navigation(open_page, site_server):
    # b=9999 is an older link's key (no "mb."): still read, refused, and dropped at the next write.
    page = open_page(site_server.url + "lesson-5/?b=9999&tl.iteration=3")
    mb, tl = widget(page, "memory-bar"), widget(page, "timeline")
    expect_refused(mb, python_error("memory-bar", b="9999"), python_view("memory-bar")["summary"])
    expect_refused(tl, python_error("timeline", iteration="3"), python_view("timeline")["summary"])
    expect(mb.locator('input[name="b"]')).to_have_value("1")
    expect(tl.locator('input[name="iteration"][value="1"]')).to_be_checked()
    length = page.evaluate("history.length")

    mb.locator('input[name="b_stop"]').focus()
    page.keyboard.press("ArrowRight")
    mb.locator('input[name="mode"][value="selective"]').check()
    want_mb = python_view("memory-bar", b=2, mode="selective")
    expect(mb.locator(".c9-summary")).to_have_text(want_mb["summary"], timeout=PYTHON_TIMEOUT)
    tl.locator('input[name="iteration"][value="2"]').check()
    tl.locator('input[name="mode"][value="full_recompute"]').check()
    want_tl = python_view("timeline", iteration=2, mode="full_recompute")
    expect(tl.locator(".c9-summary")).to_have_text(want_tl["summary"], timeout=PYTHON_TIMEOUT)
    assert query(page) == {
        "mb.b": "2",
        "mb.mode": "selective",
        "tl.iteration": "2",
        "tl.mode": "full_recompute",
    }
    assert page.evaluate("history.length") == length

    shared = open_page(page.url)
    mb, tl = widget(shared, "memory-bar"), widget(shared, "timeline")
    expect(mb.locator(".c9-summary")).to_have_text(want_mb["summary"], timeout=PYTHON_TIMEOUT)
    expect(mb.locator('input[name="b"]')).to_have_value("2")
    expect(mb.locator('input[name="b_stop"]')).to_have_value("1")  # the slider's stop 2 (stops 1, 2, 3, …)
    expect(mb.locator('input[name="mode"][value="selective"]')).to_be_checked()
    for seg in want_mb["segments"]:
        expect(mb.locator(f'.c9-segments tr[data-key="{seg["key"]}"] td').first).to_have_text(seg["text"])
    formula = python_view("formula", model="qwen3.8-27b", s=4096, b=2)  # the formula follows the bar
    expect(widget(shared, "formula").locator(".c9-formula-summary")).to_have_text(formula["summary"])
    expect(tl.locator(".c9-summary")).to_have_text(want_tl["summary"], timeout=PYTHON_TIMEOUT)
    expect(tl.locator('input[name="iteration"][value="2"]')).to_be_checked()
    expect(tl.locator('input[name="mode"][value="full_recompute"]')).to_be_checked()
    expect(tl.locator(".c9-marks tbody tr").last.locator("td").last).to_have_text(
        want_tl["marks"][-1]["text"]
    )

    # Material's instant navigation: the next page starts with a bare address; Back restores the state.
    shared.locator(".md-footer__link--next").click()
    expect(shared).to_have_url(site_server.url + "lab/")
    expect(shared.locator("h1")).to_contain_text("实验")
    shared.go_back()
    # The same address up to the #anchor, which Material's navigation.tracking rewrites as the page scrolls.
    expect(shared).to_have_url(re.compile(re.escape(page.url.split("#")[0]) + r"(#.*)?$"))
    mb = widget(shared, "memory-bar")
    expect(mb.locator(".c9-summary")).to_have_text(want_mb["summary"], timeout=PYTHON_TIMEOUT)
    expect(mb.locator('input[name="mode"][value="selective"]')).to_be_checked()


# The memory bar's bad addresses, by key: the older links' keys (s, b, mode, model) and the widget's own
# (mb.…). Each is checked in CPython (Python refuses the parameters the script sends, with a Chinese
# message); the page runs one per kind of key, and a good one in full-width digits.
MB_DEFAULT = dict(model="qwen3.8-27b", s="4096", b=1, mode="store_all", s2_full_only=False)
BAD_ADDRESSES = [
    ("?s=1e309", dict(s="1e309")),
    ("?s=", dict(s="")),
    ("?s=999999999", dict(s="999999999")),
    ("?s=%3Cscript%3E", dict(s="<script>")),
    ("?b=0", dict(b="0")),
    ("?b=1e-400", dict(b="1e-400")),
    ("?mode=zip", dict(mode="zip")),
    ("?mb.mode=zip", dict(mode="zip")),
    ("?model=", dict(model="")),
    ("?model=gpt-9", dict(model="gpt-9")),
]
BAD_ADDRESSES_IN_THE_PAGE = ["?s=%3Cscript%3E", "?mb.mode=zip", "?model=gpt-9"]


@pytest.mark.parametrize("address, params", BAD_ADDRESSES, ids=[a for a, _ in BAD_ADDRESSES])
def test_python_refuses_each_bad_memory_bar_address(address, params):
    message = python_error("memory-bar", **{**MB_DEFAULT, **params})
    assert re.search(r"[\u4e00-\u9fff]", message) and "Error" not in message, message


def test_lesson_5_bad_addresses_keep_the_default_and_a_good_one_in_full_width_is_read(open_page, site_server):
    default = python_view("memory-bar")["summary"]
    for address, params in BAD_ADDRESSES:
        if address not in BAD_ADDRESSES_IN_THE_PAGE:
            continue
        mb = widget(open_page(site_server.url + "lesson-5/" + address), "memory-bar")
        expect_refused(mb, python_error("memory-bar", **{**MB_DEFAULT, **params}), default)
    page = open_page(site_server.url + "lesson-5/?s=%EF%BC%98%EF%BC%91%EF%BC%99%EF%BC%92&b=2")  # ８１９２
    mb = widget(page, "memory-bar")
    expect(mb.locator(".c9-summary")).to_have_text(
        python_view("memory-bar", s=8192, b=2)["summary"], timeout=PYTHON_TIMEOUT
    )
    expect(mb.locator('input[name="s"]')).to_have_value("8192")


# ---- Every navigation path: what the address says is what the widget shows ------
def _instant(page, site_server):
    """Material navigates instantly only to pages listed in sitemap.xml under the site's URL; the test
    build's URL has no port, so the sitemap is served with this server's address, as on a real site."""

    def fix(route):
        body = route.fetch().text().replace("http://127.0.0.1/c9/", site_server.url)
        route.fulfill(body=body, headers={"Content-Type": "application/xml"})

    page.route("**/sitemap.xml", fix)


def _shows(page, value):
    """The bit flipper shows the value the address holds, computed by Python in the page."""
    want = python_view("bit-flipper", formats="float16,float32", value=value)
    bf = widget(page, "bit-flipper")
    expect(bf.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(bf.locator('input[name="value"]')).to_have_value(value)
    expect(bf).to_have_attribute("data-state", "live")
    assert query(page).get("bf.value") == value


def _arrived(page, site_server, path: str) -> None:
    """Instant navigation has put ``path``'s page in, widgets mounted, as a reader sees it before the next
    Back or Forward. (The address changes first: a Back pressed at machine speed right after a Forward met
    the Forward's page still on its way, and a full run saw it land under lesson 2's address.)"""
    expect(page).to_have_url(re.compile(re.escape(path)))
    html = page.request.get(site_server.url + path).text()
    h1 = re.search(r'<h1 id="([^"]+)"', html).group(1)  # the page's title heading
    page.wait_for_function("(id) => document.querySelector('article h1')?.id === id", arg=h1, timeout=30_000)
    page.wait_for_function(WIDGETS_MOUNTED, timeout=30_000)


def test_every_navigation_path_shows_the_addresss_state(browser, site_server):
    ctx = browser.new_context(
        viewport={"width": 1280, "height": 900}, service_workers="block"
    )  # sitemap via route
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    _instant(page, site_server)
    page.goto(site_server.url + "lesson-2/?bf.value=70000")  # load
    _shows(page, "70000")
    page.evaluate("window.c9SameDocument = true")
    page.locator(".md-footer__link--next").click()  # instant navigation away
    expect(page).to_have_url(re.compile(r"/lesson-3/"))
    page.go_back()  # Back
    _shows(page, "70000")
    assert page.evaluate("window.c9SameDocument === true")  # it was instant navigation
    page.go_forward()  # Forward, then Back again
    _arrived(page, site_server, "lesson-3/")
    page.go_back()
    _arrived(page, site_server, "lesson-2/")
    _shows(page, "70000")
    box = widget(page, "bit-flipper").locator('input[name="value"]')  # a typed state, then away
    box.fill("0.1")
    box.press("Enter")
    _shows(page, "0.1")
    page.evaluate(
        "() => [...document.querySelectorAll('.md-sidebar--primary a')].find((a) => a.href.endsWith('/lesson-4/')).click()"
    )
    expect(page).to_have_url(re.compile(r"/lesson-4/"))
    page.go_back()
    _shows(page, "0.1")
    assert page.evaluate("window.c9SameDocument === true")
    page.reload()  # reload
    _shows(page, "0.1")
    assert page.errors == []
    ctx.close()


def test_a_state_from_the_address_is_marked_pending_until_python_has_it(browser, site_server):
    """Between opening an address and Python's answer the default view is on screen: it is dimmed and
    marked busy, and the status says the address's state is being computed; if Python cannot load, the
    status says the address's state could not be shown."""
    ctx = browser.new_context(service_workers="block")  # the worker script is fetched from this server
    page = ctx.new_page()
    release = []
    page.route("**/py-worker.js", lambda route: release.append(route))  # hold Python back
    page.goto(site_server.url + "lesson-2/?bf.value=70000")
    bf = widget(page, "bit-flipper")
    expect(bf).to_have_attribute("aria-busy", "true")
    expect(bf.locator(".c9-status")).to_contain_text("正在按地址里的参数重算")
    assert float(bf.locator(".c9-summary").evaluate("e => getComputedStyle(e).opacity")) < 0.6
    page.wait_for_timeout(200)
    for route in release:
        route.continue_()
    page.unroute("**/py-worker.js")
    _shows(page, "70000")
    expect(bf).not_to_have_attribute("aria-busy", "true")
    ctx.close()


def test_a_state_from_the_address_that_python_cannot_compute_is_said_so(browser, site_server):
    site_server.block("vendor/pyodide/")  # Python cannot load
    ctx = browser.new_context(service_workers="block")
    try:
        page = ctx.new_page()
        page.goto(site_server.url + "lesson-2/?bf.value=70000")
        bf = widget(page, "bit-flipper")
        expect(bf.locator(".c9-status")).to_contain_text("地址里的参数没法重算", timeout=PYTHON_TIMEOUT)
        expect(bf).not_to_have_attribute("aria-busy", "true")
        expect(bf.locator(".c9-summary")).to_have_text(
            python_view("bit-flipper", formats="float16,float32", value="1")["summary"]
        )  # the default, said so
    finally:
        ctx.close()
        site_server.block()


def test_every_widget_control_is_in_a_form_the_browser_does_not_refill(built_site):
    """After Back the browser restored lesson 1's 口径 select (FP32) from its form memory before
    Python answered, so the summary showed the build-time default under an FP32 select. Every widget's
    controls sit in a <form autocomplete="off">: the browser leaves them as built, and the widget's own
    address state (url-state.js: urlState) is the one thing that sets them."""
    from page_text import pages, parse

    bad, forms = [], 0
    for name, path in pages(built_site):
        for w in (n for n in parse(path.read_text(encoding="utf-8")).iter() if "data-widget" in n.attrs):
            for n in w.iter():
                if n.tag == "form":
                    forms += 1
                    if n.attrs.get("autocomplete") != "off":
                        bad.append(f'{name} {w.attrs["data-widget"]}: <form> without autocomplete="off"')
                elif n.tag in ("input", "select", "textarea"):
                    up = n.parent
                    while up is not None and up.tag != "form":
                        up = up.parent
                    if up is None and n.attrs.get("autocomplete") != "off":
                        bad.append(
                            f"{name} {w.attrs['data-widget']}: <{n.tag} name={n.attrs.get('name')}> outside a form"
                        )
    assert forms >= 10 and not bad, "\n".join(bad)


def test_back_shows_the_built_controls_until_python_has_the_address(browser, site_server):
    """The QA tester's path: lesson 1, 口径 set to FP32, away to lesson 2 (a full page load), Back. Until
    Python answers, the select shows the built default with the built summary beside it, not FP32."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = ctx.new_page()
    page.goto(site_server.url + "lesson-1/")
    w = widget(page, "ledger")
    w.get_by_label("自定义参数量").check()  # two controls from the default: outside the build's answer cache
    w.locator('select[name="convention"]').select_option("fp32")
    fp32 = python_view("ledger", model="custom", convention="fp32")["summary"]
    expect(w.locator(".c9-summary")).to_have_text(fp32, timeout=PYTHON_TIMEOUT)
    assert query(page).get("ledger.conv") == "fp32"
    page.goto(site_server.url + "lesson-2/")
    held = []
    page.route("**/py-worker.js", lambda route: held.append(route))  # Python held back
    page.go_back()
    expect(page).to_have_url(re.compile(r"/lesson-1/\?.*ledger\.conv=fp32"))
    w = widget(page, "ledger")
    select, summary = w.evaluate(
        "w => [w.querySelector('select[name=convention]').value, w.querySelector('.c9-summary').textContent]"
    )
    assert (select, summary) == ("zero", python_view("ledger")["summary"])
    for route in held:
        route.continue_()
    page.unroute("**/py-worker.js")
    expect(w.locator(".c9-summary")).to_have_text(fp32, timeout=PYTHON_TIMEOUT)  # then the address's state
    expect(w.locator('select[name="convention"]')).to_have_value("fp32")
    ctx.close()
