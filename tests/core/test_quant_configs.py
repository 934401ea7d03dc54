"""Real models' quantization configs in anchor-model.json, read into the block lab.

DeepSeek-V3's config names E4M3 elements, 128×128 weight blocks and dynamic activation scaling (1×128
per token, per the same README); the preset must produce exactly those schemes. Fields a stored source
did not give stay empty (V4.1)."""

from __future__ import annotations

import json

import pytest

from c9.base.errors import InputError
from c9.core import blockscale as B
from c9.core import quant_configs
from c9.figures.lesson4_fp4 import figures
from c9.views import api, block_lab


def test_deepseek_v3_facts_carry_their_source():
    c = quant_configs.configs()["deepseek-v3"]
    assert c["quantization_config"] == {
        "activation_scheme": "dynamic",
        "fmt": "e4m3",
        "quant_method": "fp8",
        "weight_block_size": [128, 128],
    }
    assert (
        c["url"].startswith("https://github.com/deepseek-ai/DeepSeek-V3/blob/")
        and "README_WEIGHTS" in c["source"]
    )


def test_no_field_without_a_source():
    """V4.1: no stored config found, so no quantization_config; every entry names where it is from."""
    cs = quant_configs.configs()
    assert cs["deepseek-v4.1"]["quantization_config"] is None
    assert all(c["source"] and c["url"].startswith("https://") for c in cs.values())
    with pytest.raises(InputError):
        quant_configs.recipe("deepseek-v4.1")


def test_deepseek_v3_preset_produces_the_scheme_its_config_names():
    r = quant_configs.recipe("deepseek-v3")
    w, a = B.get_block_format(r["weight"]), B.get_block_format(r["activation"])
    assert w.element == a.element == "float8_e4m3fn"  # fmt "e4m3"
    assert w.tile == (128, 128) and a.tile == (1, 128)  # weight_block_size, activation tile
    assert w.scale_format == a.scale_format == "float32"  # weight_scale_inv: a float32 tensor
    assert w.scale_rule == a.scale_rule == "max_over_amax"
    assert block_lab.preset_schemes("deepseek-v3") == ["deepseek_1x128", "deepseek_128x128"]
    assert block_lab.preset_schemes("all") == list(block_lab.SCHEMES)


def test_preset_follows_the_config(monkeypatch):
    """Change the config and the preset follows: the schemes are looked up, not typed."""
    real = quant_configs.configs()
    fake = json.loads(json.dumps(real))
    fake["deepseek-v3"]["quantization_config"]["weight_block_size"] = [1, 128]
    monkeypatch.setattr(quant_configs, "configs", lambda: fake)
    assert quant_configs.recipe("deepseek-v3")["weight"] == "deepseek_1x128"
    fake["deepseek-v3"]["quantization_config"]["weight_block_size"] = [64, 64]
    with pytest.raises(InputError, match="没有"):
        quant_configs.recipe("deepseek-v3")


def test_view_with_the_preset():
    out = json.loads(
        api.handle(
            json.dumps(
                {"widget": "block-lab", "params": {"preset": "deepseek-v3", "scheme": "deepseek_1x128"}}
            )
        )
    )
    v = out["view"]
    assert v["shown"] == ["deepseek_1x128", "deepseek_128x128"] and "abs_figure" in v
    bad = json.loads(api.handle(json.dumps({"widget": "block-lab", "params": {"preset": "deepseek-v9"}})))
    assert not bad["ok"] and "没有这个配方" in bad["error"]


def test_page_figures_come_from_the_config():
    f = {d["name"]: d for d in figures()}
    qc = quant_configs.configs()["deepseek-v3"]["quantization_config"]
    assert f["ds3_fmt"]["text"] == qc["fmt"] and f["ds3_weight_block"]["value"] == qc["weight_block_size"]
    assert f["ds3_weight_block_x"]["text"] == "128×128" and f["ds3_activation_tile_x"]["text"] == "1×128"
    assert f["ds4_expert_format"]["text"] == quant_configs.configs()["deepseek-v4-flash"]["expert_format"]


def test_preset_summaries_name_the_part_of_the_model():
    r = quant_configs.recipe("deepseek-v3")
    act = block_lab.view({"preset": "deepseek-v3", "scheme": r["activation"]})["summary"]
    wt = block_lab.view({"preset": "deepseek-v3", "scheme": r["weight"]})["summary"]
    assert act.startswith(f"按 {r['name']} 的配方，激活用这种缩放。") and "权重" in wt.split("。")[0]
    assert block_lab.view({"scheme": r["weight"]})["summary"] == wt.split("。", 1)[1]
