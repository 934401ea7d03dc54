"""The build's answer cache (hooks/answers.py): every cached answer is what the worker's
entry point answers live for the same request; the keys are written as answers.js writes them; every
interactive widget names its cache, and the cache holds each option of each radio and select and the
neighbouring stops of each slider; the files stay small. (The browser side: test_browser_answer_cache.py.)"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT

from c9.views import api
from hooks.answers import canonical

# Widgets whose only input is free text (a list of numbers typed by the reader): no state is one step away.
FREE_TEXT_ONLY = {"mx-nv"}
GZIP_PER_WIDGET = (
    300_000  # bytes; fetched when the widget nears the screen (lesson 4's block lab is the largest)
)
GZIP_PER_PAGE = 320_000  # bytes: all of a page's caches, within a budget of 800 KB per page without Pyodide


class _Widgets(HTMLParser):
    """Each widget root on a page: its attributes and its form controls (radios, checkboxes, selects, ranges)."""

    def __init__(self):
        super().__init__()
        self.widgets, self._depth, self._select = [], 0, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure" and self._depth:
            self._depth += 1
        elif tag == "figure" and "c9-widget" in (a.get("class") or "").split():
            self._depth = 1
            self.widgets.append({"attrs": a, "options": {}, "ranges": []})
        if not self._depth:
            return
        w = self.widgets[-1]
        if tag == "input" and a.get("type") in ("radio", "checkbox") and a.get("name"):
            w["options"].setdefault(a["name"], set()).add(
                a.get("value", "on") if a["type"] == "radio" else "switch"
            )
        if tag == "input" and a.get("type") == "range":
            w["ranges"].append(a)
        if tag == "select":
            self._select = w["options"].setdefault(a["name"], set())
        if tag == "option" and self._select is not None:
            self._select.add(a["value"])

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        if tag == "figure" and self._depth:
            self._depth -= 1


def page_widgets(site: Path):
    for html in sorted(site.rglob("index.html")):
        parser = _Widgets()
        parser.feed(html.read_text(encoding="utf-8"))
        for w in parser.widgets:
            yield html, w


def cache_of(html: Path, w: dict) -> dict:
    return json.loads((html.parent / w["attrs"]["data-answers"]).read_text(encoding="utf-8"))["answers"]


def test_every_cached_answer_is_what_python_answers_live(built_site):
    files = sorted((built_site / "assets" / "answers").glob("*.json"))
    assert len(files) >= 10
    n = 0
    for f in files:
        for key, cached in json.loads(f.read_text(encoding="utf-8"))["answers"].items():
            # The key is the request itself, as the worker gets it: the worker's entry point answers it live.
            assert json.loads(api.handle(key)) == cached, (f.name, key)
            assert cached["ok"], (key, cached)  # a neighbour Python refuses is a wrong declaration
            assert canonical(json.loads(key)) == key
            n += 1
    assert n > 300


def test_the_page_script_writes_the_same_keys(built_site):
    """answers.js's canonical, run by node on each key read back as the page would hold the request, gives
    the key again: JavaScript and Python agree on key order, numbers and string escapes."""
    source = (ROOT / "docs" / "assets" / "js" / "answers.js").read_text(encoding="utf-8")
    fn = re.search(r"^export (function canonical\(value\) \{.*?^\})", source, re.M | re.S).group(1)
    keys = [
        k
        for f in sorted((built_site / "assets" / "answers").glob("*.json"))
        for k in json.loads(f.read_text(encoding="utf-8"))["answers"]
    ]
    script = (
        fn + "\nconst keys = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify(keys.filter((k) => canonical(JSON.parse(k)) !== k)));"
    )
    out = subprocess.run(
        ["node", "-e", script], input=json.dumps(keys), capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []
    assert len(keys) > 300


def test_every_interactive_widget_names_its_cache(built_site):
    seen = set()
    for html, w in page_widgets(built_site):
        name = w["attrs"]["data-widget"]
        module = api.widget_module(name)
        if w["attrs"].get("data-python") == "no" or not hasattr(module, "view") or name in FREE_TEXT_ONLY:
            assert "data-answers" not in w["attrs"], (html, name)
            continue
        assert "data-answers" in w["attrs"], (html, name)
        cache = cache_of(html, w)
        assert cache and all(json.loads(k)["widget"] == name for k in cache), (html, name)
        seen.add(name)
    assert seen >= {
        "ledger",
        "bit-flipper",
        "repeated-update",
        "loss-scale",
        "block-lab",
        "memory-bar",
        "formula",
        "timeline",
    }


def test_each_option_and_neighbouring_stop_is_in_the_cache(built_site):
    """Every option of every radio group and select, every switch flipped, and the stops next to each
    slider's default (for a slider named like its parameter) are answered from the cache."""
    checked = 0
    for html, w in page_widgets(built_site):
        if "data-answers" not in w["attrs"]:
            continue
        name = w["attrs"]["data-widget"]
        requests = [json.loads(k)["params"] for k in cache_of(html, w)]
        default = json.loads(w["attrs"]["data-default"])["params"]
        for control, values in w["options"].items():
            if control not in default:
                continue
            got = {str(p[control]).lower() for p in requests if control in p}
            want = {"true", "false"} if values == {"switch"} else values
            assert want <= got, (html.parent.name, name, control, want - got)
            checked += 1
        for r in w["ranges"]:
            if r["name"] not in default:
                continue
            lo, hi, step, v = (float(r[k]) for k in ("min", "max", "step", "value"))
            near = {round(x, 6) for x in (v - step, v + step) if lo <= x <= hi}
            got = {round(float(p[r["name"]]), 6) for p in requests if r["name"] in p}
            assert near <= got, (html.parent.name, name, r["name"], near - got)
            checked += 1
    assert checked >= 20


