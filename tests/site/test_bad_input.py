"""Bad input for every widget that takes the reader's input, in headless Chromium, driven as a reader
would (fill + Enter, a slider moved, an option chosen) or as a tampered page would (a slider's value
set beyond its range by script, a select or radio given a value that is not among its options, 50
events in a row). Each case is a row of a table:

- the kind of bad input (empty, letters, NaN, ±inf, 1e309, 1e-400, wrong hex length, ragged tensor …);
- what the widget must show: the Chinese message Python gives for the same parameters in CPython
  (``Err``), a message of the widget's own script (``Msg``), or, where the input is valid after all
  (1e-400 rounds to 0 in a codec, a slider clamps to its end), the view Python computes (``Ok``);
- then a valid input, whose live state must again be the one Python computes (the state recovers).

Every row is checked in CPython with the parameters the widget's script sends (through c9.views.api.handle):
Python refuses each Err row with a Chinese message and answers each Ok row and each recovery. In the browser
run the rows that only a page can check: the first row of each widget's input channel (the control that
carries the bad value, and how: typed or set, keystrokes, 50 events in a row), every row whose message is
the script's own (Msg) and every row typed key by key (a number box drops what it cannot read). A browser
row also asserts: the status carries Chinese text and data-kind="error" for an error, the summary keeps
the last good state while the message shows, and no uncaught error or console error. One page per lesson
(Python boots once per page). The memory bar's state in the address: tests/site/test_url_state.py."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest
from conftest import CJK, PYTHON_TIMEOUT, new_page, python_error, python_view
from playwright.sync_api import expect


@dataclass(frozen=True)
class Err:  # Python refuses these parameters; the status shows its message
    params: dict


@dataclass(frozen=True)
class Msg:  # the widget's script refuses the input itself, with this message
    text: str


@dataclass(frozen=True)
class Said(Err):  # a number box outside its range: the script refuses it at once, in Python's words for it
    pass


@dataclass(frozen=True)
class Ok:  # valid after all: the summary shows what Python computes for these parameters
    params: dict


@dataclass(frozen=True)
class W:
    """One widget on one page: where it is, where its summary is, how it says "done"."""

    name: str
    page: str
    root: str
    summary: str = ".c9-summary"  # block-lab: the first scheme's panel (its status says when all 3 are done)


BF2 = W("bit-flipper", "lesson-2/", '[data-widget="bit-flipper"]')
RU = W("repeated-update", "lesson-2/", '[data-widget="repeated-update"]')
LS = W("loss-scale", "lesson-2/", '[data-widget="loss-scale"]')
LEDGER = W("ledger", "lesson-1/", '[data-widget="ledger"]')
BF3 = W("bit-flipper", "lesson-3/", '[data-widget="bit-flipper"]')
BF4 = W("bit-flipper", "lesson-4/", '[data-widget="bit-flipper"]')  # FP8 E4M3 / E5M2, saturating or not
BFP4 = W("bit-flipper", "fp4/", '[data-widget="bit-flipper"]')  # E2M1 / E8M0
BL = W(
    "block-lab",
    "lesson-4/",
    '[data-widget="block-lab"]',
    '.c9-bl-panel[data-scheme="per_tensor_e4m3"] .c9-bl-summary',
)
MN = W("mx-nv", "fp4/", '[data-widget="mx-nv"]')
MB = W("memory-bar", "lesson-5/", '[data-widget="memory-bar"]')
TL = W("timeline", "lesson-5/", '[data-widget="timeline"]')


@dataclass
class Case:
    w: W
    kind: str
    act: list  # actions (see `do`)
    expect: object  # Err | Msg | Ok
    recover: tuple = ()  # (actions, params): a valid input and the view it must give
    id: str = field(default="")


# ---- the widgets' parameters as their scripts send them --------------------------------------------
F2 = "float16,float32"
F3 = "float32,float16,bfloat16"


def bf2(value):
    return dict(formats=F2, source="value", value=value)


def ru(fmt="float16", w0="1", delta="1e-4", steps="1000"):
    return dict(fmt=fmt, w0=w0, delta=delta, steps=steps)


def bl(text="1, 2\n3, 4", source="typed", seed="9", channels=4, magnitude=1000, token=True):
    return dict(
        source=source,
        seed=seed,
        channels=channels,
        magnitude=magnitude,
        token=token,
        text=text,
        preset="all",
        scheme="per_tensor_e4m3",
    )


def mb(s="4096", b=1, model="qwen3.8-27b", mode="store_all", s2=False):
    return dict(model=model, s=s, b=b, mode=mode, s2_full_only=s2)


VALUE, STEPS = 'input[name="value"]', 'input[name="steps"]'
HEX16 = '.c9-bf-row[data-format="float16"] input[name="hex"]'
REC_BF2 = ([("fill", VALUE, "0.1")], bf2("0.1"))
F8, E4M3 = "float8_e4m3fn,float8_e5m2", "float8_e4m3fn"
F4, E2M1, E8M0 = "float4_e2m1fn,float8_e8m0fnu", "float4_e2m1fn", "float8_e8m0fnu"
HEX_E4M3, HEX_E2M1, HEX_E8M0 = (
    f'.c9-bf-row[data-format="{f}"] input[name="hex"]' for f in (E4M3, E2M1, E8M0)
)
REC_BF4 = (
    [("check", 'input[name="overflow"][value="default"]'), ("fill", VALUE, "464")],
    dict(formats=F8, source="value", value="464"),
)
REC_BFP4 = ([("fill", VALUE, "5")], dict(formats=F4, source="value", value="5"))
REC_RU = (
    [
        ("fill", 'input[name="w0"]', "1"),
        ("fill", 'input[name="delta"]', "1e-4"),
        ("fill", STEPS, "1000"),
        ("check", 'input[name="fmt"][value="float16"]'),
    ],
    ru(),
)
REC_LS = (
    [("select", 'select[name="source"]', "stand-in"), ("set", 'input[name="k"]', "16", ["input"])],
    dict(k=16, source="stand-in", fmt="float16"),
)
REC_LEDGER = (
    [("select", 'select[name="convention"]', "zero"), ("check", 'input[name="model"][value="qwen3-8b"]')],
    dict(model="qwen3-8b", convention="zero"),
)
GEN, TYPED, SUBMIT = (
    'input[name="source"][value="generated"]',
    'input[name="source"][value="typed"]',
    'button[type="submit"]',
)
REC_BL_TEXT = (
    [("check", TYPED), ("text", "textarea", "1, 2\n3, 4"), ("click", SUBMIT)],
    bl(),
)  # the seed box is hidden
REC_BL = (
    [("check", GEN), ("fill", 'input[name="seed"]', "9"), ("select", 'select[name="magnitude"]', "1000")]
    + REC_BL_TEXT[0],
    bl(),
)
REC_MN = ([("fill", 'input[name="text"]', "0.3, -1.2, 2.7, 0.05")], dict(text="0.3, -1.2, 2.7, 0.05"))
REC_MB = (
    [
        ("select", 'select[name="model"]', "qwen3.8-27b"),
        ("check", 'input[name="mode"][value="store_all"]'),
        ("set", 'input[name="b_stop"]', "1", ["input"]),
        ("fill", 'input[name="s"]', "8192"),
    ],
    mb(s="8192", b=2),
)
REC_TL = (
    [
        ("select", 'select[name="model"]', "qwen3-8b"),
        ("check", 'input[name="iteration"][value="2"]'),
        ("check", 'input[name="mode"][value="full_recompute"]'),
    ],
    dict(model="qwen3-8b", iteration=2, mode="full_recompute"),
)

CASES = [
    # ---- lesson 1: the ledger (model radios, parameter-count slider, convention select) ----------------
    Case(
        LEDGER,
        "slider beyond max (script)",
        [("set", 'input[name="log10_params"]', "99", ["input"])],
        Ok(dict(model="custom", log10_params=12, convention="zero")),
        REC_LEDGER,
    ),
    Case(
        LEDGER,
        "slider below min (script)",
        [("set", 'input[name="log10_params"]', "-99", ["input"])],
        Ok(dict(model="custom", log10_params=8, convention="zero")),
        REC_LEDGER,
    ),
    Case(
        LEDGER,
        "letters in a slider (script)",
        [("set", 'input[name="log10_params"]', "abc", ["input"])],
        Ok(dict(model="custom", log10_params=10, convention="zero")),
        REC_LEDGER,
    ),
    Case(
        LEDGER,
        "unknown option (script)",
        [("forge", 'select[name="convention"]', "bogus")],
        Err(dict(model="qwen3-8b", log10_params=10, convention="bogus")),
        REC_LEDGER,
    ),
    Case(
        LEDGER,
        "unknown radio value (script)",
        [("forge", 'input[name="model"]', "gpt-9")],
        Err(dict(model="gpt-9", log10_params=10, convention="zero")),
        REC_LEDGER,
    ),
    Case(
        LEDGER,
        "rapid input (50 events)",
        [("rapid", 'input[name="log10_params"]', [f"{8 + i * 0.05:.2f}" for i in range(50)], "input")],
        Ok(dict(model="custom", log10_params=10.45, convention="zero")),
        REC_LEDGER,
    ),
    # ---- lesson 2: the bit flipper (a decimal value, a hex code per format, the bits) -------------------
    Case(BF2, "empty", [("fill", VALUE, "")], Err(bf2("")), REC_BF2),
    Case(BF2, "whitespace", [("fill", VALUE, "   ")], Err(bf2("   ")), REC_BF2),
    Case(BF2, "letters", [("fill", VALUE, "abc")], Err(bf2("abc")), REC_BF2),
    Case(BF2, "mixed separators / two values", [("fill", VALUE, "1;2")], Err(bf2("1;2")), REC_BF2),
    Case(BF2, "too long", [("fill", VALUE, "1" * 61)], Err(bf2("1" * 61)), REC_BF2),
    Case(BF2, "magnitude beyond 10^±400", [("fill", VALUE, "1e401")], Err(bf2("1e401")), REC_BF2),
    Case(BF2, "NaN", [("fill", VALUE, "NaN")], Ok(bf2("NaN")), REC_BF2),  # a float can hold NaN
    Case(BF2, "nan", [("fill", VALUE, "nan")], Ok(bf2("nan")), REC_BF2),
    Case(BF2, "Infinity", [("fill", VALUE, "Infinity")], Ok(bf2("Infinity")), REC_BF2),
    Case(BF2, "-inf", [("fill", VALUE, "-inf")], Ok(bf2("-inf")), REC_BF2),
    Case(BF2, "1e309 (overflows to inf)", [("fill", VALUE, "1e309")], Ok(bf2("1e309")), REC_BF2),
    Case(BF2, "1e-400 (underflows to 0)", [("fill", VALUE, "1e-400")], Ok(bf2("1e-400")), REC_BF2),
    Case(BF2, "full-width digits", [("fill", VALUE, "－１２．５")], Ok(bf2("－１２．５")), REC_BF2),
    Case(BF2, "full-width comma", [("fill", VALUE, "70，000")], Ok(bf2("70，000")), REC_BF2),
    Case(
        BF2,
        "wrong hex length",
        [("fill", HEX16, "0x12345")],
        Err(dict(formats=F2, source="float16", code="0x12345")),
        REC_BF2,
    ),
    Case(
        BF2,
        "non-hex hex",
        [("fill", HEX16, "0xZZZZ")],
        Err(dict(formats=F2, source="float16", code="0xZZZZ")),
        REC_BF2,
    ),
    Case(BF2, "empty hex", [("fill", HEX16, "")], Err(dict(formats=F2, source="float16", code="")), REC_BF2),
    Case(
        BF2,
        "short hex (valid: 0x003C)",
        [("fill", HEX16, "0x3C")],
        Ok(dict(formats=F2, source="float16", code="0x3C")),
        REC_BF2,
    ),
    Case(
        BF2,
        "full-width hex",
        [("fill", HEX16, "０ｘ３Ｃ００")],
        Ok(dict(formats=F2, source="float16", code="0x3C00")),
        REC_BF2,
    ),
    Case(
        BF2,
        "rapid input (50 bit clicks)",
        [
            ("fill", VALUE, "1"),
            ("wait_kind", "ok"),
            ("clicks", '.c9-bf-row[data-format="float16"] .c9-bit[data-pos="0"]', 50),
        ],
        Ok(dict(formats=F2, source="float16", code="0x3C00")),
        REC_BF2,
    ),
    Case(
        BF2,
        "rapid input (51 bit clicks)",
        [
            ("fill", VALUE, "1"),
            ("wait_kind", "ok"),
            ("clicks", '.c9-bf-row[data-format="float16"] .c9-bit[data-pos="0"]', 51),
        ],
        Ok(dict(formats=F2, source="float16", code="0x3C01")),
        REC_BF2,
    ),
    # ---- lesson 2: the repeated update (format radios, w0, Δ, steps) -----------------------------------
    Case(RU, "empty", [("fill", 'input[name="w0"]', "")], Err(ru(w0="")), REC_RU),
    Case(RU, "NaN", [("fill", 'input[name="w0"]', "NaN")], Err(ru(w0="NaN")), REC_RU),
    Case(RU, "inf", [("fill", 'input[name="delta"]', "inf")], Err(ru(delta="inf")), REC_RU),
    Case(RU, "1e309", [("fill", 'input[name="w0"]', "1e309")], Err(ru(w0="1e309")), REC_RU),
    Case(RU, "1e-400", [("fill", 'input[name="delta"]', "1e-400")], Err(ru(delta="1e-400")), REC_RU),
    Case(RU, "zero step", [("fill", 'input[name="delta"]', "0")], Err(ru(delta="0")), REC_RU),
    Case(RU, "huge magnitude", [("fill", 'input[name="w0"]', "3e6")], Err(ru(w0="3e6")), REC_RU),
    Case(RU, "negative (allowed for w0)", [("fill", 'input[name="w0"]', "-5")], Ok(ru(w0="-5")), REC_RU),
    Case(RU, "full-width digits", [("fill", 'input[name="w0"]', "１．５")], Ok(ru(w0="１．５")), REC_RU),
    Case(
        RU, "letters in a number box", [("type", STEPS, "abc")], Err(ru(steps="")), REC_RU
    ),  # the box drops them
    Case(
        RU,
        "1e400 in a number box",
        [("type", STEPS, "1e400")],
        Msg("输入有误：步数读不成数字，请填 1 到 5,000 之间的整数"),
        REC_RU,
    ),
    Case(RU, "negative where not allowed", [("fill", STEPS, "-3")], Said(ru(steps="-3")), REC_RU),
    Case(RU, "beyond max", [("fill", STEPS, "5001")], Said(ru(steps="5001")), REC_RU),
    Case(RU, "not an integer", [("fill", STEPS, "2.5")], Err(ru(steps="2.5")), REC_RU),
    Case(
        RU,
        "unknown radio value (script)",
        [("forge", 'input[name="fmt"]', "float8_e4m3fn")],
        Err(ru(fmt="float8_e4m3fn")),
        REC_RU,
    ),
    Case(
        RU,
        "unknown format name (script)",
        [("forge", 'input[name="fmt"]', "float99")],
        Err(ru(fmt="float99")),
        REC_RU,
    ),
    Case(
        RU,
        "rapid input (50 events)",
        [("rapid", STEPS, [str(i) for i in range(1, 51)], "change")],
        Ok(ru(steps="50")),
        REC_RU,
    ),
    # ---- lesson 2: loss scaling (k slider, data-source select) -----------------------------------------
    Case(
        LS,
        "slider beyond max (script)",
        [("set", 'input[name="k"]', "99", ["input"])],
        Ok(dict(k=40, source="stand-in", fmt="float16")),
        REC_LS,
    ),
    Case(
        LS,
        "slider below min (script)",
        [("set", 'input[name="k"]', "-99", ["input"])],
        Ok(dict(k=0, source="stand-in", fmt="float16")),
        REC_LS,
    ),
    Case(
        LS,
        "unknown option (script)",
        [("forge", 'select[name="source"]', "bogus")],
        Err(dict(k=16, source="bogus", fmt="float16")),
        REC_LS,
    ),
    Case(
        LS,
        "rapid input (50 events)",
        [("rapid", 'input[name="k"]', [str(i % 41) for i in range(50)], "input")],
        Ok(dict(k=49 % 41, source="stand-in", fmt="float16")),
        REC_LS,
    ),
    # ---- lesson 3: the bit flipper with BF16 ------------------------------------------------------------
    Case(
        BF3,
        "wrong hex length (BF16)",
        [("fill", '.c9-bf-row[data-format="bfloat16"] input[name="hex"]', "0x3F800")],
        Err(dict(formats=F3, source="bfloat16", code="0x3F800")),
        ([("fill", VALUE, "257")], dict(formats=F3, source="value", value="257")),
    ),
    Case(
        BF3,
        "wrong hex length (FP32)",
        [("fill", '.c9-bf-row[data-format="float32"] input[name="hex"]', "0x3F80")],
        Ok(dict(formats=F3, source="float32", code="0x3F80")),  # 4 digits are a valid (tiny) FP32 code
        ([("fill", VALUE, "257")], dict(formats=F3, source="value", value="257")),
    ),
    Case(
        BF3,
        "binary code too long",
        [("fill", '.c9-bf-row[data-format="bfloat16"] input[name="hex"]', "0b" + "1" * 17)],
        Err(dict(formats=F3, source="bfloat16", code="0b" + "1" * 17)),
        ([("fill", VALUE, "257")], dict(formats=F3, source="value", value="257")),
    ),
    # ---- lesson 4 and the FP4 branch: the bit flipper in FP8 (with the overflow choice) and in E2M1 / E8M0
    Case(
        BF4,
        "wrong hex length (E4M3)",
        [("fill", HEX_E4M3, "0x123")],
        Err(dict(formats=F8, source=E4M3, code="0x123")),
        REC_BF4,
    ),
    Case(
        BF4,
        "unknown radio value (script, overflow)",
        [("forge", 'input[name="overflow"]', "clamp")],
        Err(dict(formats=F8, source="value", value="464", overflow="clamp")),
        REC_BF4,
    ),
    Case(
        BF4,
        "beyond max (valid: saturating 465)",
        [("check", 'input[name="overflow"][value="saturate"]'), ("fill", VALUE, "465")],
        Ok(dict(formats=F8, source="value", value="465", overflow="saturate")),
        REC_BF4,
    ),
    Case(
        BF4,
        "beyond max (valid: 465 is NaN)",
        [("fill", VALUE, "465")],
        Ok(dict(formats=F8, source="value", value="465")),
        REC_BF4,
    ),
    Case(
        BFP4,
        "NaN into a format without NaN (E2M1)",
        [("fill", VALUE, "NaN")],
        Err(dict(formats=F4, source="value", value="NaN")),
        REC_BFP4,
    ),
    Case(
        BFP4,
        "wrong hex length (E2M1)",
        [("fill", HEX_E2M1, "0x10")],
        Err(dict(formats=F4, source=E2M1, code="0x10")),
        REC_BFP4,
    ),
    Case(
        BFP4,
        "binary code too long (E2M1)",
        [("fill", HEX_E2M1, "0b10101")],
        Err(dict(formats=F4, source=E2M1, code="0b10101")),
        REC_BFP4,
    ),
    Case(
        BFP4,
        "wrong hex length (E8M0)",
        [("fill", HEX_E8M0, "0x100")],
        Err(dict(formats=F4, source=E8M0, code="0x100")),
        REC_BFP4,
    ),
    Case(
        BFP4,
        "negative into an unsigned format (valid: E8M0 NaN)",
        [("fill", VALUE, "-1")],
        Ok(dict(formats=F4, source="value", value="-1")),
        REC_BFP4,
    ),
    # ---- lesson 4: the block-scaling lab (typed tensor, seed, channels, magnitude) ---------------------
    Case(
        BL,
        "empty",
        [("check", TYPED), ("text", "textarea", ""), ("click", SUBMIT)],
        Err(bl(text="")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "whitespace",
        [("text", "textarea", "  \n  "), ("click", SUBMIT)],
        Err(bl(text="  \n  ")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "letters",
        [("text", "textarea", "1, abc"), ("click", SUBMIT)],
        Err(bl(text="1, abc")),
        REC_BL_TEXT,
    ),
    # NaN and ±∞ are taken (valid: OCP MX says what their block becomes; the per-tensor panel says it does not
    # quantise such a tensor)
    Case(BL, "NaN", [("text", "textarea", "1, NaN"), ("click", SUBMIT)], Ok(bl(text="1, NaN")), REC_BL_TEXT),
    Case(BL, "nan", [("text", "textarea", "nan"), ("click", SUBMIT)], Ok(bl(text="nan")), REC_BL_TEXT),
    Case(
        BL,
        "-Infinity",
        [("text", "textarea", "-Infinity, 1"), ("click", SUBMIT)],
        Ok(bl(text="-Infinity, 1")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "NaN beside a number beyond FP32",
        [("text", "textarea", "NaN, 1e39"), ("click", SUBMIT)],
        Err(bl(text="NaN, 1e39")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "1e309",
        [("text", "textarea", "1e309, 1"), ("click", SUBMIT)],
        Err(bl(text="1e309, 1")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "huge magnitude (beyond FP32)",
        [("text", "textarea", "1e300, 1"), ("click", SUBMIT)],
        Err(bl(text="1e300, 1")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "1e-400 (underflows in E4M3)",
        [("text", "textarea", "1e-400, 1"), ("click", SUBMIT)],
        Ok(bl(text="1e-400, 1")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "tiny magnitude (flushed to 0)",
        [("text", "textarea", "1e-45, 1"), ("click", SUBMIT)],
        Ok(bl(text="1e-45, 1")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "ragged tensor",
        [("text", "textarea", "1, 2\n3"), ("click", SUBMIT)],
        Err(bl(text="1, 2\n3")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "oversized tensor (65 rows)",
        [("text", "textarea", "\n".join(["1, 2"] * 65)), ("click", SUBMIT)],
        Err(bl(text="\n".join(["1, 2"] * 65))),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "oversized tensor (513 columns)",
        [("text", "textarea", ", ".join(["1"] * 513)), ("click", SUBMIT)],
        Err(bl(text=", ".join(["1"] * 513))),
        REC_BL_TEXT,
    ),
    Case(BL, "a single value", [("text", "textarea", "7"), ("click", SUBMIT)], Ok(bl(text="7")), REC_BL_TEXT),
    Case(
        BL,
        "mixed and full-width separators",
        [("text", "textarea", "[1，2、3 4]; [５, －６、7 8]"), ("click", SUBMIT)],
        Ok(bl(text="[1，2、3 4]; [５, －６、7 8]")),
        REC_BL_TEXT,
    ),
    Case(
        BL,
        "letters in the seed box",
        [("check", GEN), ("type", 'input[name="seed"]', "abc")],
        Err(bl(source="generated", seed="")),
        REC_BL,
    ),
    Case(
        BL,
        "1e400 in the seed box",
        [("check", GEN), ("type", 'input[name="seed"]', "1e400")],
        Msg("输入有误：随机种子读不成数字，请填 0 到 1,000,000,000 之间的整数"),
        REC_BL,
    ),
    Case(
        BL,
        "huge seed",
        [("check", GEN), ("fill", 'input[name="seed"]', "9" * 40)],
        Err(bl(source="generated", seed="9" * 40)),
        REC_BL,
    ),
    Case(
        BL,
        "negative seed",
        [("check", GEN), ("fill", 'input[name="seed"]', "-1")],
        Said(bl(source="generated", seed="-1")),
        REC_BL,
    ),
    Case(
        BL,
        "unknown option (script)",
        [("forge", 'select[name="magnitude"]', "5")],
        Err(bl(magnitude=5)),
        REC_BL,
    ),
    Case(
        BL,
        "unknown radio value (script)",
        [("forge", 'input[name="source"]', "bogus")],
        Err(bl(source="bogus")),
        REC_BL,
    ),
    Case(
        BL,
        "slider beyond max (script)",
        [("check", GEN), ("set", 'input[name="channels"]', "99", ["input"])],
        Ok(bl(source="generated", channels=8)),
        REC_BL,
    ),
    Case(
        BL,
        "rapid input (50 events)",
        [("check", GEN), ("rapid", 'input[name="channels"]', [str((i + 3) % 9) for i in range(50)], "input")],
        Ok(bl(source="generated", channels=7)),
        REC_BL,
    ),
    # ---- FP4: MXFP4 against NVFP4 on a typed block -------------------------------------------------------
    Case(MN, "empty", [("fill", 'input[name="text"]', "")], Err(dict(text="")), REC_MN),
    Case(MN, "whitespace", [("fill", 'input[name="text"]', "  ,  ")], Err(dict(text="  ,  ")), REC_MN),
    Case(MN, "letters", [("fill", 'input[name="text"]', "0.3, abc")], Err(dict(text="0.3, abc")), REC_MN),
    Case(MN, "NaN", [("fill", 'input[name="text"]', "NaN, 1")], Err(dict(text="NaN, 1")), REC_MN),
    Case(MN, "inf", [("fill", 'input[name="text"]', "1, inf")], Err(dict(text="1, inf")), REC_MN),
    Case(MN, "1e309", [("fill", 'input[name="text"]', "1e309")], Err(dict(text="1e309")), REC_MN),
    Case(
        MN,
        "huge magnitude (beyond FP32)",
        [("fill", 'input[name="text"]', "3.5e38, 1")],
        Err(dict(text="3.5e38, 1")),
        REC_MN,
    ),
    # read exactly (c9/base/typed.py): 1e-400 is not 0 before quantising; it becomes 0 in E2M1, and the view says so
    Case(
        MN,
        "1e-400 alone (underflows in the format)",
        [("fill", 'input[name="text"]', "1e-400")],
        Ok(dict(text="1e-400")),
        REC_MN,
    ),
    Case(
        MN,
        "1e-400 beside 1",
        [("fill", 'input[name="text"]', "1e-400, 1")],
        Ok(dict(text="1e-400, 1")),
        REC_MN,
    ),
    Case(
        MN, "tiny magnitude", [("fill", 'input[name="text"]', "1e-45, 1")], Ok(dict(text="1e-45, 1")), REC_MN
    ),
    Case(
        MN,
        "too many values",
        [("fill", 'input[name="text"]', ", ".join(["1"] * 17))],
        Err(dict(text=", ".join(["1"] * 17))),
        REC_MN,
    ),
    Case(MN, "a single value", [("fill", 'input[name="text"]', "5")], Ok(dict(text="5")), REC_MN),
    Case(
        MN,
        "full-width digits and commas",
        [("fill", 'input[name="text"]', "０．３，－１．２、２．７；０．０５")],
        Ok(dict(text="０．３，－１．２、２．７；０．０５")),
        REC_MN,
    ),
    Case(
        MN,
        "rapid input (50 events)",
        [("rapid", 'input[name="text"]', [f"0.3, {i}" for i in range(1, 51)], "input")],
        Ok(dict(text="0.3, 50")),
        REC_MN,
    ),
    # ---- lesson 5: the memory bar (typed s, sliders, model select, mode radios) -------------------------
    Case(MB, "s below min", [("fill", 'input[name="s"]', "0")], Said(mb(s="0", b=2)), REC_MB),
    Case(MB, "s not an integer", [("fill", 'input[name="s"]', "4096.5")], Err(mb(s="4096.5", b=2)), REC_MB),
    Case(MB, "s beyond max", [("fill", 'input[name="s"]', "1e7")], Said(mb(s="1e7", b=2)), REC_MB),
    Case(MB, "negative s", [("fill", 'input[name="s"]', "-5")], Said(mb(s="-5", b=2)), REC_MB),
    Case(
        MB,
        "1e400 in the s box",
        [("type", 'input[name="s"]', "1e400")],
        Msg("输入有误：序列长度 s 读不成数字，请填 1 到 1,048,576 之间的整数"),
        REC_MB,
    ),
    # (b's and s's sliders run over their stops: a value beyond the last is the last stop, b = 1,024, s = 2²⁰)
    Case(
        MB,
        "batch slider beyond max (script)",
        [("set", 'input[name="b_stop"]', "99", ["input"])],
        Ok(mb(s="8192", b="1024")),
        REC_MB,
    ),
    Case(
        MB,
        "s slider beyond max (script)",
        [("set", 'input[name="s_stop"]', "999", ["input"])],
        Ok(mb(s="1048576", b=2)),
        REC_MB,
    ),
    Case(
        MB,
        "unknown model (script)",
        [("forge", 'select[name="model"]', "gpt-9")],
        Err(mb(s="8192", b=2, model="gpt-9")),
        REC_MB,
    ),
    Case(
        MB,
        "unknown mode (script)",
        [("forge", 'input[name="mode"]', "zip")],
        Err(mb(s="8192", b=2, mode="zip")),
        REC_MB,
    ),
    Case(
        MB,
        "rapid input (50 events)",
        [("rapid", 'input[name="b_stop"]', [str((i + 3) % 6) for i in range(50)], "input")],
        Ok(mb(s="8192", b=6)),
        REC_MB,
    ),  # the last, i = 49: stop 52 mod 6 = 4 of 1, 2, 3, 4, 6, 8
    # ---- lesson 5: the timeline (model select, iteration and mode radios) ------------------------------
    Case(
        TL,
        "unknown model (script)",
        [("forge", 'select[name="model"]', "gpt-9")],
        Err(dict(model="gpt-9", iteration=2, mode="full_recompute")),
        REC_TL,
    ),
    Case(
        TL,
        "iteration out of range (script)",
        [("forge", 'input[name="iteration"]', "3")],
        Err(dict(model="qwen3-8b", iteration=3, mode="full_recompute")),
        REC_TL,
    ),
    Case(
        TL,
        "letters as an iteration (script)",
        [("forge", 'input[name="iteration"]', "abc")],
        Err(dict(model="qwen3-8b", iteration=None, mode="full_recompute")),
        REC_TL,
    ),
    Case(
        TL,
        "a mode the timeline does not have (script)",
        [("forge", 'input[name="mode"]', "selective")],
        Err(dict(model="qwen3-8b", iteration=2, mode="selective")),
        REC_TL,
    ),
    Case(
        TL,
        "rapid input (50 events)",
        [("rapid", 'input[name="iteration"][value="1"]', ["1"] * 50, "input")],
        Ok(dict(model="qwen3-8b", iteration=1, mode="full_recompute")),
        REC_TL,
    ),
]
for c in CASES:
    c.id = f"{c.w.name}@{c.w.page.strip('/')}: {c.kind}"

VALUE_VERBS = {"fill", "text", "type", "set", "forge", "rapid", "clicks"}  # the actions that carry a value


def channel(c: Case) -> tuple:
    """The widget's control that carries the row's bad value, and how it is driven."""
    verb, sel, *_ = [a for a in c.act if a[0] in VALUE_VERBS][-1]
    return c.w, verb if verb in ("type", "rapid", "clicks") else "value", sel


def browser_rows(cases: list[Case]) -> list[Case]:
    """The rows a page must run: the first of each channel, the script's own messages (Msg, Said), keystrokes."""
    seen, out = set(), []
    for c in cases:
        if channel(c) not in seen or isinstance(c.expect, (Msg, Said)) or channel(c)[1] == "type":
            seen.add(channel(c))
            out.append(c)
    return out


