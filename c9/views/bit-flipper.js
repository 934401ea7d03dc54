import { hexCode } from "../format.js";
import { liveView } from "../live-view.js";
import { urlState } from "../url-state.js";

// ---- Lessons 2–3: the bit flipper. Python computes every number; this file draws bits and text. ----
export default function mount(root) {
  let view = JSON.parse(root.dataset.default);
  const formats = view.params.formats;
  const summary = root.querySelector(".c9-summary");
  // The status (and so a refusal) goes under the box the reader just submitted: the rows below make
  // the widget a screen or two tall, and a message for a code typed in the last row belongs there.
  const status = root.querySelector(".c9-status");
  const statusAfter = (el) => { if (status.previousElementSibling !== el) el.after(status); };
  const valueForm = root.querySelector(".c9-bf-value");
  // Saturating or not (FP8 only): a radio pair; where the widget has none, the view's default rides along.
  const overflowForm = root.querySelector(".c9-bf-overflow");
  const overflow = () => (overflowForm ? overflowForm.elements.overflow.value : view.params.overflow);
  const rows = new Map([...root.querySelectorAll(".c9-bf-row")].map((el) => [el.dataset.format, el]));

  const draw = (v) => {
    view = v;
    summary.textContent = v.summary;
    if (document.activeElement !== valueForm.elements.value) {
      // A typed value stays as typed; after a bit flip or a code, the box shows that code's value.
      const edited = v.rows.find((r) => r.format === v.params.source);
      valueForm.elements.value.value = v.params.value ?? (edited ? edited.value_text : "");
    }
    if (overflowForm) overflowForm.elements.overflow.value = v.params.overflow;
    for (const r of v.rows) {
      const el = rows.get(r.format);
      if (!el) continue;
      for (const b of r.bits) {
        const btn = el.querySelector(`.c9-bit[data-pos="${b.pos}"]`);
        btn.setAttribute("aria-pressed", b.on ? "true" : "false");
        btn.querySelector(".c9-bit-v").textContent = b.on ? "1" : "0";
      }
      el.querySelector('input[name="hex"]').value = r.hex;
      el.dataset.cls = r.cls;
      const set = (k, text) => { const dd = el.querySelector(`dd[data-k="${k}"]`); if (dd) dd.textContent = text; };
      for (const k of ["exact", "pow2", "cls_zh", "ulp_text", "interval"]) set(k, r[k]);
      set("neighbours", `${r.down ?? "—"} / ${r.up ?? "—"}`);
      set("error_text", r.error_text ?? "—（由编码给出，不是输入的十进制数）");
      const note = el.querySelector('[data-k="missing"]');
      note.textContent = r.missing ?? "";
      note.hidden = !r.missing;
      // Two roundings (FP32 first, then this format) that one rounding of the exact value would not give.
      const twice = el.querySelector('[data-k="double"]');
      twice.querySelector('[data-k="double-text"]').textContent = r.double ?? "";
      twice.hidden = !r.double;
    }
  };
  const { send } = liveView("bit-flipper", root, draw);
  // The state on screen as the reader made it: a typed value, or a code in one row.
  const current = () => (view.params.source === "value"
    ? { source: "value", value: view.params.value }
    : { source: view.params.source, code: view.params.code });
  // The code the reader now sees in a row: the pressed bits (already flipped before Python answers).
  // Sent as hex text (as the code box would), so that the address reads bf.source=float16&bf.code=0x3C01.
  const codeOf = (el) => {
    const bits = [...el.querySelectorAll(".c9-bit")];
    const n = bits.reduce((sum, b) => sum + (b.getAttribute("aria-pressed") === "true" ? 2 ** Number(b.dataset.pos) : 0), 0);
    return hexCode(n, bits.length);
  };

  for (const [fmt, el] of rows) {
    const bits = [...el.querySelectorAll(".c9-bit")];
    bits.forEach((btn, i) => { btn.disabled = false; btn.tabIndex = i === 0 ? 0 : -1; });
    el.querySelector(".c9-bits").addEventListener("click", (e) => {
      const btn = e.target.closest(".c9-bit");
      if (!btn) return;
      const on = btn.getAttribute("aria-pressed") === "true";
      btn.setAttribute("aria-pressed", on ? "false" : "true"); // immediate feedback; Python confirms
      btn.querySelector(".c9-bit-v").textContent = on ? "0" : "1";
      send({ formats, source: fmt, code: codeOf(el), overflow: overflow() }); // up to 2^32 − 1: plain numbers, no 32-bit ops
    });
    el.querySelector(".c9-bits").addEventListener("keydown", (e) => {
      const i = bits.indexOf(e.target);
      if (i < 0) return;
      const j = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: bits.length - 1 }[e.key];
      if (j === undefined || j < 0 || j >= bits.length) return;
      e.preventDefault();
      bits[i].tabIndex = -1; bits[j].tabIndex = 0; bits[j].focus();
    });
    const hexForm = el.querySelector(".c9-bf-hex");
    const sendHex = () => { statusAfter(hexForm); send({ formats, source: fmt, code: hexForm.elements.hex.value, overflow: overflow() }); };
    hexForm.addEventListener("submit", (e) => { e.preventDefault(); sendHex(); });
    hexForm.elements.hex.addEventListener("change", sendHex);
  }
  const sendValue = () => { statusAfter(valueForm); send({ formats, source: "value", value: valueForm.elements.value.value, overflow: overflow() }); };
  // A new overflow rule re-stores what is shown: the typed value, or the code the reader made.
  overflowForm?.addEventListener("change", () => send({ formats, ...current(), overflow: overflow() }));
  overflowForm?.addEventListener("submit", (e) => e.preventDefault());
  valueForm.addEventListener("submit", (e) => { e.preventDefault(); sendValue(); });
  valueForm.elements.value.addEventListener("change", sendValue);
  // The address holds either the typed value (bf.value=0.1) or a code (bf.source=float16&bf.code=0x3C01);
  // the draw above already shows every control from Python's answer.
  urlState(root, "bf", ["source", "value", "code", "overflow"])
    .restore(send, { formats, source: "value", value: view.params.value, overflow: view.params.overflow });
  return null;
}
