"""Other tools' memory formulas (c9/core/other_tools.py) against each tool's own published example, with
independent arithmetic: exact integers, and a printed figure checked as "within half a unit of its last digit"
of the exact value (so no test leans on a float's rounding)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from c9.core import other_tools as T

GiB, MiB = 2**30, 2**20


def prints_as(n_bytes, unit: int, text: str) -> bool:
    """``n_bytes / unit`` is what a tool printing ``text`` (e.g. "5.31") to that many decimals shows."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(Fraction(n_bytes) / unit - Fraction(text)) <= Fraction(1, 2 * 10**decimals)


def test_zero2_reproduces_deepspeeds_3b_example_on_one_node_of_8_gpus():
    # DeepSpeed docs, "Memory Requirements": estimate_zero2_model_states_mem_needs_all_cold(total_params=2851e6,
    # num_gpus_per_node=8, num_nodes=1) prints 127.45GB | 5.31GB (offload) and 127.45GB | 15.93GB (none),
    # GB being bytes / 2**30. The page's other pair (127.48GB, from the live t5-3b) needs the model's exact
    # parameter count, which the page does not print ("a few more params"), so only the cold call is reproduced.
    psi = 2_851_000_000
    cpu, gpu = T.zero2_model_states(psi, num_gpus_per_node=8, cpu_offload=True)
    assert gpu == 2 * psi and cpu == psi * 32 * 3 // 2  # max(4·8, 16) = 32 bytes, × 1.5
    assert prints_as(cpu, GiB, "127.45") and prints_as(gpu, GiB, "5.31")
    cpu, gpu = T.zero2_model_states(psi, num_gpus_per_node=8, cpu_offload=False)
    assert gpu == 4 * psi + 16 * psi // 8 and cpu == psi * 4 * 8 * 3 // 2
    assert prints_as(cpu, GiB, "127.45") and prints_as(gpu, GiB, "15.93")


def test_zero3_reproduces_deepspeeds_3b_example_row_by_row():
    # The same docs page: estimate_zero3_model_states_mem_needs_all_cold(total_params=2851e6,
    # largest_layer_params=32e6, num_gpus_per_node=8, num_nodes=1), its six rows in its order.
    psi, big = 2_851_000_000, 32_000_000
    printed = [
        ((True, True, True), "71.69", "0.12"),
        ((True, True, False), "127.45", "0.12"),
        ((True, False, True), "63.72", "0.78"),
        ((True, False, False), "127.45", "0.78"),
        ((False, False, True), "1.43", "6.09"),
        ((False, False, False), "127.45", "6.09"),
    ]
    for (offload, offload_params, init), cpu_text, gpu_text in printed:
        cpu, gpu, layer = T.zero3_model_states(psi, big, 8, 1, offload, offload_params, init)
        assert layer == 4 * big
        assert prints_as(cpu, GiB, cpu_text), (offload, offload_params, init)
        assert prints_as(gpu, GiB, gpu_text), (offload, offload_params, init)
    # no offload: the largest layer plus 18 bytes per parameter shared by the 8 GPUs
    assert T.zero3_model_states(psi, big, 8, 1, False, False, True)[1] == 4 * big + 18 * psi // 8


def bert_base_cased_fp32_bytes() -> int:
    """BertModel for bert-base-cased (vocab 28,996, hidden 768, 12 layers, FFN 3,072, 512 positions, 2 token
    types, with the pooler) in FP32, plus its two int64 buffers of 512 (position_ids, token_type_ids), which
    accelerate's size count includes."""
    h, ffn = 768, 3072
    embeddings = (28_996 + 512 + 2) * h + 2 * h
    layer = 4 * (h * h + h) + 2 * h + (h * ffn + ffn) + (ffn * h + h) + 2 * h
    params = embeddings + 12 * layer + (h * h + h)
    assert params == 108_310_272
    return 4 * params + 2 * 512 * 8


