"""Other memory calculators' formulas, each ported from its own code, and their numbers for a model of Ψ
parameters split into the ledger's rows.

Each function is the tool's formula as its source writes it (exact: integers and Fractions; ``int()`` where
the tool truncates), so a test can reproduce the tool's published example. :func:`split` puts each tool's
count for one GPU into the ledger's rows (16-bit weights and gradients, FP32 master weights and gradients,
Adam's m and v), which add up to that tool's own total.

Sources (the code each formula is ported from):
- DeepSpeed ZeRO estimator: ``estimate_zero2_model_states_mem_needs`` (deepspeed/runtime/zero/stage_1_and_2.py),
  ``estimate_zero3_model_states_mem_needs`` (deepspeed/runtime/zero/stage3.py); docs "Memory Requirements".
  It prints ``bytes / 2**30`` with the letters "GB".
- Hugging Face accelerate ``accelerate estimate-memory``: ``estimate_training_usage`` and ``gather_data`` /
  ``estimate_command`` (src/accelerate/commands/estimate.py): the "Training using Adam" column is the largest
  of four stages (``max(item.values())``), printed by ``convert_bytes`` in steps of 1024.
- Hugging Face Transformers docs, "GPU memory usage" (model_memory_anatomy): 18 bytes per parameter in mixed
  precision with AdamW (weights 6, gradients 4, optimizer 8), plus activations.
- The Ultra-Scale Playbook: its memory widget's ``paramGradsOpt`` (memory.js: 2n + 2n + (k + 4)n with k = 8),
  n from its own ``h(v + s) + L(12h² + 13h) + 2h``, printed by ``formatBytes`` in steps of 1024; its text's
  table (16 GB and 20 GB per billion parameters: GB = 10⁹ bytes).
- Megatron-LM ``compute_weight_and_optimizer_memory`` (megatron/training/theoretical_memory_usage.py): 18 bytes
  per parameter, or 6 + 12/d with the distributed optimizer; ``report_theoretical_memory`` divides by
  NUM_BYTES_IN_MEGABYTE = 1024 · 1024 and adds activations.
"""

from __future__ import annotations

from fractions import Fraction

DEEPSPEED_ZERO2 = (
    "https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/zero/stage_1_and_2.py"
)
DEEPSPEED_ZERO3 = "https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/zero/stage3.py"
DEEPSPEED_DOCS = "https://deepspeed.readthedocs.io/en/latest/memory.html"
ACCELERATE = "https://github.com/huggingface/accelerate/blob/main/src/accelerate/commands/estimate.py"
ACCELERATE_DOCS = "https://huggingface.co/docs/accelerate/usage_guides/model_size_estimator"
HF_DOCS = "https://huggingface.co/docs/transformers/model_memory_anatomy"
PLAYBOOK = "https://huggingface.co/spaces/nanotron/ultrascale-playbook"
MEGATRON = "https://github.com/NVIDIA/Megatron-LM/blob/main/megatron/training/theoretical_memory_usage.py"
MEGATRON_README = "https://github.com/NVIDIA/Megatron-LM/blob/main/README.md"

BUFFER_FACTOR = Fraction(3, 2)  # DeepSpeed's additional_buffer_factor default, 1.5

#: The ledger's rows a tool's count is split into, in the order the table shows them.
ROWS = ["w16", "g16", "master", "g32", "mv"]


def zero2_model_states(
    total_params: int,
    num_gpus_per_node: int = 1,
    num_nodes: int = 1,
    cpu_offload: bool = True,
    additional_buffer_factor: Fraction = BUFFER_FACTOR,
) -> tuple[int, int]:
    """(CPU bytes, GPU bytes) as DeepSpeed's estimate_zero2_model_states_mem_needs computes them."""
    total_gpus = num_nodes * num_gpus_per_node
    if cpu_offload:
        gpu_mem = 2 * total_params
        cpu_mem = total_params * max(4 * total_gpus, 16) * Fraction(additional_buffer_factor)
    else:
        gpu_mem = 4 * total_params + int(Fraction(16 * total_params, total_gpus))
        cpu_mem = total_params * 4 * num_gpus_per_node * Fraction(additional_buffer_factor)
    return int(cpu_mem), int(gpu_mem)


