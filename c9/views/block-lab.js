import { ask, python, PythonUnavailable, UNEXPECTED, loadPlotly, plot, restoringFromAddress, showControls, unreadableNumber, urlState } from "../core.js";

// ---- Lesson 4: the block-scaling lab. Python quantises one scheme per request (each request stays
// short); the schemes the preset shows are asked for one after another. The latest input wins.
// The preset ("all", or a model's config) only chooses which schemes are shown; Python says which.

export default function mount(root) {
  const form = root.querySelector("form");
  const status = root.querySelector(".c9-status");
  const views = JSON.parse(root.dataset.defaults);
  const presets = JSON.parse(root.dataset.presets);
  const SCHEMES = presets.all;
  const absChart = root.querySelector(".c9-bl-abs .c9-chart");
  let absFigure = views[0].abs_figure;
  const panels = Object.fromEntries(SCHEMES.map((s) => [s, root.querySelector(`.c9-bl-panel[data-scheme="${s}"]`)]));
  const rows = Object.fromEntries(SCHEMES.map((s) => [s, root.querySelector(`.c9-bl-table tr[data-scheme="${s}"]`)]));
  const typedBox = root.querySelector(".c9-bl-typed"), genBox = root.querySelector(".c9-bl-generated");
  let run = 0, plotly = null;
  const say = (text, kind) => { status.textContent = text; status.dataset.kind = kind || ""; };
  const fmt = (n) => Number(n).toLocaleString("en-US");

  const drawChart = (v) => {
    if (!plotly) return;
    plot(plotly, panels[v.scheme].querySelector(".c9-chart"), v.figure);
    if (v.abs_figure) plot(plotly, absChart, v.abs_figure);
  };
  // Panels and table rows of the schemes the preset leaves out are hidden (their last state kept).
  const showPreset = (preset) => {
    const shown = new Set(presets[preset]);
    for (const s of SCHEMES) { panels[s].hidden = !shown.has(s); rows[s].hidden = !shown.has(s); }
    root.dataset.preset = preset;
  };
  const draw = (v) => {
    if (v.abs_figure) { absFigure = v.abs_figure; root.querySelector(".c9-bl-abs-summary").textContent = v.abs_summary; }
    views[views.findIndex((d) => d.scheme === v.scheme)] = v;   // Plotly's first draw shows the latest
    panels[v.scheme].querySelector(".c9-bl-summary").textContent = v.summary;
    root.querySelector(".c9-bl-note").textContent = v.tensor_note;
    const c = rows[v.scheme].cells;
    c[1].textContent = fmt(v.n_scales);
    c[2].textContent = Number(v.bits_actual.toPrecision(4)).toString();
    c[3].textContent = v.max_rel_text;
    c[4].textContent = v.median_rel_text;
    c[5].textContent = `${fmt(v.coarse)} / ${fmt(v.total)}`;
    c[6].textContent = fmt(v.flushed);
    drawChart(v);
  };
  const params = () => ({
    source: form.elements.source.value,
    seed: form.elements.seed.value.trim(),
    channels: Number(form.elements.channels.value),
    magnitude: Number(form.elements.magnitude.value),
    token: form.elements.token.checked,
    text: form.elements.text.value,
    preset: form.elements.preset.value,
  });

  // `wanted`: the state opened from the page address (urlState); otherwise the controls' state.
  async function recompute(wanted = null) {
    const mine = ++run;
    const bad = wanted ? null : unreadableNumber(form.elements.seed, "随机种子");
    if (bad) { say(bad, "error"); root.dataset.stale = ""; return; }
    const p = wanted ?? params();
    if (wanted) restoringFromAddress(root, say);
    else if (python.state !== "ready") say("正在启动页面里的 Python（第一次约需几秒）……", "busy");
    const t0 = performance.now();
    const asked = presets[p.preset] || SCHEMES;      // an unknown preset: Python names the error
    if (presets[p.preset]) showPreset(p.preset);
    for (const scheme of asked) {
      let answer;
      try {
        ({ answer } = await ask({ widget: "block-lab", params: { ...p, scheme } }, root)); // the build's answer if it has it
      } catch (err) {
        if (mine !== run) return;
        root.dataset.state = "no-python";
        root.removeAttribute("aria-busy");
        say(err instanceof PythonUnavailable
          ? `页面里的 Python 没能加载。${wanted ? "地址里的参数没法重算：" : ""}热力图和表格停在构建时算好的默认张量，正文不受影响。`
          : UNEXPECTED, "error");
        if (!(err instanceof PythonUnavailable)) console.error("C9: block-lab", err);
        return;
      }
      if (mine !== run) return;               // a newer input arrived: its run takes over
      if (!answer.ok) {
        if (wanted) { root.dataset.state = "default"; root.removeAttribute("aria-busy"); }
        say(wanted ? `链接里的参数有误：${answer.error}。这里仍是默认状态。` : `输入有误：${answer.error}`, "error");
        if (!wanted) root.dataset.stale = ""; // the heatmaps and table are the previous tensor's (faded)
        return;
      }
      draw(answer.view);
      if (wanted && scheme === asked[0]) {
        showControls(form, answer.view.params);
        form.elements.channels_out.value = form.elements.channels.value;
        showSource();
      }
      url.write({ ...p, ...answer.view.params });
      say(`已算完 ${asked.indexOf(scheme) + 1} / ${asked.length} 种缩放……`, "busy");
    }
    root.dataset.state = "live";
    root.removeAttribute("aria-busy");
    root.dataset.runs = String(Number(root.dataset.runs || 0) + 1);
    delete root.dataset.stale;
    say(`Python 已把这个张量按 ${asked.length} 种缩放各量化了一次（共 ${Math.max(1, Math.round(performance.now() - t0))} ms）。`, "ok");
    performance.mark("c9:redraw");
  }

  const showSource = () => {
    const typed = form.elements.source.value === "typed";
    typedBox.hidden = !typed; genBox.hidden = typed;
  };
  form.addEventListener("input", (e) => {
    form.elements.channels_out.value = form.elements.channels.value;
    if (e.target.name === "source") showSource();
    if (e.target.name === "text" || e.target.name === "seed") return;   // sent when committed
    recompute();
  });
  form.elements.seed.addEventListener("change", () => recompute());
  form.addEventListener("submit", (e) => { e.preventDefault(); recompute(); });
  const url = urlState(root, "bl", ["source", "seed", "channels", "magnitude", "token", "text", "preset"]);
  const wanted = url.read();
  if (wanted) recompute({ ...params(), ...wanted });

  loadPlotly(root, "cartesian").then((Plotly) => { // heatmaps
    if (!root.isConnected) return;
    plotly = Plotly;
    return Promise.all([plot(Plotly, absChart, absFigure), ...views.map((v) => plot(Plotly, panels[v.scheme].querySelector(".c9-chart"), v.figure))]).then(() => { root.dataset.chart = "drawn"; performance.mark("c9:widget-ready"); });
  }).catch(() => {
    for (const c of [absChart, ...SCHEMES.map((s) => panels[s].querySelector(".c9-chart"))]) c.textContent = "图表脚本没能加载；下面的文字和表格给出了同样的数字。";
  });

  return () => { run++; if (window.Plotly) for (const c of [absChart, ...SCHEMES.map((s) => panels[s].querySelector(".c9-chart"))]) window.Plotly.purge(c); };
}