BROWSER_CASES = browser_rows(CASES)


# ---- driving the page --------------------------------------------------------------------------------
def do(page, root, action):
    """One reader (or script) action on a control inside the widget's root."""
    verb, sel, *args = action
    if verb == "wait_kind":
        expect(root.locator(".c9-status")).to_have_attribute("data-kind", sel, timeout=PYTHON_TIMEOUT)
        return
    loc = root.locator(sel).first
    if verb == "fill":  # type and commit with Enter
        loc.fill(args[0])
        loc.press("Enter")
    elif verb == "text":  # type only (a textarea: Enter would add a line)
        loc.fill(args[0])
    elif verb == "type":  # keystrokes (a number box drops what it cannot read)
        loc.click()
        loc.press("Control+a")
        page.keyboard.type(args[0])
        loc.press("Enter")
    elif verb == "click":
        loc.click()
    elif verb == "check":
        loc.check()
    elif verb == "select":
        loc.select_option(args[0])
    elif verb == "set":  # a value set by script, then the events a reader's move fires
        loc.evaluate(
            "(el, [v, evs]) => { el.value = v; for (const e of evs) el.dispatchEvent(new Event(e, {bubbles: true})); }",
            [args[0], args[1]],
        )
    elif verb == "forge":  # a select option or radio value that the page does not offer
        loc.evaluate(
            """(el, v) => {
            let pick;
            if (el.tagName === "SELECT") { pick = new Option("伪造的选项", v); el.append(pick); pick.selected = true; pick = el; }
            else { pick = Object.assign(document.createElement("input"), { type: "radio", name: el.name, value: v, hidden: true });
                   el.after(pick); pick.checked = true; }
            pick.dispatchEvent(new Event("input", {bubbles: true})); pick.dispatchEvent(new Event("change", {bubbles: true}));
        }""",
            args[0],
        )
    elif verb == "rapid":  # 50 events without waiting for Python; the last one must win
        values, event = args
        loc.evaluate(
            """(el, [vs, ev]) => { for (const v of vs) {
            if (el.type === "radio") el.checked = true; else el.value = v;
            el.dispatchEvent(new Event(ev, {bubbles: true})); } }""",
            [values, event],
        )
        assert len(values) == 50
    elif verb == "clicks":  # n clicks in one task
        loc.evaluate("(el, n) => { for (let i = 0; i < n; i++) el.click(); }", args[0])
    else:
        raise ValueError(verb)


