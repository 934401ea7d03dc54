// Charts: Plotly.js loaded only when a chart comes near the screen, and every draw through plot(), which
// gives Python's figure the page's current colours and redraws it when the reader switches the palette.

const VENDOR = new URL("../../vendor/", import.meta.url); // site/vendor/

// ---- Plotly, loaded only when a chart comes near the screen ----------------------------------------
// Plotly.js is the largest script here (about 500 KB compressed): a reader who never scrolls to a chart
// never downloads it. `near` is the element whose approach triggers the load (the widget's root).
export function nearViewport(el) {
  if (!el || !("IntersectionObserver" in window)) return Promise.resolve();
  return new Promise((resolve) => {
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) { io.disconnect(); resolve(); }
    }, { rootMargin: "800px 0px" });
    io.observe(el);
  });
}

// Two bundles of the same Plotly.js release: "basic" (scatter, bar; ~400 KB compressed) for most charts,
// "cartesian" (~500 KB, adds heatmaps) for lesson 4's block lab. Cartesian draws everything basic does.
const BUNDLES = { basic: "plotly/plotly-basic.min.js", cartesian: "plotly/plotly-cartesian.min.js" };
const plotlyLoading = {};
const enough = (bundle) => window.Plotly && (bundle === "basic" || window.Plotly.c9Bundle === "cartesian");
export async function loadPlotly(near, bundle = "basic") {
  // Wait even when Plotly is already here (instant navigation from a page with a chart): the observer
  // answers once the new page is laid out, and a chart drawn before that is sized wrong.
  await nearViewport(near);
  if (enough(bundle)) return window.Plotly;
  plotlyLoading[bundle] ??= new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = new URL(BUNDLES[bundle], VENDOR).href;
    s.onload = () => { window.Plotly.c9Bundle = bundle; resolve(window.Plotly); };
    s.onerror = () => { delete plotlyLoading[bundle]; reject(new Error("plotly failed to load")); };
    document.head.append(s);
  });
  return plotlyLoading[bundle];
}

// ---- Charts follow the palette (Material's light/dark toggle) at any moment -------------------------
// Python's figures name their colours by role, as CSS variables (c9/base/palette.py: "var(--c9-fp32)");
// the build writes each role's light and dark colour into course.css. Plotly cannot read a variable, so at
// each draw, and again whenever the reader switches the palette, every such colour takes the value it has
// on the page now; the ground, text, axes and grid are the page's.
const VARIABLE = /^var\((--[\w-]+)\)$/;
function withColours(x, valueOf) {
  if (typeof x === "string") {
    const m = VARIABLE.exec(x);
    return m ? valueOf(m[1]) : x;
  }
  if (!x || typeof x !== "object") return x;
  if (Array.isArray(x) && x.every((v) => typeof v === "number")) return x; // a data array: no colours
  // A part without colours is kept as it is (the same arrays: Plotly.react need not recompute them).
  let out = null;
  for (const [k, v] of Object.entries(x)) {
    const r = withColours(v, valueOf);
    if (r !== v) (out ??= Array.isArray(x) ? [...x] : { ...x })[k] = r;
  }
  return out ?? x;
}
export function themed(figure) {
  const style = getComputedStyle(document.body), seen = new Map();
  const valueOf = (name) => {
    if (!seen.has(name)) seen.set(name, style.getPropertyValue(name).trim());
    return seen.get(name);
  };
  const fg = valueOf("--md-default-fg-color"), grid = valueOf("--md-default-fg-color--lightest");
  const line = valueOf("--md-default-fg-color--lighter");
  const { data, layout: own } = withColours(figure, valueOf);
  // Each trace a copy, as Plotly writes into the traces it draws (the figure stays Python's).
  const traces = data.map((t) => ({ ...t }));
  // The chart has no ground of its own: the page's shows through.
  const layout = { paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)", ...own, font: { ...own.font, color: fg || undefined } };
  for (const key of Object.keys(layout).filter((k) => /^[xy]axis\d*$/.test(k))) {
    // Plotly's default tick labels use SI suffixes (100k, 2M): numbers are written out (100,000) unless
    // Python chose a format for the axis.
    layout[key] = { gridcolor: grid, zerolinecolor: line, linecolor: line, exponentformat: "none", separatethousands: true, ...layout[key] };
  }
  if (fg && layout.legend) layout.legend = { ...layout.legend, font: { ...layout.legend.font, color: fg } };
  return { data: traces, layout, config: { displayModeBar: false, responsive: true } };
}

