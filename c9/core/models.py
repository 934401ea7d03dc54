"""The models the course describes, each as one :class:`Model`, and the other facts of anchor-model.json.

A model is one of anchor-model.json's (the file sits beside this package: the repository root in a checkout,
the archive root in the browser), our lab model (lab/results/c09-precision.json, when present) or a
Hugging Face config.json a reader pastes. Every view and figure reads a model through :func:`model` or
:func:`resolve` and nothing else. The cards (accelerators) the estimator sizes a step against are here too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from c9.base import paths, units
from c9.base.errors import InputError
from c9.core import lab_results
from c9.core.architecture import Architecture, lab_architecture, parse_config
from c9.core.lab_results import MeasuredRun
from c9.core.model_activations import unmodelled
from c9.core.param_count import param_total

FACTS_FILE = paths.FACTS_FILE
LAB = "lab"
LAB_LABEL = "我们的小模型（实验课，FP32）"
PASTED = "pasted"  # the key of a model read from a pasted config.json
CONFIG_MAX = 100_000  # characters: a config.json is a few KB; anything far longer is not one
#: Why a pasted text longer than CONFIG_MAX is refused ({n}: its length, with thousands separators); the
#: memory bar's script says it at once from the same words (c9/views/memory-bar.html: data-too-long).
CONFIG_TOO_LONG = "框里的文字有 {n} 个字符，太长了，不像 config.json（它一般只有几千个字符）"
PASTED_SOURCE = {"text": "你给的 config.json（粘贴或从文件读入，只在这个页面里算，不上传）", "url": None}
LAB_SOURCE = {"text": "实验课的数据文件 lab/results/c09-precision.json", "url": None}

# Where a model's parameter total Ψ comes from, as the term-by-term table names a total it checks against.
PARAM_ORIGINS = {
    "published": "公开的总数",  # a cited source gives it (anchor-model.json: param_total)
    "counted": "按配置逐项数出的总数",  # no source does: counted from the config (c9/core/param_count.py)
    "lab": "实验课数据文件记录的参数量",  # the lab counted its built model
}


@dataclass(frozen=True)
class Model:
    """One model as every view and figure describes it.

    Letters as Korthikanti et al. 2022's eq. 1 takes them: L layers, h hidden size, a attention heads; with
    head_dim, and the layers with full attention (whose scores grow as s²: 16 of the anchor's 64). ``arch``
    is what the model's config.json says (c9/core/architecture.py) where one is read, None where the model
    is known only by its published letters (the anchor: a hybrid no parser reads). A new family is a parser
    in architecture.py; its models then come here with their letters from the config.
    """

    key: str  # a key of anchor-model.json's models, LAB or PASTED
    label: str  # what a model list and a summary call it
    L: int
    h: int
    a: int
    head_dim: int
    full_attention_layers: int
    param_total: int  # Ψ, every parameter stored (all experts of an MoE model)
    param_origin: str  # a key of PARAM_ORIGINS
    arch: Architecture | None
    # why the activations are only eq. 1's estimate (and, without ``arch``, Ψ only the published total);
    # "" where the model's own tensors are counted
    why_eq1_only: str = ""
    name: str = ""  # the model's own name ("Qwen/Qwen3-8B"; a pasted config's _name_or_path)
    source: str = ""  # where the letters come from (anchor-model.json: source)
    config_source: dict | None = None  # {"text", "url"}: where ``arch``'s config comes from
    param_source: dict | None = None  # {"text", "url"}: where a published Ψ comes from
    measured: MeasuredRun | None = None  # the lab's own measurement of this model (ours only)

    @property
    def published(self) -> int | None:
        """Ψ as a source states it (or the lab counted it), to check a term-by-term count against."""
        return None if self.param_origin == "counted" else self.param_total

    @property
    def published_what(self) -> str:
        return PARAM_ORIGINS[self.param_origin]


@lru_cache(maxsize=1)
def load_facts(path: str | None = None) -> dict:
    """The parsed anchor-model.json (read with json: YAML loaders mangle numbers like 1e+20)."""
    return json.loads(Path(path or FACTS_FILE).read_text(encoding="utf-8"))


def model_keys(lab: bool = False) -> list[str]:
    """Model keys in file order; with ``lab``, LAB after them when the lab's results file is present."""
    return list(load_facts()["models"]) + ([LAB] if lab and lab_results.has_precision() else [])


@cache
def model(key: str) -> Model:
    """Model ``key``: a key of anchor-model.json (e.g. ``"qwen3.8-27b"``) or LAB. KeyError naming the known
    keys for any other (LAB too, without the lab's results file)."""
    if key == LAB and lab_results.has_precision():
        return lab_model(lab_results.precision())
    models = load_facts()["models"]
    if key not in models:
        raise KeyError(f"unknown model {key!r}; known: {', '.join(model_keys(lab=True))}")
    m = models[key]
    arch, why = None, ""
    try:
        if not m.get("config"):
            raise InputError(f"「{m['label']}」没有可引用的公开 config.json，不能逐项计数")
        arch = parse_config(m["config"])
    except InputError as e:
        why = e.message_zh + "；参数量用公开的总数，激活只按式 1 估算"
    published = m["param_total"] is not None
    return Model(
        key=key,
        label=m["label"],
        L=m["num_hidden_layers"],
        h=m["hidden_size"],
        a=m["num_attention_heads"],
        head_dim=m["head_dim"],
        full_attention_layers=m["full_attention_layers"],
        # the published total; where no source gives one, the count from the shipped config
        param_total=m["param_total"] if published else param_total(arch),
        param_origin="published" if published else "counted",
        arch=arch,
        why_eq1_only=why,
        name=m["name"],
        source=m["source"],
        config_source=source_link(m.get("config_source")) if arch else None,
        param_source=source_link(m.get("param_total_source")) if published else None,
    )


def lab_model(d: dict) -> Model:
    """Our lab model from a precision-run file ``d`` (c9.core.lab_results.precision; the committed one is
    ``model(LAB)``): the shape its accounting used, Ψ as the lab counted it, its FP32 run's snapshots."""
    f = d["accounting"]["formula_inputs"]
    arch = lab_architecture(d["model"]["config"])
    return Model(
        key=LAB,
        label=LAB_LABEL,
        L=f["L"],
        h=f["h"],
        a=f["a"],
        head_dim=arch.head_dim,
        full_attention_layers=f["L"],
        param_total=d["model"]["param_count"],
        param_origin="lab",
        arch=arch,
        why_eq1_only="我们的小模型不是 Hugging Face 的模型代码，激活只按式 1 估算（实测见实验课）",
        name=LAB,
        source="lab/results/c09-precision.json: model.param_count, accounting.formula_inputs",
        config_source=LAB_SOURCE,
        measured=lab_results.reference_run(d),
    )


def config_text(v) -> str:
    """The pasted config.json as text ("" for none). InputError for anything else or a text far too long."""
    if not isinstance(v, str):
        raise InputError("配置应当是 config.json 的文字内容")
    if len(v) > CONFIG_MAX:
        raise InputError(CONFIG_TOO_LONG.format(n=units.number(len(v))))
    return v


def pasted(config: str) -> Model:
    """The model a pasted Hugging Face config.json describes, or InputError naming what is wrong with it."""
    arch = parse_config(config)
    return Model(
        key=PASTED,
        label=f"你的配置「{arch.name}」" if arch.name else f"你的配置（{arch.wrapper or arch.family}）",
        L=arch.L,
        h=arch.h,
        a=arch.a,
        head_dim=arch.head_dim,
        full_attention_layers=arch.L,
        param_total=param_total(arch),
        param_origin="counted",
        arch=arch,
        why_eq1_only=unmodelled(arch),
        name=arch.name,
        config_source=PASTED_SOURCE,
    )


def resolve(key: str, config: str = "") -> Model:
    """The model a view shows: the one a pasted ``config`` describes when it is not blank, else model ``key``."""
    return pasted(config) if config.strip() else model(key)


def anchor() -> Model:
    """The chapter's anchor model."""
    return model(load_facts()["anchor"])


def lab_label() -> str | None:
    """The lab model's label in a model list, or None when its results file is missing (no such option)."""
    return LAB_LABEL if lab_results.has_precision() else None


def source_link(text: str | None) -> dict | None:
    """A source as the page shows it: {"text", "url"}. A URL in the text is the link; "owner/repo path
    (commit X)" becomes its GitHub address; a source with neither stays text."""
    if not text:
        return None
    url = re.search(r"https?://[^\s)]+", text)
    if url:
        return {"text": url.group(0), "url": url.group(0)}
    m = re.match(r"([\w.-]+/[\w.-]+) (\S+?)[:,]?(?= |$)(?:.*?\(commit ([0-9a-f]{40})\))?", text)
    if m:
        repo, path, commit = m.groups()
        return {
            "text": f"{repo} · {path}",
            "url": f"https://github.com/{repo}/blob/{commit or 'HEAD'}/{path}",
        }
    return {"text": text, "url": None}


# --- the cards a step is sized against ------------------------------------------------------------------


def card_bytes() -> int:
    """The reference accelerator's memory, in bytes (80 GB = 80 × 10^9 B)."""
    cards = load_facts()["cards"]
    return next(c["memory_bytes"] for c in cards["list"] if c["key"] == cards["default"])


def cards() -> list[dict]:
    """The estimator's cards (anchor-model.json: cards.list), each {"key", "label", "memory_bytes", "url", …}."""
    return load_facts()["cards"]["list"]


def card(key) -> dict:
    """A card of anchor-model.json's list, by key. InputError for any other value."""
    for c in cards():
        if c["key"] == key:
            return c
    raise InputError(f"没有这种卡：「{str(key)[:20]}」")


def card_name(c: dict) -> str:
    """'80 GB 单卡': what the summary and the chart's line call a card."""
    return f"{units.size(c['memory_bytes'], 'GB', 0)} 单卡"
