"""Every lesson ends with a pointer to what comes next, and the pointer is a link.

The last section of each lesson, 「下一个缺口」, closes with a line that starts with 「→」: on the built page it
holds a link (<a href>) to the page that follows in the site's navigation (mkdocs.yml's nav; lesson 4 may
also point past the branch to lesson 5), so a reader at the end of a lesson is one tap from the next."""

from __future__ import annotations

from pathlib import Path

import yaml
from page_text import Node, article

ROOT = Path(__file__).resolve().parents[2]


def _nav_pages() -> list[str]:
    """The site's pages in navigation order, as their directory URLs ("" for the guide)."""

    class _Loader(yaml.SafeLoader):  # mkdocs.yml carries !ENV and python tags: only nav is read here
        pass

    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    nav = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)["nav"]
    files = [next(iter(item.values())) for item in nav]
    return ["" if f == "index.md" else f.removesuffix(".md") + "/" for f in files]


def _pointer(root: Node) -> Node:
    """The 「→」 paragraph of the section 「下一个缺口」."""
    nodes = list(root.iter())
    start = next(
        i for i, n in enumerate(nodes) if n.tag == "h2" and n.text().strip().startswith("下一个缺口")
    )
    after = [n for n in nodes[start + 1 :] if n.tag in ("h2", "p")]
    section = after[: next((i for i, n in enumerate(after) if n.tag == "h2"), len(after))]
    return next(p for p in section if p.text().strip().startswith("→"))


def test_every_lessons_next_pointer_links_the_next_page(built_site):
    pages = _nav_pages()
    lessons = [p for p in pages if p and p != "lab/"]
    assert lessons == ["lesson-1/", "lesson-2/", "lesson-3/", "lesson-4/", "fp4/", "lesson-5/"]
    for page in lessons:
        pointer = _pointer(article(built_site / page / "index.html"))
        hrefs = [a.attrs.get("href", "") for a in pointer.iter() if a.tag == "a"]
        following = pages[pages.index(page) + 1]
        assert f"../{following}" in hrefs, (page, following, hrefs, pointer.text())
        assert not [s for s in pointer.iter() if s.tag == "strong" and "课" in s.text()], (
            page,
            "a lesson named in bold, not linked",
        )
