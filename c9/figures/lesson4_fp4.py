"""The figures lesson 4 (FP8 block scaling) and the FP4 branch lesson quote, computed by the codecs
(c9.core.formats, c9.core.blockscale) and the lessons' widgets (block_lab, mx_nv, pattern_table).

:func:`figures` returns dicts ``{"name", "value", "text", "formula", "inputs"}``; build_numbers.py
lists this module in FIGURE_MODULES. The only typed inputs are the examples the lessons chose.
"""

from __future__ import annotations

from c9.base import units
from c9.core import blockscale as B
from c9.core import formats as F
from c9.core import quant_configs
from c9.figures.codecs import MX_BLOCK, OUTLIER_BLOCK, OUTLIER_TENSOR
from c9.figures.figure import figure
from c9.views import block_lab, mx_nv, pattern_table

__all__ = ["figures"]


def _format_figures() -> list[dict]:
    e4m3, e5m2 = F.get_format("E4M3"), F.get_format("E5M2")
    t4, t5 = pattern_table.table(e4m3), pattern_table.table(e5m2)
    out = [
        figure(
            "e5m2_max",
            int(e5m2.max),
            f"{int(e5m2.max):,}",
            "最大有限值：编码 0x7B = 1.75 × 2¹⁵",
            format=e5m2.name,
        ),
        figure(
            "e4m3_min_normal",
            e4m3.min_normal,
            "2⁻⁶",
            "最小正规数 = 2^(1 − β)，指数偏置 β 为 7",
            format=e4m3.name,
        ),
        figure(
            "e4m3_min_subnormal",
            e4m3.min_subnormal,
            "2⁻⁹",
            "最小次正规数 = 2^(1 − β − p)，β 为指数偏置，p 为尾数位数",
            format=e4m3.name,
        ),
        figure(
            "e4m3_min_subnormal_decimal",
            e4m3.min_subnormal,
            units.sci(e4m3.min_subnormal, 4),
            "2⁻⁹ 写成小数",
            format=e4m3.name,
        ),
        figure(
            "e5m2_min_subnormal",
            e5m2.min_subnormal,
            "2⁻¹⁶",
            "最小次正规数 = 2^(1 − β − p)，指数偏置 β 为 15，尾数位数 p 为 2",
            format=e5m2.name,
        ),
        figure(
            "e4m3_nan_codes",
            t4["counts"]["nan"],
            str(t4["counts"]["nan"]),
            "表示 NaN 的编码个数（S.1111.111）",
            format=e4m3.name,
        ),
        figure(
            "e4m3_inf_codes",
            t4["counts"]["infinity"],
            str(t4["counts"]["infinity"]),
            "表示无穷大的编码个数",
            format=e4m3.name,
        ),
        figure(
            "e5m2_nan_codes",
            t5["counts"]["nan"],
            str(t5["counts"]["nan"]),
            "表示 NaN 的编码个数（S.11111.01–11）",
            format=e5m2.name,
        ),
        figure(
            "e5m2_inf_codes",
            t5["counts"]["infinity"],
            str(t5["counts"]["infinity"]),
            "表示无穷大的编码个数",
            format=e5m2.name,
        ),
        figure(
            "e4m3_subnormal_codes",
            t4["counts"]["subnormal"],
            str(t4["counts"]["subnormal"]),
            "次正规数的编码个数：指数字段为 0、尾数不为 0",
            format=e4m3.name,
        ),
        figure(
            "e4m3_spacing_near_1",
            F.ulp(e4m3, 1),
            f"1/{int(1 / F.ulp(e4m3, 1))}",
            "1 附近相邻两数的间距 = 2⁻³",
            format=e4m3.name,
        ),
        figure(
            "e5m2_spacing_near_1",
            F.ulp(e5m2, 1),
            f"1/{int(1 / F.ulp(e5m2, 1))}",
            "1 附近相邻两数的间距 = 2⁻²",
            format=e5m2.name,
        ),
        figure(
            "e4m3_worst_rel_error",
            F.ulp(e4m3, 1) / 2,
            units.share(F.ulp(e4m3, 1) / 2, 2),
            "最坏的相对误差 = 1 附近间距的一半 = 2⁻⁴：落在每段 [2ᵉ, 2ᵉ⁺¹) 开头处、两格正中的数",
            format=e4m3.name,
        ),
    ]
    return out