def expected_summary(w: W, params: dict) -> str:
    return python_view(w.name, **params)["summary"]


def clear_status(root):
    root.locator(".c9-status").evaluate("el => { el.textContent = ''; el.dataset.kind = ''; }")


def check(page, root, w: W, want, *, prefix: str = "输入有误："):
    status, summary = root.locator(".c9-status"), root.locator(w.summary)
    if isinstance(want, Ok):
        expect(summary).to_have_text(expected_summary(w, want.params), timeout=PYTHON_TIMEOUT)
        expect(status).to_have_attribute("data-kind", "ok", timeout=PYTHON_TIMEOUT)
        return
    before = summary.text_content()
    text = want.text if isinstance(want, Msg) else prefix + python_error(w.name, **want.params)
    expect(status).to_have_attribute("data-kind", "error", timeout=PYTHON_TIMEOUT)
    expect(status).to_contain_text(text)
    assert CJK.search(status.text_content())
    expect(summary).to_have_text(before)  # the last good state stays while the message shows…
    expect(root).to_have_attribute("data-stale", "")  # …faded, so it is not read as the answer to this input
    expect(summary).to_have_css("opacity", "0.45")


class Pages:
    """One open page at a time (the cases are grouped by page), each watched for uncaught errors."""

    def __init__(self, ctx, base):
        self.ctx, self.base, self.page, self.path = ctx, base, None, None

    def open(self, path):
        if path != self.path:
            if self.page:
                self.page.close()
            pg = self.ctx.new_page()
            pg.errors = []
            pg.on("pageerror", lambda e: pg.errors.append(f"pageerror: {e}"))
            pg.on("console", lambda m: m.type == "error" and pg.errors.append(f"console: {m.text}"))
            pg.goto(self.base + path)
            self.page, self.path = pg, path
        return self.page


