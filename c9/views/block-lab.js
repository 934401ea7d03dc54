import { answers, canonical } from "../answers.js";
import { drawCharts, nearViewport, redrawChart } from "../charts.js";
import { significant, thousands } from "../format.js";
import { answeredBy, liveView, markInvalid, outOfRange, unreadableNumber } from "../live-view.js";
import { showControls, urlState } from "../url-state.js";

// ---- Lesson 4: the block-scaling lab. Python quantises one scheme per request (each request stays
// short); the schemes the preset shows are asked for one after another. The latest input wins.
// The preset ("all", or a model's config) only chooses which schemes are shown; Python says which.

export default function mount(root) {
  const form = root.querySelector("form");
  const views = JSON.parse(root.dataset.defaults); // without their heat maps, which data-figures' file holds
  let builtFigures = null; // that file, fetched once the charts near the screen (drawCharts)
  const built = (key) => {
    builtFigures ??= fetch(new URL(root.dataset.figures, document.baseURI)).then((r) => {
      if (!r.ok) throw new Error(`figures: HTTP ${r.status}`);
      return r.json();
    }).catch((err) => { builtFigures = null; throw err; }); // offline before it was cached: try again next time
    return builtFigures.then((figures) => figures[key]);
  };
  // The default state's answers, held by the page (data-defaults) and its figures file: a reader who comes
  // back to it (a slider moved and moved back) is answered from them, not by seconds of Python.
  const defaultViews = structuredClone(views);
  const defaults = JSON.parse(root.dataset.default).params; // the default view's parameters
  const unread = { seed: String(defaults.seed), text: defaults.text };
  const holdDefault = (p, figures) => {
    for (const [index, q] of partsOf(p).entries()) {
      const v = defaultViews.find((d) => d.scheme === q.scheme);
      const view = { ...v, figure: figures[q.scheme], ...(index === 0 ? { abs_figure: figures.abs_figure } : {}) };
      answers.byKey.set(canonical({ widget: "block-lab", params: q }), { ok: true, view });
    }
  };
  const presets = JSON.parse(root.dataset.presets);
  const SCHEMES = presets.all;
  const MX = new Set(JSON.parse(root.dataset.mxSchemes));
  const absChart = root.querySelector(".c9-bl-abs .c9-chart");
  let absFigure = null; // Python's latest, once an answer carries one; until then the build's
  const panels = Object.fromEntries(SCHEMES.map((s) => [s, root.querySelector(`.c9-bl-panel[data-scheme="${s}"]`)]));
  const rows = Object.fromEntries(SCHEMES.map((s) => [s, root.querySelector(`.c9-bl-table tr[data-scheme="${s}"]`)]));
  const typedBox = root.querySelector(".c9-bl-typed"), genBox = root.querySelector(".c9-bl-generated");
  const chartOf = (scheme) => panels[scheme].querySelector(".c9-chart");

  // Panels and table rows of the schemes the preset leaves out are hidden (their last state kept).
  const showPreset = (preset) => {
    const shown = new Set(presets[preset]);
    for (const s of SCHEMES) { panels[s].hidden = !shown.has(s); rows[s].hidden = !shown.has(s); }
    root.dataset.preset = preset;
  };
  // One answer: one scheme's panel and table row (the first scheme's also carries the |x| map).
  const draw = (v, restoring, index) => {
    if (restoring && index === 0) {
      showControls(form, v.params);
      form.elements.channels_out.value = form.elements.channels.value;
      showSource();
    }
    if (v.abs_figure) { absFigure = v.abs_figure; root.querySelector(".c9-bl-abs-summary").textContent = v.abs_summary; }
    views[views.findIndex((d) => d.scheme === v.scheme)] = v;   // Plotly's first draw shows the latest
    panels[v.scheme].querySelector(".c9-bl-summary").textContent = v.summary;
    root.querySelector(".c9-bl-note").textContent = v.tensor_note;
    const c = rows[v.scheme].cells;
    c[1].textContent = thousands(v.n_scales);
    c[2].textContent = significant(v.bits_actual);
    c[3].textContent = v.max_rel_text;
    c[4].textContent = v.median_rel_text;
    // Dashes where nothing was measured: a scheme that does not quantise a tensor holding NaN or ±∞ (Python
    // says why in its summary), or an MX tensor whose every block's scale is NaN (Python sends null).
    const done = v.quantized !== false;
    const counted = (k, of) => (done && v[k] != null ? `${thousands(v[k])}${of == null ? "" : ` / ${thousands(of)}`}` : "—");
    c[5].textContent = counted("coarse", v.total);
    c[6].textContent = counted("flushed");
    // The NaN blocks are out of the block count as their numbers are out of the others (counted_blocks).
    c[7].textContent = counted("clipped_blocks", v.counted_blocks);
    redrawChart(chartOf(v.scheme), v.figure);
    if (v.abs_figure) redrawChart(absChart, v.abs_figure);
  };
  const params = () => ({
    source: form.elements.source.value,
    seed: form.elements.seed.value.trim(),
    channels: Number(form.elements.channels.value),
    magnitude: Number(form.elements.magnitude.value),
    token: form.elements.token.checked,
    text: form.elements.text.value,
    preset: form.elements.preset.value,
    rule: form.elements.rule.value,
  });
  // One request per scheme the preset shows (an unknown preset: all, and Python names the error).
  // The MX rule goes with the MX schemes only: it does not move the others (nor their cached answers).
  // What the chosen source does not read is sent as the default (the seed beside a typed tensor, the text
  // beside a generated one): a state the page or the build holds is found again after the other was edited.
  const partsOf = (p) => (presets[p.preset] || SCHEMES).map((scheme) => {
    const q = { ...p, scheme };
    if (q.source === "typed") q.seed = unread.seed; else if (q.source === "generated") q.text = unread.text;
    if (!MX.has(scheme)) delete q.rule;
    return q;
  });
  const live = liveView("block-lab", root, draw, {
    parts: partsOf,
    progress: (done, total) => `已算完 ${done} / ${total} 种缩放……`,
    ok: (total, ms, by) => {
      // A scheme that met NaN or ±∞ does not quantise (its panel says why): the count says so too.
      const shown = new Set(presets[form.elements.preset.value] || SCHEMES);
      const skipped = views.filter((v) => shown.has(v.scheme) && v.quantized === false).length;
      const what = skipped === 0 ? `按 ${total} 种缩放各量化了一次`
        : skipped === total ? `有 NaN 或无穷大，${total} 种缩放这次都不量化（各图下写了原因）`
          : `按 ${total - skipped} 种缩放各量化了一次；另 ${skipped} 种遇到 NaN 或无穷大，这次不量化（各图下写了原因）`;
      return `已算出这一状态：这个张量${what}，${answeredBy(by, ms)}。`;
    },
    kept: "热力图和表格停在构建时算好的默认张量",
  });
  // The preset's panels show at once, before their answers come.
  const send = (p, restoring) => {
    if (presets[p.preset]) showPreset(p.preset);
    live.send(p, restoring);
  };
  const recompute = () => {
    // A typed tensor does not read the seed: a seed left wrong in the hidden box blocks nothing.
    const generated = form.elements.source.value === "generated";
    const bad = generated && (unreadableNumber(form.elements.seed, "随机种子") || outOfRange(form.elements.seed, "随机种子"));
    markInvalid(form.elements.seed, bad);
    if (bad) live.refuse(bad); else send(params());
  };

  const showSource = () => {
    const typed = form.elements.source.value === "typed";
    typedBox.hidden = !typed; genBox.hidden = typed;
  };
  form.addEventListener("input", (e) => {
    form.elements.channels_out.value = form.elements.channels.value;
    if (e.target.name === "source") showSource();
    if (e.target.name === "text") return;   // sent when committed
    // A seed is sent when committed too, but a box that reads no number says why at once: the empty box and
    // an unreadable one both have the value "", so no change event comes between them (QA saw the message
    // for one stay on screen under the other).
    if (e.target.name === "seed" && form.elements.seed.value !== "") return;
    recompute();
  });
  form.elements.seed.addEventListener("change", recompute);
  form.addEventListener("submit", (e) => { e.preventDefault(); recompute(); });
  // The default view is a scheme without the MX rule; the rule's default comes from an MX scheme's view.
  const base = { ...views.find((v) => MX.has(v.scheme))?.params, ...defaults };
  const defaultParams = params(); // the form as the build wrote it, before the address moves it
  urlState(root, "bl", ["source", "seed", "channels", "magnitude", "token", "text", "preset", "rule"], { base })
    .restore(send, params());

  // The heatmaps need Plotly's cartesian bundle.
  // A chart's first figure: Python's latest if an answer has come (even while the file was on its way).
  const first = async (key, current) => {
    if (current()) return current();
    const fromBuild = await built(key);
    return current() ?? fromBuild;
  };
  const schemeFigure = (s) => () => views.find((v) => v.scheme === s).figure;
  nearViewport(root).then(() => built("abs_figure")) // with Plotly, not after it
    .then(() => builtFigures).then((figures) => holdDefault(defaultParams, figures)).catch(() => {});
  return drawCharts(root, [
    [absChart, () => first("abs_figure", () => absFigure)],
    ...SCHEMES.map((s) => [chartOf(s), () => first(s, schemeFigure(s))]),
  ], "cartesian");
}