def _outlier_figures() -> list[dict]:
    whole = B.quantize(OUTLIER_TENSOR, "per_tensor_e4m3")
    block = B.quantize(OUTLIER_BLOCK, "per_tensor_e4m3")
    i, j = OUTLIER_TENSOR.index(0.01), OUTLIER_BLOCK.index(0.01)
    e4m3 = F.get_format("E4M3")
    s1, s2 = whole.scales[0][0], block.scales[0][0]
    q1, q2 = F.decode(e4m3, whole.codes[i]), F.decode(e4m3, block.codes[j])
    return [
        figure(
            "outlier_scale_per_tensor",
            s1,
            units.sci(s1, 3),
            "整张量的缩放因子 s = FP32(448 / amax)，amax = 1000",
            tensor=OUTLIER_TENSOR,
        ),
        figure(
            "outlier_scaled_per_tensor", 0.01 * s1, units.sci(0.01 * s1, 3), "缩放后的 0.01 = 0.01 × s", s=s1
        ),
        figure(
            "outlier_code_per_tensor",
            q1,
            f"{q1 / e4m3.min_subnormal:g} × 2⁻⁹ = {units.sci(q1, 6)}",
            "E4M3(0.01 · s)：落进次正规区，只能是 2⁻⁹ 的整数倍",
            code=f"0x{whole.codes[i]:02X}",
        ),
        figure(
            "outlier_dequant_per_tensor",
            whole.dequantized[i],
            units.sci(whole.dequantized[i], 4),
            "还原值 = E4M3(0.01 · s) / s",
            s=s1,
        ),
        figure(
            "outlier_scale_in_block",
            s2,
            units.sci(s2, 6),
            "块的缩放因子 s = FP32(448 / amax)；块里没有 1000，amax = 0.5",
            block=OUTLIER_BLOCK,
        ),
        figure(
            "outlier_scaled_in_block", 0.01 * s2, units.sci(0.01 * s2, 6), "缩放后的 0.01 = 0.01 × s", s=s2
        ),
        figure(
            "outlier_code_in_block",
            q2,
            units.sci(q2, 6),
            "E4M3(8.96)：正规数，[8, 16) 里间距为 1",
            code=f"0x{block.codes[j]:02X}",
        ),
        figure(
            "outlier_dequant_in_block",
            block.dequantized[j],
            units.sci(block.dequantized[j], 4),
            "还原值 = E4M3(0.01 · s) / s",
            s=s2,
        ),
        figure(
            "outlier_rel_error_0_5_per_tensor",
            whole.rel_error[OUTLIER_TENSOR.index(0.5)],
            units.share(whole.rel_error[OUTLIER_TENSOR.index(0.5)], 2),
            "v = 0.5 的相对误差 = |还原值 − v| / |v|，s = FP32(448 / 1000)",
        ),
        figure(
            "bits_per_tensor_e4m3",
            B.bits_per_element("per_tensor_e4m3"),
            f"{B.bits_per_element('per_tensor_e4m3'):g}",
            "每个数摊到的位数 = 8（整张量一个 FP32 缩放因子，摊下来可忽略）",
        ),
        figure(
            "bits_1x128",
            B.bits_per_element("deepseek_1x128"),
            f"{B.bits_per_element('deepseek_1x128'):g}",
            "每个数摊到的位数 = 8 + 32 / 128（每个 1×128 小块一个 FP32 缩放因子）",
        ),
        figure(
            "bits_128x128",
            B.bits_per_element("deepseek_128x128"),
            f"{B.bits_per_element('deepseek_128x128'):.3f}",
            "每个数摊到的位数 = 8 + 32 / 16,384（每个 128×128 块一个 FP32 缩放因子）",
        ),
    ]


def _lab_figures() -> list[dict]:
    out = [
        figure("block_lab_rows", block_lab.ROWS, str(block_lab.ROWS), "块缩放实验台的行数（token）"),
        figure("block_lab_cols", block_lab.COLS, str(block_lab.COLS), "块缩放实验台的列数（通道）"),
        figure(
            "block_lab_schemes",
            len(block_lab.SCHEMES),
            str(len(block_lab.SCHEMES)),
            "块缩放实验台比较的缩放方案个数",
        ),
        figure(
            "block_lab_seed",
            block_lab.DEFAULTS["seed"],
            str(block_lab.DEFAULTS["seed"]),
            "块缩放实验台默认张量的随机种子",
        ),
    ]
    keys = {"per_tensor_e4m3": "tensor", "deepseek_1x128": "1x128", "deepseek_128x128": "128x128"}
    for s, name in keys.items():
        v = block_lab.view({"scheme": s})
        out += [
            figure(
                f"lab_{name}_coarse",
                v["coarse"],
                f"{v['coarse']:,}",
                "相对误差大于 6.25% 的元素个数（实验台的默认张量）",
                scheme=s,
            ),
            figure(
                f"lab_{name}_coarse_share",
                v["coarse"] / v["total"],
                units.share(v["coarse"] / v["total"]),
                "误差大的元素 ÷ 元素总数",
                scheme=s,
                entries=v["total"],
            ),
            figure(
                f"lab_{name}_flushed",
                v["flushed"],
                f"{v['flushed']:,}",
                "非零却还原成 0 的元素个数",
                scheme=s,
            ),
        ]
    no_token = block_lab.view({"scheme": "deepseek_128x128", "token": False})
    no_token_1 = block_lab.view({"scheme": "deepseek_1x128", "token": False})
    out += [
        figure(
            "lab_128x128_no_token_coarse",
            no_token["coarse"],
            f"{no_token['coarse']:,}",
            "同上，去掉离群的那个 token",
            scheme="deepseek_128x128",
        ),
        figure(
            "lab_1x128_no_token_coarse",
            no_token_1["coarse"],
            f"{no_token_1['coarse']:,}",
            "同上，去掉离群的那个 token",
            scheme="deepseek_1x128",
        ),
        figure("lab_entries", no_token["total"], f"{no_token['total']:,}", "元素总数 = 行数 × 列数"),
    ]
    return out


