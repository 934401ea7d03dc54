"""The corpus and the tokenizer: real English prose that ships with Python itself.

The corpus is the docstrings of the standard library's top-level modules (``Lib/*.py`` of the running
interpreter), read with :mod:`ast` (nothing imported, nothing downloaded). Module, class and function
docstrings are joined in file order; the files are sorted by name. The last ``val_fraction`` of the
files (by name) is held out for validation, so no validation text is seen in training.

The tokenizer is a byte-level BPE with 2,048 tokens (256 bytes + 1,792 merges), trained on the training
split only; it is deterministic (ties broken by the smallest pair).
"""

from __future__ import annotations

import ast
import collections
import functools
import hashlib
import re
import sys
import sysconfig
from pathlib import Path

WORD = re.compile(r" ?[A-Za-z]+| ?[0-9]+| ?[^A-Za-z0-9\s]+|\s+")


def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def docstrings(path: Path) -> list[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=True)
            if doc and len(doc) >= 40:
                out.append(doc.strip())
    return out


@functools.lru_cache(maxsize=4)
def load_corpus(val_fraction: float) -> dict:
    """Return {'train': str, 'val': str, 'files': n, 'train_files': n, 'sha256': hex, 'source': str}."""
    files = sorted(p for p in stdlib_dir().glob("*.py") if not p.name.startswith("_"))
    texts = [(p.name, "\n\n".join(docstrings(p))) for p in files]
    texts = [(n, t) for n, t in texts if t]
    n_val = max(1, round(len(texts) * val_fraction))
    train = "\n\n".join(t for _, t in texts[:-n_val])
    val = "\n\n".join(t for _, t in texts[-n_val:])
    digest = hashlib.sha256((train + "\x00" + val).encode()).hexdigest()
    return {
        "train": train,
        "val": val,
        "files": len(texts),
        "train_files": len(texts) - n_val,
        "val_first_file": texts[-n_val][0],
        "sha256": digest,
        "source": f"docstrings of {stdlib_dir()}/*.py (Python {sys.version.split()[0]})",
    }


class BPE:
    """Byte-level BPE: ``merges[i] = (a, b)`` makes token 256 + i."""

    def __init__(self, merges: list[tuple[int, int]]):
        self.merges = merges
        self.rank = {pair: i for i, pair in enumerate(merges)}
        self.vocab_size = 256 + len(merges)
        self._cache: dict[str, list[int]] = {}

    @classmethod
    def train(cls, text: str, vocab_size: int) -> BPE:
        counts = collections.Counter(WORD.findall(text))
        words = [list(w.encode("utf-8")) for w in counts]
        freq = list(counts.values())
        pairs: collections.Counter = collections.Counter()
        where: dict[tuple[int, int], set[int]] = collections.defaultdict(set)
        for i, w in enumerate(words):
            for p in zip(w, w[1:]):
                pairs[p] += freq[i]
                where[p].add(i)
        merges = []
        for new in range(256, vocab_size):
            if not pairs:
                break
            best = max(pairs.items(), key=lambda kv: (kv[1], (-kv[0][0], -kv[0][1])))[0]
            if pairs[best] < 2:
                break
            merges.append(best)
            for i in list(where[best]):
                w = words[i]
                for p in zip(w, w[1:]):
                    pairs[p] -= freq[i]
                    if pairs[p] <= 0:
                        del pairs[p]
                out, j = [], 0
                while j < len(w):
                    if j + 1 < len(w) and (w[j], w[j + 1]) == best:
                        out.append(new)
                        j += 2
                    else:
                        out.append(w[j])
                        j += 1
                words[i] = out
                for p in zip(out, out[1:]):
                    pairs[p] += freq[i]
                    where[p].add(i)
            where.pop(best, None)
        return cls(merges)

    def _encode_word(self, word: str) -> list[int]:
        ids = self._cache.get(word)
        if ids is not None:
            return ids
        ids = list(word.encode("utf-8"))
        while len(ids) > 1:
            ranked = [(self.rank.get(p, 1 << 30), k) for k, p in enumerate(zip(ids, ids[1:]))]
            r, k = min(ranked)
            if r == 1 << 30:
                break
            ids = ids[:k] + [256 + r] + ids[k + 2 :]
        self._cache[word] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        out: list[int] = []
        for w in WORD.findall(text):
            out.extend(self._encode_word(w))
        return out

    def decode(self, ids: list[int]) -> str:
        table = {i: bytes([i]) for i in range(256)}
        for i, (a, b) in enumerate(self.merges):
            table[256 + i] = table[a] + table[b]
        return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")