@pytest.fixture(scope="module")
def pages(browser, site_server):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    yield Pages(ctx, site_server.url)
    ctx.close()


def test_the_table_covers_at_least_20_kinds_and_every_widget_with_input():
    kinds = {c.kind.split(" (")[0] for c in CASES}
    assert len(kinds) >= 20, sorted(kinds)
    assert {c.w.name for c in CASES} == {
        "ledger",
        "bit-flipper",
        "repeated-update",
        "loss-scale",
        "block-lab",
        "mx-nv",
        "memory-bar",
        "timeline",
    }
    # every channel of every widget has a row in the browser
    assert {channel(c) for c in BROWSER_CASES} == {channel(c) for c in CASES}
    assert 40 <= len(BROWSER_CASES) < len(CASES) / 2


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_python_refuses_each_error_row_and_answers_each_valid_one(case: Case):
    """The parameters as the widget's script sends them: an Err row is refused with a Chinese message (no
    exception name), an Ok row has a view; the recovery's parameters always have one."""
    if isinstance(case.expect, Err):
        python_error(case.w.name, **case.expect.params)
    if isinstance(case.expect, Ok):
        assert CJK.search(expected_summary(case.w, case.expect.params))
    assert CJK.search(expected_summary(case.w, case.recover[1]))


def test_the_browser_rows_are_picked_by_channel():
    rows = {c.id for c in BROWSER_CASES}
    assert (
        "bit-flipper@lesson-2: empty" in rows and "bit-flipper@lesson-2: letters" not in rows
    )  # one channel
    assert "bit-flipper@lesson-2: wrong hex length" in rows  # another box of the same widget
    assert {
        "repeated-update@lesson-2: letters in a number box",
        "repeated-update@lesson-2: 1e400 in a number box",
    } <= rows