def _config_figures() -> list[dict]:
    """DeepSeek-V3's quantization_config (anchor-model.json), as the block lab reads it."""
    src = "anchor-model.json: quantization_configs.deepseek-v3"
    c = quant_configs.configs()["deepseek-v3"]
    qc = c["quantization_config"]
    wr, wc = qc["weight_block_size"]
    ar, ac = c["activation_tile"]
    return [
        figure(
            "ds3_quant_method",
            qc["quant_method"],
            qc["quant_method"],
            f"量化方法（{src}.quantization_config.quant_method）",
        ),
        figure("ds3_fmt", qc["fmt"], qc["fmt"], f"元素格式（{src}.quantization_config.fmt）"),
        figure(
            "ds3_weight_block",
            [wr, wc],
            f"[{wr}, {wc}]",
            f"权重块的形状（{src}.quantization_config.weight_block_size）",
        ),
        figure(
            "ds3_weight_block_x",
            [wr, wc],
            f"{wr}×{wc}",
            f"权重块：行 × 列（{src}.quantization_config.weight_block_size）",
        ),
        figure(
            "ds3_activation_scheme",
            qc["activation_scheme"],
            qc["activation_scheme"],
            f"激活的缩放方式（{src}.quantization_config.activation_scheme）",
        ),
        figure(
            "ds3_activation_tile_x",
            [ar, ac],
            f"{ar}×{ac}",
            f"激活每块：每 token 的若干通道（{src}.activation_tile）",
        ),
        figure(
            "ds3_scale_dtype",
            c["scale_dtype"],
            c["scale_dtype"],
            f"每块缩放因子的存储格式（{src}.scale_dtype）",
        ),
    ] + _v4_figures()


def _v4_figures() -> list[dict]:
    """What a stored source (vLLM's docs) says of DeepSeek-V4-Flash; no config field is filled in."""
    src = "anchor-model.json: quantization_configs.deepseek-v4-flash"
    c = quant_configs.configs()["deepseek-v4-flash"]
    return [
        figure(
            "ds4_expert_format",
            c["expert_format"],
            c["expert_format"],
            f"混合专家层里专家权重的格式（{src}.expert_format）",
        ),
        figure(
            "ds4_linear_scale_format",
            c["linear_scale_format"],
            c["linear_scale_format"],
            f"FP8 线性层块缩放的存储格式（{src}.linear_scale_format）",
        ),
    ]


def _predict_figures() -> list[dict]:
    """Lesson 4's predict-first task: blocks reaching into the right half, and how many are ruined."""
    keys = {
        "per_tensor_e4m3": "tensor",
        "deepseek_1x128": "1x128",
        "deepseek_128x128": "128x128",
        "mxfp8_e4m3": "mxfp8",
        "mxfp4": "mxfp4",
        "nvfp4": "nvfp4",
    }
    out = []
    for a in block_lab.predict([block_lab.view({"scheme": s}) for s in keys]):
        k = keys[a["scheme"]]
        out += [
            figure(
                f"lab_{k}_right_blocks",
                a["blocks"],
                f"{a['blocks']:,}",
                "伸进右半边（通道 128–255）的缩放块个数",
                scheme=a["label"],
            ),
            figure(
                f"lab_{k}_right_ruined",
                a["ruined"],
                f"{a['ruined']:,}",
                "其中平均相对误差超过 6.25% 的块",
                scheme=a["label"],
            ),
        ]
    return out