def test_accelerate_reproduces_its_bert_base_cased_table():
    # accelerate docs, "Model memory estimator": `accelerate estimate-memory bert-base-cased` gives float32
    # 413.18 MB total and 1.61 GB "Training using Adam", float16 206.59 MB and 826.36 MB (steps of 1024).
    total = bert_base_cased_fp32_bytes()
    assert prints_as(total, MiB, "413.18") and prints_as(total // 2, MiB, "206.59")
    assert T.accelerate_shown(total, "float32") == 4 * total  # the step: 4 × FP32 size
    assert prints_as(T.accelerate_shown(total, "float32"), GiB, "1.61")
    # float16: the largest of model 4, gradients 6, optimizer 8, step 8 bytes per parameter: not their sum
    stages = T.accelerate_training(total, "float16")
    assert stages == {
        "model": total,
        "gradients": total + total // 2,
        "optimizer": 2 * total,
        "step": 2 * total,
    }
    assert prints_as(T.accelerate_shown(total, "float16"), MiB, "826.36")
    # the docs' int8 and int4 rows (413.18 MB, 206.59 MB) are an older formula's: today's code prints N/A
    assert T.accelerate_shown(total, "int8") is None


@pytest.mark.parametrize("psi", [7_000_000_000, 27_781_427_952])
def test_hf_docs_rule_is_6_plus_4_plus_8_bytes(psi):
    # The Transformers docs give no worked example of their 18 bytes, so the rule is checked on two sizes.
    parts = T.hf_rule_of_thumb(psi)
    assert parts == {"weights": 6 * psi, "gradients": 4 * psi, "optimizer": 8 * psi}
    assert sum(parts.values()) == 18 * psi
    assert sum(T.hf_rule_of_thumb(psi, mixed=False).values()) == 16 * psi


def test_playbook_text_table_is_16_and_20_bytes_per_parameter_in_gb():
    # The Playbook's table: 1B 16 GB / 20 GB, 7B 112 / 140, 70B 1120 / 1400, 405B 6480 / 8100 (GB = 10⁹ B).
    for billions, plain, with_fp32 in [(1, 16, 20), (7, 112, 140), (70, 1120, 1400), (405, 6480, 8100)]:
        psi = billions * 10**9
        assert T.playbook_text(psi, False) == plain * 10**9
        assert T.playbook_text(psi, True) == with_fp32 * 10**9


@pytest.mark.parametrize(
    "h, L, s, v",
    [(1024, 1, 7, 30522), (4096, 32, 256, 30522)],  # the widget's presets "Llama 3 Tiny" and "Llama 3 8B"
)
def test_playbook_widget_counts_its_own_n_at_16_bytes(h, L, s, v):
    # The widget prints no example in the stored sources: its formula on its two presets' letters.
    n = h * v + h * s + L * 12 * h * h + L * 13 * h + 2 * h
    assert T.playbook_params(h, L, s, v) == n
    parts = T.playbook_widget(n)
    assert parts == {"Parameters": 2 * n, "Gradients": 2 * n, "OptimizerAverages": 12 * n}
    sharded = T.playbook_widget(n, dp=8, zero=1)
    assert sharded["OptimizerAverages"] == Fraction(12 * n, 8) and sharded["Parameters"] == 2 * n
    assert T.playbook_widget(n, mixed=False) == {
        "Parameters": 4 * n,
        "Gradients": 4 * n,
        "OptimizerAverages": 8 * n,
    }


def test_megatron_bytes_per_parameter_is_its_readmes_table():
    # Megatron-LM README (distributed optimizer): bf16 param, fp32 grads: 18 without it, 6 + 12/d with it.
    assert T.megatron_bytes_per_parameter() == 18
    for d in (1, 8, 64):
        assert T.megatron_bytes_per_parameter(True, d) == 6 + Fraction(12, d)


@pytest.mark.parametrize("psi", [8_190_735_360, 27_781_427_952])
def test_megatron_report_in_its_megabytes(psi):
    # No printed report in the stored sources: the formula on two sizes, as report_theoretical_memory divides it.
    mem = T.megatron_weight_and_optimizer(psi)
    assert mem == 18 * psi
    assert Fraction(mem) / MiB == Fraction(18 * psi, 1024 * 1024)
    assert T.megatron_weight_and_optimizer(psi, True, 8) == Fraction(15, 2) * psi


@pytest.mark.parametrize("psi", [1_000_000_007, 27_781_427_952])
@pytest.mark.parametrize("tool", list(T.PER_PARAMETER))
def test_each_split_adds_up_to_the_tools_own_formula(tool, psi):
    parts = T.split(tool, psi)
    assert list(parts) == T.ROWS
    assert sum(parts.values()) == T.own_total(tool, psi)


def test_the_per_parameter_totals_the_tools_state():
    per = {tool: sum(rows.values()) for tool, rows in T.PER_PARAMETER.items()}
    assert per == {
        "deepspeed_zero2": 20,  # 4 + 16 on one GPU
        "deepspeed_zero3": 18,
        "accelerate": 8,
        "hf_docs": 18,
        "playbook_widget": 16,
        "megatron": 18,
    }


def test_an_unknown_tool_is_refused():
    with pytest.raises(KeyError):
        T.split("nope", 1)
    with pytest.raises(KeyError):
        T.own_total("nope", 1)
