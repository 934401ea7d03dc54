"""Lesson 5's memory bar as a training-memory estimator: the view's new parameters (config,
card, the wider s and b), the tables it shows (parameters term by term, activations by eq. 1 and by the
model's own tensors), the cards a step needs, refusals naming the key, and the answer-cache neighbours."""

from __future__ import annotations

import json
import math
from decimal import Decimal

import pytest
from conftest import ROOT
from page_text import parse, tables

from c9.base import units
from c9.core import models
from c9.core.activations import MODES, activation_memory
from c9.core.architecture import parse_config
from c9.core.model_activations import EQ1_TERMS, logits_bytes, saved_bytes, tensors
from c9.core.models import load_facts
from c9.core.param_count import param_total
from c9.views import api, formula, memory_bar, memory_tables, nearby

FACTS = load_facts()
CONFIGS = {k: m["config"] for k, m in FACTS["models"].items() if m.get("config")}
PUBLISHED = {k: m["param_total"] for k, m in FACTS["models"].items() if m.get("config") and m["param_total"]}
TINY_QWEN3 = {
    "model_type": "qwen3",
    "hidden_size": 64,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "num_hidden_layers": 2,
    "intermediate_size": 128,
    "vocab_size": 100,
}


def ask(**params):
    return json.loads(api.handle(json.dumps({"widget": "memory-bar", "params": params})))


def table_of(markup: str) -> list[list[str]]:
    (t,) = tables(parse(markup))
    return t


def amounts(rows, col):
    return [Decimal(r[col].split()[0].replace(",", "")) for r in rows]


def test_the_lessons_default_is_unchanged_and_names_no_config():
    v = memory_bar.view()
    assert v["params"]["config"] == "" and v["params"]["card"] == "h100-80gb"
    assert (
        v["activation_bytes"] == 174_483_046_400 and "162.5 GiB" in v["summary"] and "73.8%" in v["summary"]
    )
    assert "是 80 GB 单卡的 7.7 倍" in v["summary"]
    assert v["cards_needed"] == math.ceil(v["total_bytes"] / 80e9) == 8
    # the anchor has no config.json to count from: eq. 1 only, and a note saying why
    assert v["parameter_total"] is None and v["own_activation_bytes"] is None
    assert v["detail"]["params"] == "" and v["detail"]["own"] == ""
    assert "没有可引用的公开 config.json" in v["detail"]["params_note"]


@pytest.mark.parametrize("key", sorted(CONFIGS))
def test_each_shipped_config_counts_term_by_term_to_its_total(key):
    v = memory_bar.view({"model": key})
    rows = table_of(v["detail"]["params"])[1:]
    *terms, total = rows
    assert total[0] == "合计"
    shown = [int(r[3].replace(",", "")) for r in terms]
    assert (
        sum(shown)
        == int(total[3].replace(",", ""))
        == v["parameter_total"]
        == param_total(parse_config(CONFIGS[key]))
    )
    # Ψ of the bar's model states is that count (the published total where a source gives one: equal)
    assert v["states_bytes"] == 16 * v["parameter_total"]
    if key in PUBLISHED:
        assert v["parameter_total"] == PUBLISHED[key]
        assert f"与公开的总数 {units.number(PUBLISHED[key])} 一致" in v["detail"]["params_note"]


def test_llama_3_1_8b_and_its_source_link():
    v = memory_bar.view({"model": "llama-3.1-8b"})
    assert v["parameter_total"] == 8_030_261_248
    assert (
        'href="https://github.com/citsjtu2020/LLM-Prof/blob/8434c8d19c396b2f95d92a67845a7c0a0e0dd512/'
        'sglang/Model_Config.md"'
    ) in v["detail"]["source"]


def test_a_pasted_config_is_the_model_shown_whatever_the_select_says():
    text = json.dumps(CONFIGS["llama-3.1-8b"])
    pasted, shipped = (
        memory_bar.view({"config": text, "model": "lab"}),
        memory_bar.view({"model": "llama-3.1-8b"}),
    )
    assert pasted["parameter_total"] == shipped["parameter_total"] == 8_030_261_248
    assert pasted["activation_bytes"] == shipped["activation_bytes"]
    assert pasted["own_activation_bytes"] == shipped["own_activation_bytes"]
    assert pasted["params"]["recipe"] == "bf16_mixed_adamw"  # not the lab model's FP32 recipe
    assert "你给的 config.json" in pasted["detail"]["source"] and "你的配置" in pasted["summary"]
    # a blank config is no config
    assert memory_bar.view({"config": "  \n"})["summary"] == memory_bar.view()["summary"]


