"""One punctuation and spacing rule for the whole site, and every URL a link.

Punctuation: in Chinese text the punctuation is full width (，；：（）？！) and a space separates Chinese from
Latin letters and digits, as the lessons write it. Checked over the built pages' text (math, code and
URLs left out; numbers such as 4,096 and 12:30 are not punctuation) and over every string of every
widget's default view and page context. Links: no text node shows an http(s) URL outside an <a>.
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT
from page_text import OBJ, article, attribute_texts, blocks, pages, parse, view_strings

CJK = "\u3400-\u4dbf\u4e00-\u9fff"
HAN = re.compile(f"[{CJK}]")
URL = re.compile(r"https?://[^\s<>（）「」，。；]+")
# Not text: a Plotly number placeholder (%{x:,.1f}) and markup inside a chart's hover template
PLACEHOLDER = re.compile(r"%\{[^}]*\}|<[^<>]*>")
RULES = [
    # ASCII , ; : ? ! touching a Chinese character
    ("半角标点挨着汉字", re.compile(f"[{CJK}][,;:?!]|[,;:?!][{CJK}]")),
    # … or used Chinese-style, with no space after it (a comma in 4,096 or a colon in 12:30 is a number)
    ("半角标点后没有空格", re.compile(r"[,;?!](?=[^\s\d)\]}'\"’”])|(?<=\D),(?=\d)|:(?=[^\s\d/])")),
    # ASCII brackets around or beside Chinese
    ("半角括号里外是汉字", re.compile(f"[{CJK}]\\(|\\)[{CJK}]|\\([^()]*[{CJK}][^()]*\\)")),
    # Chinese directly against a Latin letter or digit
    ("汉字与字母或数字之间没有空格", re.compile(f"[{CJK}][A-Za-z0-9]|[A-Za-z0-9][{CJK}]")),
]


# Reader notation for numbers, in any text, Chinese or not: what the reader
# typed (quoted in 「…」) is left as typed.
NOTATION = [
    ("e 记数法（应写 ×10ⁿ）", re.compile(r"(?<![0-9A-Za-z.])\d+(\.\d+)?[eE][+-]?\d+(?![A-Za-z])")),
    ("^ 写的乘方（应写上标）", re.compile(r"\w\s*\^\s*[-+(]?\w")),
    ("半角减号当负号（应写 −）", re.compile(r"(?:^|(?<=[\s（(=≈:：，,、]))-(?=\.?\d)")),
    ("程序的内部写法", re.compile(r"\b(Fraction|Decimal|float|int)\(")),
]
# In Chinese text, outside what the reader typed: a comma between digits is a thousands separator only before
# exactly three digits; 「FP32,8 位」 is a half-width comma the other rules took for one.
# (Not in NOTATION: a chart's colour, rgba(0,0,0,0), is no Chinese text.)
HAN_NOTATION = [
    ("数字间的半角逗号不是千位分隔符（应写「，」）", re.compile(r"(?<=\d),(?=\d)(?!\d{3}(?!\d))"))
]
# A widget's parameter count in Chinese magnitudes (「100M 参数」 → 「1 亿参数」). Views only: the lessons' prose
# follows its sources' spelling (「7.5B 参数的模型」, a model's name 「GPT-2 1.5B」).
VIEW_NOTATION = [
    ("英文数量级后缀（应写 万、亿 或完整数字）", re.compile(r"(?<![\w.-])\d+(\.\d+)?[KMBT]\b(?=\s*参数)"))
]
QUOTED = re.compile(r"「[^」]*」")


def violations(text: str, view: bool = False) -> list[str]:
    """What breaks the rule in one piece of reader-visible text (``view``: a widget's), each with its context."""
    text = PLACEHOLDER.sub(OBJ, URL.sub(OBJ, text))
    found = []
    bare = QUOTED.sub(OBJ, text)
    for name, rule in NOTATION + (VIEW_NOTATION if view else []):
        for m in rule.finditer(bare):
            found.append(f"{name}：…{bare[max(0, m.start() - 12) : m.end() + 12]}…")
    if not HAN.search(text):
        return found  # English (a citation, a code name): not Chinese text
    for name, rule in RULES:
        for m in rule.finditer(text):
            found.append(f"{name}：…{text[max(0, m.start() - 12) : m.end() + 12]}…")
    for name, rule in HAN_NOTATION:
        for m in rule.finditer(bare):
            found.append(f"{name}：…{bare[max(0, m.start() - 12) : m.end() + 12]}…")
    return found


# A space the browser shows after full-width punctuation or between two Chinese characters, often a line
# break inside a paragraph's source (page_text.blocks turns it into the space the browser draws).
RULES.append(("全角标点后或汉字之间有空格", re.compile(f"[，。；：、？！][ \\t]|[{CJK}][ \\t]+(?=[{CJK}])")))


def test_the_space_rule_catches_known_mistakes():
    """The QA tester's 「NaN， 这一步」: lab.md broke its lines inside sentences; the browser drew each break as a space."""
    html = "<p>梯度里只要出现 inf 或 NaN，\n这一步就不更新</p><p>宽度 h = 256、\n4 个头</p><p>张量本身，<br>不含</p>"
    found = [v for b in blocks(parse(html)) for v in violations(b)]
    assert len(found) == 2 and "NaN， 这一步" in found[0] and "256、 4" in found[1], found
    assert violations("任务， 墙钟 tokens/s") and violations("类型。 动态缩放器") and violations("显存 账")
    assert not violations("FP32 的 logits（前向输出），合计 25.96 MiB。") and not violations(
        "Adam m、v 各 4 B"
    )


def test_the_rules_catch_known_mistakes():
    assert violations("推理时,… 2 个字节;训练时")  # the guide's ASCII marks
    assert violations("只算 BF16 权重是 55.6 GB,一张 80 GB 卡装得下")  # a widget summary
    assert violations("16 位的权重和梯度各 2,FP32 的主权重")
    assert violations("Adam m(FP32)的两份")
    assert violations("第1课")
    assert violations("让每一小块各有缩放，累加回到 FP32,8 位就能训。")  # the guide's takeaway
    assert not violations("1,000,000 个输入、4,096 token") and not violations("所以「1,5」是 1 和 5 两个数")
    assert not violations("锚点一条 4,096 token 的序列：162.5 GiB（174.5 GB），占 73.8%。")
    assert not violations("每层 sbh(34 + 5as/h) = 2.54 GiB，见 arXiv:2205.05198。")


def test_the_notation_rules_catch_the_qa_examples():
    """Numbers in reader notation, never a Python repr."""
    for bad in [
        "第 1 行第 1 列是 Fraction(1000000, 1)：必须是有限数",
        "X = 2^97 = 1.58456e+29",
        "1.00000e+30",
        "最小正规数 2^-14 ≈ 6.1e-05",
        "值 -448.0（= -1.75 × 2^8）",
        "均值 -26",
        "收到的是 -5",
        "在 FP32 范围 ±3.4e38 之内",
        "参数量要在 10^8 到 10^12 之间",
        "Δ 的绝对值要在 1e-30 到 1,000,000 之间",
    ]:
        assert violations(bad), bad
    assert violations("自定义 100M 参数", view=True) and violations("1.0T 参数", view=True)
    for good in [
        "X = 2⁹⁷ ≈ 1.58×10²⁹",
        "值 −448（= −1.75 × 2⁸）",
        "收到的是「-5」",
        "「1e400」超出了 FP32 的范围",
        "E4M3 编码 0x3E",
        "FP8-E4M3",
        "1 亿参数",
        "BF16 与 FP32 相差 0.0001",
        "arXiv:2205.05198",
        "1-9",
    ]:
        assert not violations(good), (good, violations(good))


def page_violations(path) -> list[str]:
    """The page's own text (the article, navigation, header and footer, the title and description)."""
    root = parse(path.read_text(encoding="utf-8"))
    head = next(n for n in root.iter() if n.tag == "head")
    body = next(n for n in root.iter() if n.tag == "body")
    texts = blocks(body) + attribute_texts(body)  # aria-label, title, placeholder … are read too
    texts += [n.text() for n in head.iter() if n.tag == "title"]
    texts += [
        n.attrs["content"] for n in head.iter() if n.tag == "meta" and n.attrs.get("name") == "description"
    ]
    return [v for t in texts for v in violations(t)]


def test_attribute_text_is_checked_too():
    """「堆叠条形图:三种做法…,文字说明在图下方」 sat in an aria-label, which the page check skipped."""
    root = parse(
        '<body><div role="img" aria-label="堆叠条形图:三种做法,文字说明在图下方"></div>'
        '<input placeholder="例如 1e-8"><td title="值 -448.0（= -1.75 × 2^8）"></td></body>'
    )
    found = [v for t in attribute_texts(root) for v in violations(t)]
    assert (
        any("半角标点" in v for v in found)
        and any("乘方" in v for v in found)
        and any("减号" in v for v in found)
    )


def test_pages_follow_the_punctuation_and_spacing_rule(built_site):
    """Every page, widgets included, as built."""
    bad = [f"{name}: {v}" for name, p in pages(built_site) for v in page_violations(p)]
    assert not bad, "\n".join(bad)


def _views():
    from c9.views.api import WIDGETS, widget_module

    for name in WIDGETS:
        module = widget_module(name)
        yield pytest.param(name, "page_context", module.page_context(), id=f"{name}-page_context")
        if hasattr(module, "view"):
            yield pytest.param(name, "view", module.view(), id=f"{name}-view")


# Live states a reader reaches: the rules hold there too, not only in the default view.
LIVE = {
    "mx-nv": [{"text": "1e30, 1, -2.5e-20"}, {"text": "-448, 0.001"}],
    "block-lab": [
        {"preset": "deepseek-v3", "scheme": "deepseek_1x128"},
        {"source": "typed", "text": "1e30, 1\n-2, 3e-30"},
        {"source": "typed", "text": "448, 447.9999, 447.99999"},
        {"scheme": "deepseek_1x128"},
        {"scheme": "deepseek_128x128", "token": False},
    ],
    "loss-scale": [{"k": 40}, {"k": 24, "fmt": "bfloat16"}],
    "bit-flipper": [
        {"value": "-448"},
        {"value": "1e-30"},
        {"value": "1e30", "formats": "float16,bfloat16"},
        {"source": "float16", "code": "0xFFFF", "formats": "float16"},
        {"value": "0x3c00"},
        # the codec lab: FP8 in both modes, E2M1/E8M0 with a row that cannot hold the NaN
        {"formats": "float8_e4m3fn,float8_e5m2", "value": "465", "overflow": "saturate"},
        {"formats": "float8_e4m3fn,float8_e5m2", "value": "-1e6"},
        {"formats": "float4_e2m1fn,float8_e8m0fnu", "source": "float8_e8m0fnu", "code": "0xFF"},
        {"formats": "float4_e2m1fn,float8_e8m0fnu", "value": "1e-40"},
    ],
    "repeated-update": [{"w0": "-1e5", "delta": "1e-30"}, {"w0": "1e6", "delta": "-0.5", "fmt": "bfloat16"}],
    "ledger": [
        {"model": "custom", "log10_params": 8},
        {"model": "custom", "log10_params": 12},
        {"model": "custom", "log10_params": 9.55},
        {"convention": "fp32"},
    ],
    "memory-bar": [
        {"mode": "full_recompute"},
        {"mode": "flash"},
        {"mode": "selective", "s": 131072, "b": 8},
        {"model": "llama-3.1-8b", "card": "rtx-4090-24gb"},
        {"model": "qwen3-30b-a3b", "mode": "flash"},
        {"model": "gpt2-xl", "s": 1, "b": 1024},
        {"model": "lab", "s": 64, "b": 2},
        {"recipe": "te_fp8_delayed"},  # the recipes whose sources name a copy without its bytes
        {"recipe": "deepseek_v3_fp8"},
        {
            "config": '{"model_type": "qwen3", "hidden_size": 64, "num_attention_heads": 4, '
            '"num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100}'
        },
    ],
    "formula": [{"model": "llama-3.1-8b"}, {"model": "gpt2-xl", "s": 1048576}],
    "timeline": [{"mode": "full_recompute", "s": 131072}],
}
PAGE_CONTEXTS = {
    "pattern-table": [("float8_e5m2",)],
    "lab-charts": [(c,) for c in __import__("c9.views.lab_charts").views.lab_charts.CHARTS],
}


def _live():
    from c9.views.api import widget_module

    for name, states in LIVE.items():
        for i, params in enumerate(states):
            yield pytest.param(name, f"live {params}", widget_module(name).view(params), id=f"{name}-live{i}")
    for name, args in PAGE_CONTEXTS.items():
        for a in args:
            yield pytest.param(
                name, f"page_context{a}", widget_module(name).page_context(*a), id=f"{name}-{a[0]}"
            )


@pytest.mark.parametrize("name,kind,value", list(_views()) + list(_live()))
def test_every_view_follows_the_punctuation_and_spacing_rule(name, kind, value):
    bad = [v for s in view_strings(value) for v in violations(s, view=True)]
    assert not bad, f"{name} {kind}:\n" + "\n".join(sorted(set(bad)))


def _text_nodes_outside_links(node, inside=False):
    for c in node.children:
        if isinstance(c, str):
            if not inside:
                yield c
        elif c.tag not in ("script", "style"):
            yield from _text_nodes_outside_links(c, inside or c.tag == "a")


def test_every_url_shown_is_a_link(built_site):
    """Kind 10: the reading list said 「下面的链接」 while every URL on it was plain text."""
    bad = []
    for name, p in pages(built_site):
        for text in _text_nodes_outside_links(parse(p.read_text(encoding="utf-8"))):
            bad += [f"{name}: {u}" for u in re.findall(r"https?://\S+", text)]
    assert not bad, "\n".join(bad)
    # the reading list's entries are links that open the source
    index = (built_site / "index.html").read_text(encoding="utf-8")
    for url in (
        "https://float.exposed/",
        "https://arxiv.org/abs/1710.03740",
        "https://huggingface.co/spaces/nanotron/ultrascale-playbook",
    ):
        assert f'href="{url}"' in index


def test_the_front_end_never_shows_an_exception_text():
    """On the JavaScript side: an error's own text (English, from the browser or our code) goes to the
    console; what the reader sees is a Chinese sentence (live-view.js: UNEXPECTED)."""

    js = ROOT / "docs" / "assets" / "js"
    # an error's message or stack inside a say(…) call or an assignment to the page, across lines
    shown = re.compile(r"(say\(|textContent\s*=|innerHTML\s*=)[^;]*?\b(err|e|error)\.(message|stack)\b")
    bad = [
        f"{p.name}: {m.group(0)[:120]}"
        for p in sorted(js.rglob("*.js"))
        if p.name != "py-worker.js"
        for m in shown.finditer(p.read_text(encoding="utf-8"))
    ]
    assert not bad, "\n".join(bad)


def _exercise_texts(ex) -> list[str]:
    """What an exercise can show a reader: its title, statement and hints, and what the checker says about
    the stub and each typical wrong answer (message and the case: input, answers)."""
    from c9.core import exercises

    texts = [ex.title, ex.statement, *ex.case_hints.values(), *(m.hint for m in ex.mistakes)]
    for source in (ex.stub, *(m.source for m in ex.mistakes)):
        out = exercises.check(ex, source)
        texts += [out.message, out.hint, *(out.case or {}).values()]
    return [t for t in texts if t]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("exercise_id", __import__("c9.core.exercises").core.exercises.EXERCISES)
def test_every_exercise_text_follows_the_rule(exercise_id):
    from c9.core import exercises

    bad = [
        f"{v}: {t[:60]}"
        for t in _exercise_texts(exercises.get(exercise_id))
        for v in violations(t, view=True)
    ]
    assert not bad, "\n".join(bad)


def _scratchpad_texts() -> list[str]:
    """What the scratchpad can say: its summary after each kind of run (each mapped exception, a syntax
    error, exit(), the chapter's own refusal, memory, cut output, no output) and its examples' comments."""
    from c9.base import reader_code
    from c9.views import scratchpad

    codes = [
        "x = 1",
        "print(1)\n2",
        "a = (1",
        "if 1:\nx = 1",
        "exit()",
        "for i in range(9999):\n    print(i * 99)",
    ]
    codes += [
        'from c9.core import formats\nformats.encode("float99", 1)',
        "class E(Exception): pass\nraise E",
    ]
    codes += [f"raise {cls.__name__}('text')" for cls, _ in reader_code.EXCEPTIONS_ZH]
    texts = [scratchpad.view({"code": c})["summary"] for c in codes]
    for example in scratchpad.EXAMPLES.values():
        texts += [line.lstrip("# ") for line in example.splitlines() if line.startswith("#")]
    return texts


def test_every_scratchpad_text_follows_the_rule():
    bad = [f"{v}: {t[:60]}" for t in _scratchpad_texts() for v in violations(t, view=True)]
    assert not bad, "\n".join(bad)


# English the QA pass read outside code: a lab caption's terms (the runs' names are the lab's own), a
# formula caption's citation, a timeline step named by its code, Material's footer credit.
ENGLISH = [
    "val loss",
    "saved_tensors_hooks",
    "log-softmax",
    "et al. 2022 式",
    "optimizer.step()：",
]


def test_no_english_words_outside_code(built_site):
    from c9.views import lab_charts, timeline

    seen = []
    for name, p in pages(built_site):
        html = p.read_text(encoding="utf-8")
        seen += [f"{name}: Made with" for _ in [0] if "Made with" in html]
        seen += [f"{name}: {w}" for b in blocks(article(p)) for w in ENGLISH if w in b]
    shown = [
        *view_strings(timeline.view()),
        *(s for c in lab_charts.CHARTS for s in view_strings(lab_charts.page_context(c))),
    ]
    seen += [f"view: {w}" for s in shown for w in ENGLISH if w in s]
    assert seen == [], seen


def test_every_tooltip_and_label_on_a_page_reads_in_chinese(built_site):
    """A reader check found Python-Markdown's English tooltips on every page: 「Jump back to footnote 1 in the
    text」 on each footnote's back-link, 「Permanent link」 on each heading's ¶ (mkdocs.yml now names both).
    Every title, aria-label and placeholder of every page, header and footer included, has Chinese in it."""
    english = []
    for name, p in pages(built_site):
        for n in parse(p.read_text(encoding="utf-8")).iter():  # every element, links the text checks skip too
            for t in (n.attrs.get(a) for a in ("title", "aria-label", "placeholder")):
                if t and re.search(r"[A-Za-z]{3,}", t) and not re.search(f"[{CJK}]", t):
                    english.append(f"{name}: {t}")
    assert english == [], sorted(set(english))[:20]