// Draws (or redraws) a figure into a chart div and remembers it, so that a palette switch can redraw
// it in the new colours. `figure` is Python's spec; every widget draws through here.
export function plot(Plotly, chart, figure) {
  chart.c9Figure = figure;
  const f = themed(figure);
  // On a narrow screen (course.css sets --c9-narrow) a figure whose legend wraps is drawn at the taller
  // height its box has held from the start (layout.meta.narrow_height), so the box does not grow.
  const narrow = figure.layout.meta?.narrow_height;
  if (narrow && getComputedStyle(chart).getPropertyValue("--c9-narrow").trim() === "1") f.layout.height = narrow;
  Object.assign(f.layout, chart.c9Fit); // a redraw keeps the fit found before (no jump at every frame)
  return Plotly.react(chart, f.data, f.layout, f.config).then(() => fitPlotArea(Plotly, chart));
}
// On a narrow screen a legend wraps onto many lines and takes the height from the plot itself (the lab's
// memory chart kept 50 px of plot under a taller legend): the chart grows until its plot area is at least
// MIN_PLOT px and at least as tall as the legend.
export const MIN_PLOT = 180;
// A title wider than the chart (Plotly does not wrap it) is set smaller, down to 11 px, so that it stays whole.

// Growing the chart can move Plotly's automargin (a legend at the foot rewraps), so the fit is checked again
// after each change, a few times at most.
function fitPlotArea(Plotly, chart, tries = 3) {
  const full = chart._fullLayout;
  if (!full?._size) return chart;
  const change = {};
  const titleEl = chart.querySelector(".gtitle");
  const titleWidth = titleEl ? titleEl.getBBox().width : 0;
  if (titleWidth > full.width - 16) {
    const size = full.title.font.size;
    change["title.font.size"] = Math.max(11, Math.floor(size * (full.width - 16) / titleWidth));
  }
  // A label past the chart's edge (「变成 ∞ →」 beside a line near the right end on a phone) turns to
  // the side that has room.
  const box = chart.getBoundingClientRect();
  for (const a of chart.querySelectorAll(".annotation[data-index]")) {
    const r = a.getBoundingClientRect();
    if (r.right > box.right + 1) change[`annotations[${a.dataset.index}].xanchor`] = "right";
    else if (r.left < box.left - 1) change[`annotations[${a.dataset.index}].xanchor`] = "left";
  }
  const legend = chart.querySelector(".legend")?.getBoundingClientRect().height || 0;
  const short = Math.max(MIN_PLOT, legend) - full._size.h;
  if (short > 1) change.height = Math.ceil(full.height + short);
  if (!Object.keys(change).length) return chart;
  chart.c9Fit = { ...chart.c9Fit };
  if (change.height) chart.c9Fit.height = change.height;
  const title0 = chart.c9Figure.layout.title || {};
  if (change["title.font.size"]) chart.c9Fit.title = { ...title0, font: { ...title0.font, size: change["title.font.size"] } };
  const fitted = Plotly.relayout(chart, change);
  return tries > 1 ? fitted.then(() => fitPlotArea(Plotly, chart, tries - 1)) : fitted;
}
function retheme() {
  if (!window.Plotly) return;
  for (const chart of document.querySelectorAll(".js-plotly-plot")) if (chart.c9Figure) plot(window.Plotly, chart, chart.c9Figure);
}
// Material writes the palette into <body data-md-color-scheme>; its toggle changes only that attribute.
new MutationObserver(retheme).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

// ---- A widget's charts: the first draw once Plotly is loaded, and every redraw after ----------------
// Each chart div gets its build-time figure as soon as Plotly arrives; data-chart="drawn" on the root tells
// tests (and readers of the DOM) that all are up. Returns the teardown for the page's exit. A figure may be
// a function giving the latest one: Python can answer first (a state opened from the address is sent at
// once), and the first draw must then show that answer, not the default.
export function drawCharts(root, charts, bundle = "basic") {
  // A figure is a view's, or a function giving it or a promise of it (data the widget fetches).
  const figureOf = async (figure) => (typeof figure === "function" ? figure() : figure);
  const notDrawn = (chart) => { chart.textContent = "图没能画出来（图表脚本或数据没能加载）；下面的文字和表格给出了同样的数字。"; };
  loadPlotly(root, bundle).then((Plotly) => {
    if (!root.isConnected) return null;
    let all = true;
    return Promise.all(charts.map(([chart, figure]) => figureOf(figure)
      .then((f) => plot(Plotly, chart, f), () => { all = false; notDrawn(chart); chart.c9Retry = true; })))
      .then(() => { if (all) root.dataset.chart = "drawn"; });
  }, () => { for (const [chart] of charts) notDrawn(chart); });
  return () => { if (window.Plotly) for (const [chart] of charts) window.Plotly.purge(chart); };
}
export const drawChart = (root, chart, figure) => drawCharts(root, [[chart, figure]]);

// A redraw after an answer. A chart not drawn yet is left to its first draw (drawCharts), which takes the
// latest figure then: before it, Plotly may be missing, or be the basic bundle a heatmap needs more than.
// A chart whose build-time figure could not be fetched (c9Retry: its Plotly bundle did load) is drawn by
// the first answer that brings one, in place of its message.
export function redrawChart(chart, figure) {
  if (!window.Plotly || !(chart.c9Figure || chart.c9Retry)) return;
  if (chart.c9Retry) { chart.c9Retry = false; chart.textContent = ""; }
  plot(window.Plotly, chart, figure);
}