def test_a_tiny_pasted_config():
    v = memory_bar.view({"config": json.dumps(TINY_QWEN3), "s": 8, "b": 2})
    arch = parse_config(TINY_QWEN3)
    assert v["parameter_total"] == param_total(arch)
    ts = tensors(arch, 8, 2, "store_all", "bf16")
    assert v["own_activation_bytes"] == saved_bytes(ts) + logits_bytes(ts)
    assert v["activation_bytes"] == activation_memory(8, 2, 64, 4, 2).bytes


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("key", ["qwen3.8-27b", "gpt2-xl", "qwen3-30b-a3b", "lab"])
def test_the_eq1_table_is_the_bars_eq1_and_both_tables_add_up_as_shown(key, mode):
    v = memory_bar.view({"model": key, "mode": mode, "s": 1024, "b": 2})
    t = table_of(v["detail"]["eq1"])
    head, *rows, total = t
    assert head[3].startswith("大小（") and total[0] == "合计"
    exact = sum(r["bytes"] for r in memory_tables.eq1_rows(models.model(key), 1024, 2, mode))
    assert exact == v["activation_bytes"]  # the table is eq. 1 as the bar draws it
    # and adds up as shown, or the note under the tables says what its rows, each rounded on its own, make
    # (rows are never moved a last digit to make the total)
    note = v["detail"]["act_note"]

    def adds_up_or_says_so(rows, total, name):
        shown = sum(amounts(rows, 3))
        said = (
            f"{name}各行各自四舍五入，加起来是 {shown:,} {total[3].split()[1]}，与合计 {total[3]} 差在末位。"
        )
        assert (shown == amounts([total], 3)[0]) != (said in note), (shown, total, note)

    adds_up_or_says_so(rows, total, "按式 1 的表")
    if v["detail"]["own"]:
        head, *rows, total = table_of(v["detail"]["own"])
        adds_up_or_says_so(rows, total, "按模型自己的张量的表")
        assert len({r[3].split()[1] for r in rows + [total]}) == 1  # one unit in the column


def test_eq1_shapes_times_bytes_are_the_papers_terms():
    sizes = {"s×b×h": (1, 0), "2×s×b×h": (2, 0), "s×b×4h": (4, 0), "a×s×s×b": (0, 1)}
    for key, (_label, f_sbh, f_s2) in EQ1_TERMS.items():
        shape, bpe = memory_tables.EQ1_SHAPES[key]
        n_sbh, n_s2 = sizes[shape]
        assert (n_sbh * bpe, n_s2 * bpe) == (f_sbh, f_s2), key
    assert sum(f for _, f, _ in EQ1_TERMS.values()) == 34 and sum(f for _, _, f in EQ1_TERMS.values()) == 5


@pytest.mark.parametrize("card", [c["key"] for c in FACTS["cards"]["list"]])
def test_each_card_says_how_many_the_step_needs_and_what_does_not_fit(card):
    c = models.card(card)
    v = memory_bar.view({"model": "llama-3.1-70b", "card": card})
    n = math.ceil(v["total_bytes"] / c["memory_bytes"])
    assert v["cards_needed"] == n
    assert f"是 {units.size(c['memory_bytes'], 'GB', 0)} 单卡的" in v["summary"]
    own = math.ceil((v["states_bytes"] + v["own_activation_bytes"]) / c["memory_bytes"])
    assert f"需要 {units.number(n)} 张 {units.size(c['memory_bytes'], 'GB', 0)} 卡" in v["cards"]
    assert f"按这个模型自己的张量需要 {units.number(own)} 张" in v["cards"]
    too_big = [s["label"] for s in v["segments"] if s["bytes"] > c["memory_bytes"]]
    assert too_big and all(label in v["cards"] for label in too_big) and "单卡放不下" in v["cards"]
    # the chart's dashed line is that card
    assert f"虚线是 {units.size(c['memory_bytes'], 'GB', 0)} 单卡" in v["chart"]


