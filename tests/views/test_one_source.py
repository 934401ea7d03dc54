"""Facts stated once: the reference card's size lives in anchor-model.json (cards.default) only, and
lesson 5's model menu in c9/views/nearby.py (model_menu) only; every other place reads them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

from c9.base import units
from c9.core.models import card_bytes, load_facts
from c9.views import memory_bar, nearby, timeline

VIEWS = ROOT / "c9" / "views"


def _strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module (f-string parts too), docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
        and ast.get_docstring(node) is not None
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def test_the_reference_card_is_stated_once():
    facts = load_facts()
    assert "card" not in facts  # the default of the cards list is the chapter's reference card
    card = units.size(card_bytes(), "GB", 0)
    assert card == "80 GB"
    typed = re.compile(rf"(?<![\d.]){re.escape(card)}")
    found = [
        f"{p.name}:{i}"
        for p in VIEWS.glob("*.html")
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if typed.search(line)
    ]
    found += [f"{p.name}:{i}" for p in VIEWS.glob("*.py") for i, s in _strings(p) if typed.search(s)]
    assert not found, f"{card} typed where the card should be read (c9.core.models.card_bytes): {found}"


def test_lesson_5s_model_menu_has_one_list():
    menu = nearby.model_menu("实验课的小模型")
    assert (
        menu[-1] == ("lab", "实验课的小模型")
        and ("gpt2-1.5b-zero", load_facts()["models"]["gpt2-1.5b-zero"]["label"]) not in menu
    )
    assert [k for k, _ in nearby.model_menu(None)] == [
        k for k in load_facts()["models"] if k != "gpt2-1.5b-zero"
    ]
    for widget in (memory_bar, timeline):
        context = widget.page_context()
        assert context["model_menu"] == nearby.model_menu(context["lab_label"])
    template = (VIEWS / "_model-select.html").read_text(encoding="utf-8")
    assert "models" not in template.replace("model_menu", "")  # no second list of the models in the template
