"""One description of a model (c9.core.models.Model) for every view and figure: the shipped models, our lab
model and a pasted config.json; and the core's imports pointing one way (models → architecture, param_count,
lab_results), at the top of each module."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from conftest import ROOT

from c9.base.errors import InputError
from c9.core import lab_results, models
from c9.core.param_count import param_total

CORE = ROOT / "c9" / "core"
FACTS = models.load_facts()["models"]


@pytest.mark.parametrize("key", models.model_keys())
def test_a_shipped_model_takes_its_letters_from_the_facts_and_agrees_with_its_config(key):
    m, f = models.model(key), FACTS[key]
    assert (m.key, m.label, m.L, m.h, m.a, m.head_dim, m.full_attention_layers) == (
        key,
        f["label"],
        f["num_hidden_layers"],
        f["hidden_size"],
        f["num_attention_heads"],
        f["head_dim"],
        f["full_attention_layers"],
    )
    if m.arch is not None:  # the config says the same letters the facts do
        assert (m.arch.L, m.arch.h, m.arch.a, m.arch.head_dim) == (m.L, m.h, m.a, m.head_dim)
        assert m.why_eq1_only == "" and m.config_source["url"].startswith("https://")
    else:
        assert m.why_eq1_only.endswith("；参数量用公开的总数，激活只按式 1 估算") and m.config_source is None
    if f["param_total"] is None:  # no source gives Ψ: counted from the config, nothing to check it against
        assert (m.param_origin, m.published, m.param_source) == ("counted", None, None)
        assert m.param_total == param_total(m.arch)
    else:
        assert (m.param_origin, m.published, m.published_what) == (
            "published",
            f["param_total"],
            "公开的总数",
        )
        assert m.param_total == f["param_total"]


def test_the_descriptions_hold_the_published_and_counted_totals():
    anchor = models.anchor()
    assert (anchor.key, anchor.L, anchor.h, anchor.a, anchor.head_dim, anchor.full_attention_layers) == (
        "qwen3.8-27b",
        64,
        5120,
        24,
        256,
        16,
    )
    assert anchor.param_total == 27_781_427_952 and anchor.arch is None
    assert models.model("llama-3.1-70b").param_total == 70_553_706_496  # counted term by term
    assert models.model("qwen3-30b-a3b").param_total == 30_532_122_624  # every expert counted
    with pytest.raises(KeyError, match="unknown model 'nope'"):
        models.model("nope")


@pytest.mark.skipif(not lab_results.has_precision(), reason="no lab data file")
def test_our_lab_model_is_the_labs_shape_count_and_measured_run():
    m = models.model(models.LAB)
    d = lab_results.precision()
    assert (m.L, m.h, m.a, m.head_dim, m.full_attention_layers) == (4, 256, 4, 64, 4)
    assert m.param_total == d["model"]["param_count"] == param_total(m.arch) == 3_688_704
    assert (m.param_origin, m.published, m.published_what) == ("lab", 3_688_704, "实验课数据文件记录的参数量")
    assert (m.arch.L, m.arch.h, m.arch.a) == (m.L, m.h, m.a) and m.arch.family == "lab"
    r = m.measured
    assert (r.run, r.recipe, r.s, r.b) == ("fp32", "fp32_adamw", 64, 2)
    assert [s["point"] for s in r.snapshots] == lab_results.POINTS
    assert r.at("after_build")["total"] == 4 * 3_688_704  # FP32 weights only
    assert models.lab_label() == models.LAB_LABEL and models.model_keys(lab=True)[-1] == models.LAB
    # only our model carries a measurement
    assert all(models.model(k).measured is None for k in models.model_keys())


def test_a_pasted_config_is_a_model_counted_from_its_config():
    text = json.dumps({**FACTS["llama-3.1-8b"]["config"], "_name_or_path": "meta-llama/Llama-3.1-8B"})
    m = models.resolve("qwen3.8-27b", text)
    assert (m.key, m.label, m.param_origin, m.published) == (
        models.PASTED,
        "你的配置「meta-llama/Llama-3.1-8B」",
        "counted",
        None,
    )
    assert (m.L, m.h, m.a, m.head_dim, m.full_attention_layers) == (32, 4096, 32, 128, 32)
    assert m.param_total == models.model("llama-3.1-8b").param_total == 8_030_261_248
    assert m.config_source == models.PASTED_SOURCE
    assert models.resolve("gpt2-xl", "  \n") is models.model("gpt2-xl")  # a blank paste is no paste
    with pytest.raises(InputError, match="model_type"):
        models.resolve("gpt2-xl", '{"hidden_size": 64}')


def _imports(path: Path) -> tuple[set[str], list[int]]:
    """The c9 modules a file imports at its top level, and the lines of any import inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            top |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            top |= {a.name for a in node.names}
    nested = [
        n.lineno
        for f in ast.walk(tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        for n in ast.walk(f)
        if isinstance(n, (ast.Import, ast.ImportFrom))
    ]
    return top, nested


def test_models_imports_the_architecture_one_way_at_the_top():
    """models → architecture → (errors); param_count → architecture; models → lab_results: no cycle, so no
    import has to hide inside a function."""
    for name in ("models", "architecture", "param_count", "lab_results", "model_activations"):
        top, nested = _imports(CORE / f"{name}.py")
        assert nested == [], f"c9/core/{name}.py imports inside a function at lines {nested}"
        if name != "models":
            assert not any(m.startswith("c9.core.models") for m in top), name
    top, _ = _imports(CORE / "models.py")
    assert {"c9.core.architecture", "c9.core.param_count", "c9.core.lab_results"} <= top