def test_a_small_step_fits_on_one_card():
    v = memory_bar.view({"model": "gpt2-xl", "s": 1, "b": 1, "card": "mi355x-288gb"})
    assert (
        v["cards_needed"] == 1 and "一张 288 GB 卡就放得下" in v["cards"] and "单卡放不下" not in v["cards"]
    )


def test_s_and_b_reach_their_new_ends_and_grow_as_the_paper_says():
    lo = memory_bar.view({"s": 1, "b": 1})
    hi = memory_bar.view({"s": 1_048_576, "b": 1024})
    assert hi["params"]["s"] == 1_048_576 and hi["params"]["b"] == 1024
    assert hi["activation_bytes"] == activation_memory(1_048_576, 1024, 5120, 24, 64).bytes
    assert lo["activation_bytes"] == 64 * (34 * 5120 + 5 * 24)
    assert hi["states_bytes"] == lo["states_bytes"]  # parameters do not depend on s or b
    # linear in b for the model's own tensors too
    one, two = (memory_bar.view({"model": "qwen3-8b", "b": b, "mode": "flash"}) for b in (1, 2))
    assert two["activation_bytes"] == 2 * one["activation_bytes"]


def test_the_sliders_stops_are_powers_of_two_and_three_times_them():
    S, B = memory_bar.S_STOPS, memory_bar.B_STOPS
    assert S[0] == 1 and S[-1] == 2**20 and B[0] == 1 and B[-1] == 2**10
    assert {2**k for k in range(21)} | {3 * 2**k for k in range(19)} | {5} == set(S)
    assert {2**k for k in range(11)} | {3 * 2**k for k in range(9)} == set(B)
    assert S == sorted(S) and 4096 in S and 1 in B  # the lesson's default sits on stops


@pytest.mark.parametrize(
    "params,message",
    [
        (
            {
                "config": '{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "intermediate_size": 128, '
                '"vocab_size": 100}'
            },
            "配置里缺少「num_attention_heads」",
        ),
        (
            {"config": '{"model_type": "gpt2", "n_head": 4, "n_layer": 2, "vocab_size": 100}'},
            "配置里缺少「n_embd」",
        ),
        ({"config": '{"model_type": "bert", "hidden_size": 64}'}, "不支持的模型类型「model_type」=「bert」"),
        ({"config": '{"hidden_size": 64}'}, "配置里缺少「model_type」"),
        ({"config": "{not json"}, "不是合法的 JSON"),
        ({"config": "[1, 2]"}, "config.json 应当是一个以 { 开头的对象"),
        ({"config": 42}, "配置应当是 config.json 的文字内容"),
        ({"config": "{" + " " * models.CONFIG_MAX + "}"}, "框里的文字有 100,002 个字符，太长了"),
        ({"card": "a100-40gb"}, "没有这种卡：「a100-40gb」"),
        ({"card": 80}, "没有这种卡"),
        ({"s": 0}, "序列长度 s 要在 1 到 1,048,576 之间"),
        ({"s": "1,048,577"}, "序列长度 s 要在 1 到 1,048,576 之间"),
        ({"b": 1025}, "micro-batch 大小 b 要在 1 到 1,024 之间"),
        ({"b": "0"}, "micro-batch 大小 b 要在 1 到 1,024 之间"),
    ],
)
def test_refusals_name_the_key_in_chinese(params, message):
    out = ask(**params)
    assert out["ok"] is False and message in out["error"], out


