"""Material's search index (site/search/search_index.json) with its math as readable text.

The search plugin indexes the page before KaTeX renders it (tools/render_math.mjs works on the built HTML),
so every formula sits in the index as arithmatex's source, 「\\(s^2\\)」, and a search result's snippet shows
it raw. Here each formula becomes plain text a reader can scan: the delimiters go, the commands the pages
use become their symbols (\\times → ×, \\Psi → Ψ, \\frac{a}{b} → a/b), a short superscript or subscript
becomes its Unicode form (s^2 → s², log_2 → log₂) and a longer one is kept in brackets (2^(k+1)).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

INDEX = Path("search") / "search_index.json"

# \(…\) inline, \[…\] display (arithmatex's generic output); the index holds the page's HTML-escaped text.
MATH = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]", re.S)
SYMBOLS = {
    "cdot": "·",
    "times": "×",
    "Psi": "Ψ",
    "Delta": "Δ",
    "eta": "η",
    "partial": "∂",
    "top": "ᵀ",
    "lfloor": "⌊",
    "rfloor": "⌋",
    "leftarrow": "←",
    "to": "→",
    "approx": "≈",
    "le": "≤",
    "ge": "≥",
    "log": "log",
    "qquad": " ",
    "quad": " ",
    "left": "",
    "right": "",
}
SPACES = {",": " ", ";": " ", "!": "", " ": " "}  # \, \; \! \␣
SUP = dict(zip("0123456789+-=()nikT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵏᵀ"))
SUB = dict(zip("0123456789+-=()aehklmnopst", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕₖₗₘₙₒₚₛₜ"))
GROUP = r"\{((?:[^{}]|\{[^{}]*\})*)\}"  # one brace group, one level of nesting inside


def _script(body: str, table: dict, mark: str) -> str:
    body = body.strip()
    if body and all(ch in table for ch in body):
        return "".join(table[ch] for ch in body)
    return f"{mark}({body})" if len(body) > 1 else mark + body


def readable(tex: str) -> str:
    """One formula's TeX source as plain text."""
    t = re.sub(r"\^\{?\\top\}?", "ᵀ", tex)  # Q K^\top: the transpose mark
    for _ in range(3):  # nested groups: \frac{\sqrt{a}}{b}
        t = re.sub(r"\\frac" + GROUP + GROUP, lambda m: f"{m.group(1)}/{m.group(2)}", t)
        t = re.sub(
            r"\\sqrt" + GROUP, lambda m: f"√({m.group(1)})" if len(m.group(1)) > 1 else "√" + m.group(1), t
        )
        t = re.sub(r"\\hat" + GROUP, lambda m: m.group(1) + "\u0302", t)
        t = re.sub(r"\\(?:mathrm|text|mathcal|mathbf|operatorname)" + GROUP, lambda m: m.group(1), t)
    t = re.sub(r"\\([A-Za-z]+)", lambda m: SYMBOLS.get(m.group(1), m.group(1)), t)
    t = re.sub(r"\\([,;! ])", lambda m: SPACES[m.group(1)], t)
    for _ in range(2):
        t = re.sub(r"\^" + GROUP, lambda m: _script(m.group(1), SUP, "^"), t)
        t = re.sub(r"_" + GROUP, lambda m: _script(m.group(1), SUB, "_"), t)
    t = re.sub(r"\^([A-Za-z0-9])", lambda m: _script(m.group(1), SUP, "^"), t)
    t = re.sub(r"_([A-Za-z0-9])", lambda m: _script(m.group(1), SUB, "_"), t)
    t = t.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", t).strip()


def clean_text(text: str) -> str:
    """A page's indexed text with every formula made readable."""
    return MATH.sub(lambda m: readable(m.group(1) if m.group(1) is not None else m.group(2)), text)


def clean_index(site: Path) -> None:
    """Rewrites the built search index in place (no index: nothing to do)."""
    path = site / INDEX
    if not path.exists():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    for doc in index["docs"]:
        for field in ("title", "text"):
            if field in doc:
                doc[field] = clean_text(doc[field])
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
