import { significant } from "../format.js";
import { liveView } from "../live-view.js";
import { showControls, urlState } from "../url-state.js";

// ---- FP4 lesson: MXFP4 against NVFP4 on a block the reader edits. Python validates the text and
// computes every cell; this file only writes the answer into the table.
export default function mount(root) {
  const form = root.querySelector("form");
  const summary = root.querySelector(".c9-summary");
  const tbody = root.querySelector(".c9-mn-table tbody");
  const foot = root.querySelector(".c9-mn-table tfoot td:nth-of-type(1)");
  const foot2 = root.querySelector(".c9-mn-table tfoot td:nth-of-type(2)");
  const td = (text, cls) => { const c = document.createElement("td"); c.textContent = text; if (cls) c.className = cls; return c; };
  const codeCell = (e) => { const c = document.createElement("td"); const k = document.createElement("code"); k.textContent = e.bits; c.append(k, ` = ${e.element_text}`); return c; };

  const draw = (v, restoring) => {
    if (restoring) showControls(form, v.params);
    summary.textContent = v.summary;
    root.querySelector(".c9-mn-mx-scale").textContent = `${v.mx.scale_text}；${v.mx.rule}`;
    root.querySelector(".c9-mn-nv-scale").textContent = `${v.nv.scale_text}；${v.nv.rule}`;
    tbody.replaceChildren(...v.rows.map((r) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th"); th.scope = "row"; th.textContent = r.value_text;
      tr.append(th);
      for (const e of [r.mx, r.nv]) {
        tr.append(codeCell(e),
          td(e.dequantized_text + (e.zeroed ? " ⚠ 变成 0" : "") + (e.clipped ? " ⚠ 截断到上限" : ""),
            e.zeroed || e.clipped ? "c9-mn-zeroed" : ""),
          td(e.rel_text));
      }
      return tr;
    }));
    foot.textContent = `名义 ${v.mx.bits_nominal}（4 + 8/32）；这一块只有 ${v.rows.length} 个数时 ${significant(v.mx.bits_actual)}`;
    foot2.textContent = `名义 ${v.nv.bits_nominal}（4 + 8/16，FP32 张量缩放摊到整张量）；这一块单独算 ${significant(v.nv.bits_actual)}`;
  };
  const { send } = liveView("mx-nv", root, draw);
  const go = () => send({ text: form.elements.text.value, rule: form.elements.rule.value });
  let timer = null;
  const onInput = () => { clearTimeout(timer); timer = setTimeout(go, 250); };
  form.addEventListener("input", onInput);
  form.addEventListener("submit", (e) => { e.preventDefault(); clearTimeout(timer); go(); });
  urlState(root, "mn", ["text", "rule"]).restore(send, {});
  return () => clearTimeout(timer);
}