def test_the_formula_takes_the_config_and_names_what_the_model_adds():
    assert formula.view()["beyond"].startswith("「锚点 Qwen3.8-27B」没有可引用的公开 config.json")
    b = formula.view({"model": "llama-3.1-8b"})["beyond"]
    assert b.startswith("Llama-3.1-8B 自己的代码（全存时）比式 1 多存") and "对数概率（交叉熵）" in b
    assert "旋转位置编码的 cos 和 sin" in b and "softmax 输出" in b  # added, and sized differently (FP32)
    pasted = formula.view({"config": json.dumps(CONFIGS["gpt2-xl"])})
    assert pasted["summary"] == formula.view({"model": "gpt2-xl"})["summary"].replace(
        "GPT-2 XL", "你的配置（gpt2）"
    )
    assert "位置编号" in pasted["beyond"]
    # DeepSeek-V3: what its latent attention and its router keep beyond eq. 1
    ds = {k: v["config"] for k, v in FACTS["pasted_configs"].items() if k != "about"}["deepseek-v3"]
    b = formula.view({"config": json.dumps(ds), "s": 4096, "b": 1})["beyond"]
    for name in (
        "查询潜向量归一化（q_a_layernorm）的输入（FP32）",
        "kv_b_proj 的输入（键值潜向量）",
        "路由 sigmoid 分数",
    ):
        assert name in b, name
    # three tensors for each latent's norm and each latent's projection input; the router's five, the experts' four
    assert "多出的张量里，8 种来自多头潜在注意力" in b and "9 种来自路由器和各个专家" in b
    differ = "、" + b.split("大小不同（或没有）的项：")[1].split("。")[0] + "、"
    assert (
        "、V、" in differ and "、QKᵀ 的输入 Q、K、" in differ
    )  # 128 heads of 192 (Q, K), 128 + 128 (V): not h
    assert json.loads(api.handle(json.dumps({"widget": "formula", "params": {"config": "{"}})))["ok"] is False


def test_build_cache_neighbours_stay_few_and_list_every_model_and_card():
    ctx = memory_bar.page_context()
    ns = memory_bar.neighbours(ctx)
    assert len(ns) < 100 and len({json.dumps(n, sort_keys=True) for n in ns}) == len(ns)
    assert {n["model"] for n in ns} >= set(CONFIGS) | {"qwen3.8-27b"}
    assert {n["card"] for n in ns} == {c["key"] for c in FACTS["cards"]["list"]}
    # no pasted config but the box's example (its button answers from the cache)
    assert {n["config"] for n in ns} == {"", ctx["example"]["text"]}
    # one control from the default at a time: no model × card × s cross product
    d = ns[0]
    assert all(sum(n[k] != d[k] for k in d) <= 1 for n in ns)
    for n in ns:
        assert ask(**n)["ok"], n


def test_answers_ahead_start_with_the_nearest_stops_and_leave_a_pasted_config_for_the_list():
    v = memory_bar.view({"s": 5000, "b": 7})
    near = memory_bar.nearby(v)
    # the slider sits on the stop nearest a typed value (4,096 for 5,000; 8 for 7): a key press moves it one
    # stop either way, and the stop itself is what letting go there sends
    assert [n["s"] for n in near[1:4]] == ["6144", "3072", "4096"]
    assert [n["b"] for n in near[4:7]] == ["12", "6", "8"]
    pasted = memory_bar.view({"config": json.dumps(TINY_QWEN3)})
    near = memory_bar.nearby(pasted)
    assert near[0]["config"] == pasted["params"]["config"]
    assert {n["model"] for n in near if n["config"] == ""} >= set(CONFIGS)


def test_source_links():
    assert models.source_link("https://example.org/x (a copy)") == {
        "text": "https://example.org/x",
        "url": "https://example.org/x",
    }
    assert (
        models.source_link("a/b c/d.md (commit " + "0" * 40 + "), a copy")["url"]
        == "https://github.com/a/b/blob/" + "0" * 40 + "/c/d.md"
    )
    assert (
        models.source_link("vulkomilev/oumi configs/recipes/llama3_1/README.md, section 70B")["url"]
        == "https://github.com/vulkomilev/oumi/blob/HEAD/configs/recipes/llama3_1/README.md"
    )


