"""The guide's pitfalls table and reading list carry everything the chapter guide lists.

The guide (seeds, 章导读) lists eight pitfalls, each with the lesson that fixes it, and a reading list of
four hands-on tools, six deeper reads and thirteen papers. On the built guide page: every pitfall row
links to its lesson; the reading list has 4 + 6 + 13 entries, each names the lesson it serves, each is a
link unless it says it is not linked (an item the guide describes without naming); an unlinked entry
carries no address at all.
"""

from __future__ import annotations

import re

from page_text import Node, article, parse

LESSON = re.compile(r"第 [1-5](?:、[1-5])* 课|岔路|实验课|C10")


def _section(root: Node, title: str) -> list[Node]:
    """The nodes after the h2 whose text is ``title``, up to the next h2."""
    nodes, on = [], False
    body = next(n for n in root.iter() if n.tag == "h2" and n.text().strip().startswith(title)).parent
    for c in body.children:
        if isinstance(c, Node) and c.tag == "h2":
            on = c.text().strip().startswith(title)
            continue
        if on and isinstance(c, Node):
            nodes.append(c)
    return nodes


def _links(n: Node) -> list[str]:
    return [a.attrs.get("href", "") for a in n.iter() if a.tag == "a"]


def test_the_pitfalls_table_has_the_guides_rows_each_linked_to_its_lesson(built_site):
    root = article(built_site / "index.html")
    table = next(t for n in _section(root, "坑与对策") for t in n.iter() if t.tag == "table")
    rows = [r for r in table.iter() if r.tag == "tr"][1:]
    texts = [r.text() for r in rows]
    # the row once missing, and the guide's other seven
    assert any("推理" in t and "估算器" in t and "训练" in t for t in texts)
    for words in (
        "参数量 × 2 字节",
        "混合精度",
        "loss scaling",
        "16 位权重",
        "整张量",
        "按参数量估激活",
        "autocast",
    ):
        assert any(words in t for t in texts), words
    for r in rows:
        last = [c for c in r.children if isinstance(c, Node) and c.tag in ("td", "th")][-1]
        hrefs = _links(last)
        assert hrefs and all(re.fullmatch(r"(\.\./)?(lesson-[1-5]|fp4|lab)/", h) for h in hrefs), (
            r.text(),
            hrefs,
        )
    calc = next(r for r, t in zip(rows, texts) if "估算器" in t)
    assert {"lesson-1/", "lesson-5/"} <= {h.removeprefix("../") for h in _links(calc)}


def _entries(root: Node) -> dict[str, list[Node]]:
    """The reading list's three groups, by the bold label that opens each."""
    groups, current = {}, None
    for n in _section(root, "延伸阅读"):
        if n.tag == "p" and any(s.tag == "strong" for s in n.iter()):
            label = next(s for s in n.iter() if s.tag == "strong").text()
            current = groups.setdefault(label, []) if "（" in label else None
        elif n.tag == "ul" and current is not None:
            current += [li for li in n.children if isinstance(li, Node) and li.tag == "li"]
    return groups


def test_the_reading_list_has_every_item_of_the_guide(built_site):
    groups = _entries(article(built_site / "index.html"))
    sizes = {label.split("（")[0]: len(items) for label, items in groups.items()}
    assert sizes == {"动手玩": 4, "吃透原理": 6, "读原文": 13}
    for label, items in groups.items():
        for li in items:
            text, hrefs = li.text(), [h for h in _links(li) if h.startswith("http")]
            assert LESSON.search(text), f"{label}: names no lesson: {text[:40]}"
            if "未链接" in text:
                assert not hrefs and not re.search(r"https?://|www\.|\.com|\.org", text), text[:40]
            else:
                assert hrefs, f"{label}: no link: {text[:40]}"
    papers = " ".join(li.text() for li in groups[next(k for k in groups if k.startswith("读原文"))])
    for arxiv in (
        "1710.03740",
        "1905.12322",
        "2209.05433",
        "2412.19437",
        "2310.10537",
        "2509.25149",
        "2607.24653",
        "2606.19348",
        "1910.02054",
        "2205.05198",
        "1604.06174",
        "2101.03961",
    ):
        assert f"arXiv:{arxiv}" in papers, arxiv


def test_the_tools_the_guide_describes_are_the_ones_linked(built_site):
    index = parse((built_site / "index.html").read_text(encoding="utf-8"))
    hrefs = set(_links(index))
    # half/bfloat16/float/double with the neighbours' spacing is Float Exposed (float.exposed shows the
    # "Delta to Next/Previous Representable Value"); FP8/FP6/FP4/E8M0 conversion with rounding and saturation
    # modes and error is fp-conv (sw23/fp-conv README); the playbook's Chinese translation the guide names
    for url in (
        "https://float.exposed/",
        "https://sw23.github.io/fp-conv/",
        "https://github.com/pprp/ultrascale-playbook-zh",
        "https://cloud.google.com/blog/products/ai-machine-learning/bfloat16-the-secret-to-high-performance-on-cloud-tpus",
        "https://huggingface.co/deepseek-ai/DeepSeek-V4-Pro/blob/main/DeepSeek_V4.pdf",
    ):
        assert url in hrefs, url
    assert (
        "https://evanw.github.io/float-toy/" not in hrefs
    )  # has no bfloat16 and no neighbours: not the guide's


def test_the_reading_list_cites_only_what_a_reader_can_open(built_site):
    """The list once spoke of 「章导读」 (the source document the chapter was written from, which no reader of
    the site has) as where an entry came from; it names only what a reader can open, and an unlinked entry
    says plainly that no open address was found."""
    section = " ".join(n.text() for n in _section(article(built_site / "index.html"), "延伸阅读"))
    assert "章导读" not in section
    unlinked = [
        li.text()
        for items in _entries(article(built_site / "index.html")).values()
        for li in items
        if "未链接" in li.text()
    ]
    assert unlinked and all("没能找到它能公开打开的地址" in t for t in unlinked), unlinked