def zero3_model_states(
    total_params: int,
    largest_layer_params: int,
    num_gpus_per_node: int = 1,
    num_nodes: int = 1,
    cpu_offload: bool = True,
    cpu_offload_params: bool = True,
    zero_init: bool = True,
    additional_buffer_factor: Fraction = BUFFER_FACTOR,
) -> tuple[int, int, int]:
    """(CPU bytes, GPU bytes, largest layer's bytes) as DeepSpeed's estimate_zero3_model_states_mem_needs
    computes them: the largest layer is gathered whole (2-byte parameters and 2-byte gradients)."""
    total_gpus = num_nodes * num_gpus_per_node
    gpus_factor = Fraction(1, num_nodes)
    buf = Fraction(additional_buffer_factor)
    largest_layer_memory = 4 * largest_layer_params
    if cpu_offload:
        if cpu_offload_params:
            gpu_mem = largest_layer_memory
            per = 18 * gpus_factor if zero_init else max(4 * num_gpus_per_node, 18 * gpus_factor)
        else:
            gpu_mem = largest_layer_memory + int(Fraction(2 * total_params, total_gpus))
            per = 16 * gpus_factor if zero_init else max(4 * num_gpus_per_node, 16 * gpus_factor)
        cpu_mem = total_params * per * buf
    else:
        gpu_mem = largest_layer_memory + int(Fraction(18 * total_params, total_gpus))
        counted = largest_layer_params if zero_init else total_params
        cpu_mem = counted * 4 * num_gpus_per_node * buf
    return int(cpu_mem), int(gpu_mem), largest_layer_memory


def accelerate_training(fp32_bytes: int, mixed_precision: str) -> dict[str, int]:
    """accelerate's estimate_training_usage: the four stages' bytes for a model whose FP32 size is
    ``fp32_bytes``; every stage −1 for a dtype it does not estimate (int8, int4: "N/A")."""
    sizes = {"model": -1, "optimizer": -1, "gradients": -1, "step": -1}
    fp32, fp16 = fp32_bytes, fp32_bytes // 2
    if mixed_precision == "float32":
        sizes.update(model=fp32, gradients=fp32, optimizer=2 * fp32, step=4 * fp32)
    elif mixed_precision in ("float16", "bfloat16", "fp8"):
        sizes.update(model=fp32, gradients=fp32 + fp16, optimizer=2 * fp32, step=2 * fp32)
    return sizes


def accelerate_shown(fp32_bytes: int, dtype: str) -> int | None:
    """The "Training using Adam" cell of ``accelerate estimate-memory``: the largest stage, not their sum
    (None where it prints "N/A")."""
    most = max(accelerate_training(fp32_bytes, dtype).values())
    return None if most == -1 else most


def hf_rule_of_thumb(params: int, mixed: bool = True) -> dict[str, int]:
    """The Transformers docs' bytes: weights 6 (mixed: FP32 and 16-bit) or 4, gradients 4, AdamW 8."""
    return {"weights": (6 if mixed else 4) * params, "gradients": 4 * params, "optimizer": 8 * params}


def playbook_params(h: int, L: int, s: int, v: int) -> int:
    """The Playbook widget's parameter count n = h(v + s) + L(12h² + 13h) + 2h."""
    return h * (v + s) + L * (12 * h**2 + 13 * h) + 2 * h


def playbook_widget(
    n: int, k: int = 8, dp: int = 1, zero: int = 0, mixed: bool = True
) -> dict[str, Fraction]:
    """paramGradsOpt's three parts for n parameters: Parameters, Gradients, OptimizerAverages (k + 4 with
    mixed precision: the FP32 copy goes with the optimizer), divided by dp at ZeRO stages 3, 2 and 1."""
    per = 2 if mixed else 4
    k = k + 4 if mixed else k
    return {
        "Parameters": Fraction(per * n, dp if zero >= 3 else 1),
        "Gradients": Fraction(per * n, dp if zero >= 2 else 1),
        "OptimizerAverages": Fraction(k * n, dp if zero >= 1 else 1),
    }