def test_pasted_families_count_their_own_tensors_only_where_measured():
    pasted = {k: v["config"] for k, v in FACTS["pasted_configs"].items() if k != "about"}
    phi3 = ask(config=json.dumps(pasted["phi-3-mini-4k-instruct"]), s=2048, b=1, mode="flash")["view"]
    arch = parse_config(pasted["phi-3-mini-4k-instruct"])
    assert phi3["own_activation_bytes"] == saved_bytes(tensors(arch, 2048, 1, "flash")) + logits_bytes(
        tensors(arch, 2048, 1, "flash")
    )
    assert "注意力输出的副本" in phi3["detail"]["own"]  # the copy the fused kernel's output needs
    gemma = ask(config=json.dumps(pasted["gemma-2-9b"]), s=1024)["view"]
    arch = parse_config(pasted["gemma-2-9b"])
    assert gemma["own_activation_bytes"] == sum(t.bytes for t in tensors(arch, 1024, 1, "store_all"))
    # soft-capping's two tanh outputs: a × s × s per layer (BF16) and the whole vocabulary once
    assert {"分数软上限里 tanh 的结果", "logits 软上限里 tanh 的结果"} <= {
        t.label for t in tensors(arch, 1024, 1, "store_all")
    }
    assert "logits 软上限里 tanh 的结果" in gemma["detail"]["own"]
    # Llava, Gemma 3 and Qwen2-VL with text only keep what their language model keeps (measured in
    # tests/lab/test_activation_check.py): counted, and said so
    for key in ("gemma-3-4b-it", "llava-1.5-7b", "qwen2-vl-7b-instruct"):
        v = ask(config=json.dumps(pasted[key]), b=2)["view"]
        assert v["parameter_total"] == param_total(parse_config(pasted[key]))
        ts = tensors(parse_config(pasted[key]), 4096, 2, "store_all")
        assert v["own_activation_bytes"] == saved_bytes(ts) + logits_bytes(ts), key
        assert "图像词元、视觉塔和投影层的张量都不在内" in v["detail"]["act_note"], key
    # Qwen2-VL's multimodal rotary positions give each sequence its own cos and sin (h / a = 3584 / 28 = 128),
    # where Qwen2 shares one table across the batch
    own = {t.key: t for t in tensors(parse_config(pasted["qwen2-vl-7b-instruct"]), 4096, 2, "store_all")}
    assert own["rope_cos_sin"].bytes == 2 * 2 * 4096 * 128 * 2 and "mrope" in own["rope_cos_sin"].note
    vl = ask(config=json.dumps(pasted["llava-1.5-7b"]))["view"]
    assert "视觉部分" in vl["detail"]["params_note"] and "只数语言模型" in vl["detail"]["params_note"]
    ds = ask(config=json.dumps(pasted["deepseek-v3"]), s=4096, b=1, mode="flash")["view"]
    assert "共享专家" in ds["detail"]["params_note"]
    # DeepSeek's own totals, from anchor-model.json, for a config of DeepSeek-V3's size and no other
    assert "DeepSeek 公布的总数 685B 含 MTP 的 14B，主模型是 671B。" in ds["detail"]["params_note"]
    smaller = json.loads(json.dumps(pasted["deepseek-v3"])) | {"num_hidden_layers": 60}
    assert "公布的总数" not in ask(config=json.dumps(smaller))["view"]["detail"]["params_note"]
    # DeepSeek-V3's own tensors (lab/activation_check.py measures them on two tiny models of its structure)
    arch = parse_config(pasted["deepseek-v3"])
    ts = tensors(arch, 4096, 1, "flash")
    assert ds["own_activation_bytes"] == saved_bytes(ts) + logits_bytes(ts)
    assert ds["parameter_total"] == param_total(arch)
    own = {t.key: t for t in ts}
    # per layer and token: the query latent (1,536) and key-value latent (512) with their norms, Q and K at 128
    # heads of 192, V kept as a slice of kv_b_proj's whole output (128 heads × (128 + 128)), BF16
    assert own["q_b_in"].bytes == 4096 * 1536 * 2 * 61 and own["kv_b_in"].bytes == 4096 * 512 * 2 * 61
    assert own["q"].bytes == own["k"].bytes == 4096 * 128 * 192 * 2 * 61
    assert own["v"].bytes == 4096 * 128 * 256 * 2 * 61 and own["rope_cos_sin"].elements == 2 * 4096 * 64
    assert own["router_scores"].bytes == 4096 * 256 * 4 * 58 and own["expert_in"].elements == 4096 * 8 * 7168
    for label in (
        "键值潜向量归一化（kv_a_layernorm）的 1/均方根",
        "路由 sigmoid 分数",
        "共享专家的 gate 投影的输出（激活函数的输入）",
    ):
        assert label in ds["detail"]["own"]