def test_lesson_5_bar_holds_every_stop_of_its_sliders(built_site):
    """The memory bar's s slider (by its stops, sent as the number box's text) and b slider: every stop."""
    html = built_site / "lesson-5" / "index.html"
    w = next(
        w for h, w in page_widgets(built_site) if h == html and w["attrs"]["data-widget"] == "memory-bar"
    )
    requests = [json.loads(k)["params"] for k in cache_of(html, w)]
    assert set(w["attrs"]["data-stops"].split(",")) <= {p["s"] for p in requests}
    from c9.views.memory_bar import CACHED_B_MAX

    b_stops = w["attrs"]["data-b-stops"].split(",")
    assert {b for b in b_stops if int(b) <= CACHED_B_MAX} <= {p["b"] for p in requests}
    assert {"1", "2", "8"} <= {p["b"] for p in requests}  # the lesson's task moves b from 1 to 8
    # …each model of the select and each card, but not every pair of them: the file stays small.
    assert len(requests) < 100


def test_the_caches_stay_small(built_site, capsys):
    per_page = {}
    for html, w in page_widgets(built_site):
        if "data-answers" not in w["attrs"]:
            continue
        data = (html.parent / w["attrs"]["data-answers"]).read_bytes()
        z = len(gzip.compress(data, 9))
        assert z <= GZIP_PER_WIDGET, (html, w["attrs"]["data-widget"], z)
        raw, gz = per_page.get(html.parent.name, (0, 0))
        per_page[html.parent.name] = (raw + len(data), gz + z)
    with capsys.disabled():
        for page, (raw, gz) in sorted(per_page.items()):
            print(f"\nanswer cache {page}: {raw / 1000:.0f} KB, gzip {gz / 1000:.1f} KB", end="")
    assert all(gz <= GZIP_PER_PAGE for _, gz in per_page.values()), per_page
    assert set(per_page) >= {"lesson-1", "lesson-2", "lesson-3", "lesson-4", "fp4", "lesson-5"}


@pytest.mark.parametrize("value", [10.0, 10.05, 0.5, 1e-3])
def test_a_key_writes_numbers_as_javascript_does(value):
    key = canonical({"widget": "w", "params": {"x": value}})
    assert key == '{{"params":{{"x":{}}},"widget":"w"}}'.format(
        {10.0: "10", 10.05: "10.05", 0.5: "0.5", 1e-3: "0.001"}[value]
    )