TEXT_ENTRY = "el => el.matches('textarea, input[type=text], input[type=number], input:not([type])')"


def refused_in_a_box(case: Case, box) -> bool:
    """A refusal of what the reader typed into a box: the widget or Python refused it (not a value a
    script forged into a select or slider)."""
    typed_in = case.act[-1][0] in ("fill", "type") or (
        case.act[-1][0] == "click" and any(a[0] == "text" for a in case.act)
    )
    return not isinstance(case.expect, Ok) and typed_in and box.evaluate(TEXT_ENTRY)


@pytest.mark.parametrize("case", BROWSER_CASES, ids=lambda c: c.id)
def test_bad_input(pages, case: Case):
    page = pages.open(case.w.page)
    root = page.locator(case.w.root).first
    root.scroll_into_view_if_needed()
    # an input typed before the widget's script is listening does nothing
    expect(root).to_have_attribute("data-mounted", "yes", timeout=PYTHON_TIMEOUT)
    page.errors.clear()
    clear_status(root)
    for action in case.act:
        do(page, root, action)
    check(page, root, case.w, case.expect)
    box = root.locator(channel(case)[2]).first
    if refused_in_a_box(case, box):
        # the box that holds the refused value is marked for assistive technology (and drawn so)…
        expect(box).to_have_attribute("aria-invalid", "true")
        expect(box).to_have_css("border-left-width", "2px")  # drawn so over the widget's own box style
        # …and names the message that says why: a screen reader reads it with the box
        said = box.get_attribute("aria-describedby")
        assert said and said.startswith("c9-message-"), said
        expect(page.locator(f"#{said}")).to_contain_text("输入有误：")
        expect(page.locator(f"#{said}")).to_have_attribute("data-kind", "error")
    # a valid input brings back a live state that Python computed
    actions, params = case.recover
    clear_status(root)
    for action in actions:
        do(page, root, action)
    check(page, root, case.w, Ok(params))
    expect(box).not_to_have_attribute("aria-invalid", "true")
    expect(box).not_to_have_attribute("aria-describedby", re.compile(r"^c9-message-"))
    assert page.errors == []


