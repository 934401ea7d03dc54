"""Every page compared against the seeds: the structure the chapter guide gives every page.

The guide (seeds, 章导读) gives each lesson, the FP4 branch and the lab a predict-first task and a
one-sentence takeaway, and names seven earlier-chapter callbacks this chapter pays off. A page that
loses its task or takeaway, or a callback that drops out of the guide page, fails here.
"""

from __future__ import annotations

import pytest
from page_text import article

PAGES = ["lesson-1", "lesson-2", "lesson-3", "lesson-4", "lesson-5", "fp4", "lab"]


@pytest.mark.parametrize("page", PAGES)
def test_every_lesson_page_has_a_predict_first_task_and_a_takeaway(built_site, page):
    root = article(built_site / page / "index.html")
    classes = [n.attrs.get("class", "") for n in root.iter()]
    tasks = [c for c in classes if "admonition" in c.split() and "task" in c.split()]
    takeaways = [
        n
        for n in root.iter()
        if n.tag == "p"
        and "admonition-title" in n.attrs.get("class", "")
        and n.text().strip() == "带走这一句"
    ]
    assert tasks, f"{page}: no predict-first task"
    assert len(takeaways) == 1, f"{page}: {len(takeaways)} takeaway boxes"


def test_the_guide_page_names_every_callback_the_chapter_guide_lists(built_site):
    text = article(built_site / "index.html").text()
    start = text.index("伏笔")
    part = text[start : start + 800]
    for chapter in (
        "C4 岔路课",
        "C5 第 2、3 课",
        "C4 第 3 课",
        "C8 第 4、5 课",
        "C0 第 4 课",
        "C6 第 1 课",
        "C3 第 8、10 课",
    ):
        assert chapter in part, chapter


def test_the_guide_gives_the_anchors_activation_in_gib_wherever_it_gives_gb(built_site):
    """The running-example paragraph read 「激活（174.5 GB）」 just under the table's 「162.5 GiB」 for the
    same tensors; a paragraph that needs GB (to compare with the weights) names the GiB figure beside it."""
    from page_text import Node

    root = article(built_site / "index.html")
    for n in root.iter():
        if n.tag in ("p", "li", "td") and any(
            isinstance(c, Node) and c.attrs.get("data-fig") == "act_anchor_gb" for c in n.iter()
        ):
            figs = {c.attrs.get("data-fig") for c in n.iter() if isinstance(c, Node)}
            assert "act_anchor" in figs, n.text()[:80]