def test_a_number_javascript_writes_otherwise_is_refused():
    with pytest.raises(ValueError):
        canonical({"x": 1e-7})


# ---- Answers ahead (c9.views.api.nearby): the worker's idle-time answers around the state on screen ------
AHEAD_STATES = [
    (
        "memory-bar",
        {
            "model": "qwen3.8-27b",
            "s": "5000",
            "b": "3",
            "mode": "flash",
            "s2_full_only": False,
            "card": "h100-80gb",
            "config": "",
        },
    ),
    (
        "memory-bar",
        {
            "model": "llama-3.1-8b",
            "s": "1048576",
            "b": "1024",
            "mode": "store_all",
            "s2_full_only": True,
            "card": "rtx-4090-24gb",
            "config": "",
        },
    ),
    (
        "bit-flipper",
        {"formats": "float16,float32", "source": "float16", "code": "0x3C03", "overflow": "default"},
    ),
    ("bit-flipper", {"formats": "e4m3,e5m2", "source": "value", "value": "464", "overflow": "saturate"}),
    ("ledger", {"model": "custom", "log10_params": 9.85, "convention": "zero"}),
    ("loss-scale", {"k": 12, "source": "stand-in", "fmt": "float16"}),
    ("timeline", {"model": "qwen3-8b", "iteration": 2, "mode": "full_recompute"}),
]


@pytest.mark.parametrize("widget,params", AHEAD_STATES, ids=lambda x: x if isinstance(x, str) else "")
def test_the_states_answered_ahead_are_one_control_step_away_and_answered_like_any_request(widget, params):
    here = canonical({"widget": widget, "params": params})
    keys = api.nearby(here)
    assert keys and here not in keys and len(keys) == len(set(keys))
    for key in keys:
        req = json.loads(key)
        assert canonical(req) == key and req["widget"] == widget
        out = json.loads(api.handle(key))
        assert out["ok"], (key, out)
        if widget in ("memory-bar", "loss-scale", "timeline"):  # exactly one control moved
            assert sum(req["params"][k] != params[k] for k in params) == 1, key


def test_memory_bar_answers_ahead_the_next_slider_stops_first():
    from c9.views.memory_bar import S_STOPS

    p = {
        "model": "qwen3.8-27b",
        "s": "5000",
        "b": "3",
        "mode": "store_all",
        "s2_full_only": False,
        "card": "h100-80gb",
        "config": "",
    }
    first = [
        json.loads(k)["params"] for k in api.nearby(canonical({"widget": "memory-bar", "params": p}))[:5]
    ]
    i = S_STOPS.index(4096)  # the stop nearest 5,000 on the slider's log scale: where the slider sits
    assert [q["s"] for q in first[:3]] == [str(S_STOPS[i + 1]), str(S_STOPS[i - 1]), "4096"]
    assert [q["b"] for q in first[3:5]] == ["4", "2"]


def test_a_bit_flippers_states_ahead_are_each_bit_of_each_row_flipped():
    p = {"formats": "float16,float32", "source": "float16", "code": "0x3C03", "overflow": "default"}
    codes = {
        json.loads(k)["params"].get("code")
        for k in api.nearby(canonical({"widget": "bit-flipper", "params": p}))
    }
    assert {f"0x{0x3C03 ^ (1 << b):04X}" for b in range(16)} <= codes


@pytest.mark.parametrize(
    "request_text",
    [
        '{"widget": "memory-bar", "params": {"b": 5000}}',  # refused: nothing around it
        '{"widget": "step-stages", "params": {}}',  # a build-only widget: nothing to answer
        '{"widget": "nope"}',
        "not json",
        '{"widget": "memory-bar", "params": [1]}',
    ],
)
def test_nearby_is_empty_rather_than_an_error(request_text):
    assert api.nearby(request_text) == []