def test_formula_follows_the_memory_bar_to_our_small_model(pages):
    page = pages.open("lesson-5/")  # the page of the last cases above: Python is up already
    bar, formula = page.locator(MB.root), page.locator('[data-widget="formula"]')
    if not bar.locator('select[name="model"] option[value="lab"]').count():
        pytest.skip("no lab data file: the small model is not offered")
    bar.scroll_into_view_if_needed()
    for action in [
        ("set", 'input[name="b_stop"]', "2", ["input"]),
        ("fill", 'input[name="s"]', "256"),
        ("select", 'select[name="model"]', "lab"),
    ]:
        do(page, bar, action)
    expect(bar.locator(".c9-summary")).to_have_text(
        expected_summary(MB, mb(s="256", b=3, model="lab")), timeout=PYTHON_TIMEOUT
    )
    expect(formula.locator(".c9-formula-summary")).to_have_text(
        python_view("formula", model="lab", s=256, b=3)["summary"], timeout=PYTHON_TIMEOUT
    )
    expect(formula.locator(".c9-status")).to_have_attribute("data-kind", "ok")
    # a bad typed s reaches the bar only: the formula keeps its last good state, without an error
    bar.locator('input[name="s"]').fill("0")
    bar.locator('input[name="s"]').press("Enter")
    expect(bar.locator(".c9-status")).to_have_attribute("data-kind", "error", timeout=PYTHON_TIMEOUT)
    expect(formula.locator(".c9-status")).to_have_attribute("data-kind", "ok")
    assert page.errors == []