def _fp4_figures() -> list[dict]:
    v = mx_nv.view({"text": ", ".join(map(str, MX_BLOCK))})
    rows = {r["value"]: r for r in v["rows"]}
    e2m1 = F.get_format("E2M1")
    out = [
        figure(
            "e2m1_of_1_75",
            F.round_value(e2m1, 1.75),
            f"{F.round_value(e2m1, 1.75):g}",
            "E2M1(1.75)：恰在 1.5 与 2 正中，取尾数为偶的一边",
            format=e2m1.name,
            x=1.75,
        ),
        figure(
            "e2m1_of_2_5",
            F.round_value(e2m1, 2.5),
            f"{F.round_value(e2m1, 2.5):g}",
            "E2M1(2.5)：恰在 2 与 3 正中，取尾数为偶的一边",
            format=e2m1.name,
            x=2.5,
        ),
        figure(
            "e2m1_of_100",
            F.round_value(e2m1, 100),
            f"{F.round_value(e2m1, 100):g}",
            "E2M1(100)：超出范围，饱和到最大值",
            format=e2m1.name,
            x=100,
        ),
        figure("e2m1_max", e2m1.max, f"{e2m1.max:g}", "最大值：编码 0x7 = 1.5 × 2²", format=e2m1.name),
        figure(
            "e2m1_distinct_values",
            len(set(F.code_points(e2m1))),
            str(len(set(F.code_points(e2m1)))),
            "16 个编码里不同的值（+0 与 −0 算一个）",
            format=e2m1.name,
        ),
        figure(
            "mx_block_scale",
            v["mx"]["scale"],
            units.sci(v["mx"]["scale"], 6),
            "MX 块的缩放 X = 2^(⌊log₂ 2.7⌋ − 2)",
            block=MX_BLOCK,
        ),
        figure(
            "nv_block_scale",
            v["nv"]["scale"],
            units.sci(v["nv"]["scale"], 6),
            "NVFP4 块的缩放 b = E4M3(amax / (6 · t))",
            block=MX_BLOCK,
        ),
        figure(
            "nv_tensor_scale",
            v["nv"]["tensor_scale"],
            units.sci(v["nv"]["tensor_scale"], 4),
            "NVFP4 整张量的缩放 t = FP32(amax / (448 · 6))",
            amax=2.7,
        ),
    ]
    for val, tag in ((0.3, "0_3"), (-1.2, "neg_1_2"), (2.7, "2_7"), (0.05, "0_05")):
        r = rows[val]
        for s in ("mx", "nv"):
            e = r[s]
            out += [
                figure(
                    f"{s}_{tag}_dequant",
                    e["dequantized"],
                    units.sci(e["dequantized"], 4),
                    "还原值 = E2M1 元素 × 缩放因子",
                    block=MX_BLOCK,
                    entry=val,
                ),
                figure(
                    f"{s}_{tag}_rel_error",
                    e["rel_error"],
                    units.error_percent(e["rel_error"]),
                    "相对误差 = |还原值 − v| / |v|",
                    block=MX_BLOCK,
                    entry=val,
                ),
            ]
    w = mx_nv.view({"text": "0.3, -1.2, 4, 0.05"})
    r = w["rows"][0]
    out += [
        figure(
            "mx_big4_scale",
            w["mx"]["scale"],
            units.sci(w["mx"]["scale"], 6),
            "MX 块的缩放 X = 2^(⌊log₂ 4⌋ − 2)",
            block=[0.3, -1.2, 4, 0.05],
        ),
        figure(
            "mx_big4_0_3_dequant",
            r["mx"]["dequantized"],
            units.sci(r["mx"]["dequantized"], 4),
            "还原值 = E2M1(0.3 / X) · X",
            X=1,
        ),
        figure(
            "mx_big4_0_3_rel_error",
            r["mx"]["rel_error"],
            units.error_percent(r["mx"]["rel_error"]),
            "相对误差 = |还原值 − 0.3| / 0.3",
        ),
        figure(
            "nv_big4_0_3_dequant",
            r["nv"]["dequantized"],
            units.sci(r["nv"]["dequantized"], 4),
            "还原值 = E2M1(0.3 / (b · t)) · b · t",
        ),
        figure(
            "nv_big4_0_3_rel_error",
            r["nv"]["rel_error"],
            units.error_percent(r["nv"]["rel_error"]),
            "相对误差 = |还原值 − 0.3| / 0.3",
        ),
    ]
    return out


def figures() -> list[dict]:
    return (
        _format_figures()
        + _outlier_figures()
        + _lab_figures()
        + _config_figures()
        + _predict_figures()
        + _fp4_figures()
    )
