"""A tree of named byte counts: the one shape every ledger in the course returns.

The chart, the page tables and the build's figures all read this tree, so each figure has one origin.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Item:
    """One named amount of memory.

    Attributes:
        key: stable identifier (``"adam_m"``), used by charts and tests.
        label: the Chinese name shown to readers.
        bytes: size in bytes (int). For a node with children it is their sum.
        formula: how ``bytes`` was computed, in the paper's letters.
        source: paper and equation, or spec and section.
        note: one sentence, in Chinese, on what this memory holds.
        children: the parts, in display order.
    """

    key: str
    label: str
    bytes: int
    formula: str = ""
    source: str = ""
    note: str = ""
    children: tuple[Item, ...] = field(default_factory=tuple)

    @classmethod
    def group(cls, key: str, label: str, children: list[Item], formula: str = "", source: str = "") -> Item:
        """A node whose size is the sum of its children."""
        return cls(key, label, sum(c.bytes for c in children), formula, source, children=tuple(children))

    def leaves(self) -> list[Item]:
        """The leaf items, depth first, in display order."""
        if not self.children:
            return [self]
        return [leaf for child in self.children for leaf in child.leaves()]

    def find(self, key: str) -> Item:
        """The item named ``key`` anywhere in the tree. Raises KeyError if absent."""
        if self.key == key:
            return self
        for child in self.children:
            try:
                return child.find(key)
            except KeyError:
                pass
        raise KeyError(key)

    def to_dict(self) -> dict:
        """Plain JSON-ready dict (for the worker and numbers.json)."""
        out = {
            "key": self.key,
            "label": self.label,
            "bytes": self.bytes,
            "formula": self.formula,
            "source": self.source,
            "note": self.note,
        }
        if self.children:
            out["children"] = [c.to_dict() for c in self.children]
        return out