def test_pattern_table_keys_beyond_the_edges(pages):
    page = pages.open("lesson-4/")
    t = page.locator('[data-widget="pattern-table"][data-format="float8_e4m3fn"]')
    detail = t.locator(".c9-pt-detail")
    expect(t.locator('td[tabindex="0"]')).to_have_count(1)  # mounted: one tab stop for the grid
    t.locator('td[data-code="0"]').focus()
    for key in ["ArrowUp", "ArrowLeft", "PageUp", "Home"] * 3:  # already at the top-left corner
        page.keyboard.press(key)
    expect(t.locator('td[data-code="0"]')).to_be_focused()
    expect(detail).to_have_text(t.locator('td[data-code="0"]').get_attribute("title"))
    for key in ["End", "PageDown"] + [
        "ArrowRight",
        "ArrowDown",
    ] * 20:  # to the bottom-right corner and beyond
        page.keyboard.press(key)
    expect(t.locator('td[data-code="255"]')).to_be_focused()
    expect(detail).to_have_text(t.locator('td[data-code="255"]').get_attribute("title"))
    assert t.locator('td[tabindex="0"]').count() == 1
    assert page.errors == []


@pytest.mark.timeout(200)
def test_a_valid_input_replaces_the_last_refusal_at_once(browser, site_server):
    """Lesson 3, fresh: an empty 步数 refused, then 5000: 8 s later the status still read 「输入有误：步数不能
    为空……」 while Python started. The new input's busy line shows at once, and its answer follows."""
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    try:
        page.goto(site_server.url + "lesson-3/")
        root = page.locator('[data-widget="repeated-update"]').first
        root.scroll_into_view_if_needed()
        expect(root).to_have_attribute("data-mounted", "yes", timeout=30_000)
        status, steps = root.locator(".c9-status"), root.locator('input[name="steps"]')
        steps.fill("")
        steps.press("Enter")
        expect(status).to_contain_text("输入有误", timeout=PYTHON_TIMEOUT)
        steps.fill("5000")
        steps.press("Enter")
        expect(status).not_to_contain_text("输入有误", timeout=1_000)
        expect(status).to_have_attribute("data-kind", re.compile("busy|ok"), timeout=1_000)
        expect(status).to_have_attribute("data-kind", "ok", timeout=PYTHON_TIMEOUT)
        assert page.errors == []
    finally:
        ctx.close()


def test_the_seed_box_says_what_is_wrong_with_what_it_reads_now(browser, site_server):
    """QA: an unreadable seed (「1e400」) then the box emptied kept 「读不成数字」 on screen: both read as the value
    "", so no change event came between them. The message follows the box as the reader edits it."""
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    try:
        page.goto(site_server.url + "lesson-4/")
        root = page.locator('[data-widget="block-lab"]')
        root.scroll_into_view_if_needed()
        expect(root).to_have_attribute("data-mounted", "yes", timeout=30_000)
        root.locator(GEN).check()
        status, seed = root.locator(".c9-status"), root.locator('input[name="seed"]')
        seed.fill("")
        seed.press_sequentially("1e400")
        seed.press("Tab")
        expect(status).to_have_text("输入有误：随机种子读不成数字，请填 0 到 1,000,000,000 之间的整数。")
        seed.focus()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        expect(status).to_contain_text("不能为空", timeout=PYTHON_TIMEOUT)
        assert page.errors == []
    finally:
        ctx.close()