def test_flash_says_what_transformers_sdpa_keeps_once_s_reaches_the_sliding_window():
    mistral = {
        "model_type": "mistral",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "num_hidden_layers": 32,
        "intermediate_size": 14336,
        "vocab_size": 32000,
    }  # MistralConfig's sliding_window: 4,096 on every layer
    below = ask(config=json.dumps(mistral), s=4095, mode="flash")["view"]["detail"]["act_note"]
    assert "滑动窗口" not in below
    note = ask(config=json.dumps(mistral), s=8192, mode="flash")["view"]["detail"]["act_note"]
    # per layer a 1×8192×8192 BF16 mask (128 MiB) and K, V copied from 8 to 32 heads (2 × 24 × 8192 × 128 × 2 B)
    extra = 32 * (8192 * 8192 * 2 + 2 * 24 * 8192 * 128 * 2)
    assert extra == 7 * 2**30 and "32 个滑动窗口层" in note and "多留 7.00 GiB" in note
    assert (
        "滑动窗口"
        not in ask(config=json.dumps(mistral), s=8192, mode="store_all")["view"]["detail"]["act_note"]
    )


def test_the_menu_names_a_pasted_config_while_it_is_in_use():
    """Reviewer: the model menu still said 「锚点 Qwen3.8-27B」 while a pasted config was in use."""
    named = {**TINY_QWEN3, "_name_or_path": "someone/tiny-qwen3"}
    v = ask(model="qwen3.8-27b", config=json.dumps(named))["view"]
    assert v["menu_label"] == "正在用你的配置「someone/tiny-qwen3」"
    unnamed = ask(model="llama-3.1-8b", config=json.dumps(TINY_QWEN3))["view"]
    assert unnamed["menu_label"] == "正在用你的配置（qwen3）"
    # without a config the menu shows the list's own label for the model
    for key, label in nearby.model_menu(models.lab_label()):
        assert ask(model=key)["view"]["menu_label"] == label, key


def test_the_box_offers_a_recorded_config_as_its_example():
    """Reviewer: the box offered no example to start from. The example is a config.json anchor-model.json
    records, written out as JSON, and it counts to the model's published total."""
    ctx = memory_bar.page_context()
    example = FACTS["models"][memory_bar.EXAMPLE_MODEL]
    assert ctx["example"]["label"] == example["label"]
    assert json.loads(ctx["example"]["text"]) == example["config"]
    assert ask(config=ctx["example"]["text"])["view"]["parameter_total"] == example["param_total"]


LAB_CONFIG = json.loads((ROOT / "lab" / "config.json").read_text())


@pytest.mark.parametrize("s, b", [(4096, 1), (64, 1), (128, 2), (1 << 20, 1024)])
def test_our_model_away_from_its_training_size_says_where_it_was_trained(s, b):
    """Reviewer: choosing our model at s = 4,096 said nothing about its having been trained at s = 64.
    The oracle is lab/config.json itself (its context and the full run's batch size)."""
    trained_s, trained_b = LAB_CONFIG["model"]["context"], LAB_CONFIG["full"]["batch_size"]
    note = ask(model="lab", s=s, b=b)["view"]["model_note"]
    assert f"实验课训练和实测这个小模型时用的是 s = {trained_s}、b = {trained_b}" in note
    assert f"这里的 s = {s:,}、b = {b:,}" in note
    # a learned position table of `context` rows: beyond it the model cannot take the sequence at all
    assert (f"位置表只有 {trained_s} 行" in note) == (s > trained_s)


def test_our_model_at_its_own_size_and_models_within_their_positions_say_nothing_more():
    lab = LAB_CONFIG["model"]["context"], LAB_CONFIG["full"]["batch_size"]
    assert ask(model="lab", s=lab[0], b=lab[1])["view"]["model_note"] == ""
    n = FACTS["models"]["gpt2-xl"]["config"]["n_positions"]
    assert ask(model="gpt2-xl", s=n)["view"]["model_note"] == ""
    assert f"位置表只有 {n:,} 行" in ask(model="gpt2-xl", s=n + 1)["view"]["model_note"]
    assert ask(model="qwen3-8b", s=1 << 20)["view"]["model_note"] == ""  # rotary positions: no table