def playbook_text(params: int, fp32_grad_acc: bool) -> int:
    """The Playbook text's table: 2 + 2 + 4 + 8 = 16 bytes per parameter, 20 with FP32 gradient accumulation."""
    return (20 if fp32_grad_acc else 16) * params


def megatron_bytes_per_parameter(
    distributed_optimizer: bool = False, data_parallel_size: int = 1
) -> Fraction:
    """compute_weight_and_optimizer_memory's bytes per parameter: 18, or 6 + 12/d distributed."""
    return Fraction(6) + Fraction(12, data_parallel_size) if distributed_optimizer else Fraction(18)


def megatron_weight_and_optimizer(
    params_on_shard: int, distributed_optimizer: bool = False, data_parallel_size: int = 1
) -> Fraction:
    """Weight and optimizer bytes of the most loaded shard (``report_theoretical_memory`` prints it / 2²⁰)."""
    return params_on_shard * megatron_bytes_per_parameter(distributed_optimizer, data_parallel_size)


#: Each tool's bytes per parameter on one GPU, in the ledger's rows (ROWS); they add up to the tool's own
#: formula (tests/core/test_other_tools.py checks it).
PER_PARAMETER: dict[str, dict[str, int]] = {
    # ZeRO-2, no offload, one GPU: 4Ψ (16-bit parameters and gradients) + 16Ψ (FP32 parameters, gradients,
    # momentum, variance: the docs' "16" breakdown)
    "deepspeed_zero2": {"w16": 2, "g16": 2, "master": 4, "g32": 4, "mv": 8},
    # ZeRO-3, no offload, one GPU: 18Ψ (the docs' "18": the 16 plus 2 for the 16-bit parameters); the
    # largest layer's 4 bytes per parameter come on top
    "deepspeed_zero3": {"w16": 2, "g16": 0, "master": 4, "g32": 4, "mv": 8},
    # the largest stage, the optimizer's 2 × FP32 size
    "accelerate": {"w16": 0, "g16": 0, "master": 0, "g32": 0, "mv": 8},
    "hf_docs": {"w16": 2, "g16": 0, "master": 4, "g32": 4, "mv": 8},
    "playbook_widget": {"w16": 2, "g16": 2, "master": 4, "g32": 0, "mv": 8},
    # BF16 parameters, FP32 gradients (main_grad), FP32 main parameters and Adam's two: the README's 18
    "megatron": {"w16": 2, "g16": 0, "master": 4, "g32": 4, "mv": 8},
}


def own_total(tool: str, params: int) -> int:
    """A tool's own count for ``params`` parameters on one GPU, from its formula (ZeRO-3 without the
    largest layer, whose size a parameter count alone does not give)."""
    if tool == "deepspeed_zero2":
        return zero2_model_states(params, cpu_offload=False)[1]
    if tool == "deepspeed_zero3":
        return zero3_model_states(params, 0, cpu_offload=False, cpu_offload_params=False)[1]
    if tool == "accelerate":
        return accelerate_shown(4 * params, "bfloat16")
    if tool == "hf_docs":
        return sum(hf_rule_of_thumb(params).values())
    if tool == "playbook_widget":
        return int(sum(playbook_widget(params).values()))
    if tool == "megatron":
        return int(megatron_weight_and_optimizer(params))
    raise KeyError(f"unknown tool {tool!r}; known: {', '.join(PER_PARAMETER)}")


def split(tool: str, params: int) -> dict[str, int]:
    """``tool``'s count for ``params`` parameters on one GPU in the ledger's rows (bytes)."""
    if tool not in PER_PARAMETER:
        raise KeyError(f"unknown tool {tool!r}; known: {', '.join(PER_PARAMETER)}")
    return {row: k * params for row, k in PER_PARAMETER[tool].items()}
