// Shared front-end pieces: the Python worker client, the Plotly loader, and the request loop every
// widget uses. Python computes, JavaScript draws.

const VENDOR = new URL("../../vendor/", import.meta.url); // site/vendor/

// ---- Python in a Web Worker, started lazily and shared across instant-navigation pages ----------
export const python = {
  worker: null, nextId: 1, waiting: new Map(), state: "idle", bootMs: null,
  start() {
    if (this.worker) return;
    this.state = "booting";
    performance.mark("c9:python-start");
    try {
      this.worker = new Worker(new URL("py-worker.js", import.meta.url), { type: "module" });
    } catch (err) {
      this.fail(String(err));
      return;
    }
    this.worker.onmessage = ({ data }) => {
      if (data.ahead) { answers.keepAhead(data.ahead, data.response); return; }
      if (data.ready) {
        this.state = "ready"; this.bootMs = data.bootMs;
        performance.mark("c9:python-ready", { detail: data.loaded }); // the files it loaded (for sw.js)
        return;
      }
      const done = this.waiting.get(data.id);
      this.waiting.delete(data.id);
      if (!done) return;
      if (data.bootError) { this.fail(data.bootError); done.reject(new PythonUnavailable(data.bootError)); }
      else done.resolve(JSON.parse(data.response));
    };
    this.worker.onerror = (e) => { e.preventDefault(); this.fail(e.message || "worker error"); };
  },
  fail(message) {
    this.state = "failed";
    console.warn("C9: Python could not start:", message);
    for (const { reject } of this.waiting.values()) reject(new PythonUnavailable(message));
    this.waiting.clear();
  },
  // The worker answers ahead around a state the page answered from its cache (no request reached Python).
  around(request) {
    if (this.worker && this.state !== "failed" && answers.aheadOn) this.worker.postMessage({ around: request });
  },
  ask(request) {
    this.start();
    if (this.state === "failed") return Promise.reject(new PythonUnavailable("failed earlier"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, request, ahead: answers.aheadOn });
    });
  },
};
export class PythonUnavailable extends Error {}

// ---- Answers the build computed (hooks/answers.py), for the first touch while Python boots ----------
// The build runs each widget's Python for the states one control step from its default (each stop of a
// slider, each option, each bit) through the worker's own entry point, and writes the answers into one
// file per widget, named in the root's data-answers. A request the file holds is answered from it, before
// Python is ready and after (it is faster than a round trip); any other request goes to Python.
// The key is the request as JSON with its object keys sorted (Python: hooks/answers.py canonical).
export function canonical(value) {
  return JSON.stringify(value, (key, v) => (v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}
// While the reader works, the worker also answers the states one step from the one on screen, in its
// idle time (py-worker.js, c9.views.api.nearby): kept here too, the latest AHEAD_KEPT of them.
const AHEAD_KEPT = 400;
export const answers = {
  enabled: true,       // the benchmark turns it off to time Python's own round trip
  aheadEnabled: true,  // … or only the answers ahead
  byKey: new Map(), files: new Map(), ahead: new Map(),
  get aheadOn() { return this.enabled && this.aheadEnabled; },
  keepAhead(key, response) {
    this.ahead.delete(key);
    this.ahead.set(key, response); // kept as text: parsed only if the reader goes there
    if (this.ahead.size > AHEAD_KEPT) this.ahead.delete(this.ahead.keys().next().value);
  },
  // Fetches a widget's file once (when it nears the screen, or at its first touch); never rejects.
  load(root) {
    const name = root?.dataset.answers;
    if (!name) return Promise.resolve();
    const url = new URL(name, document.baseURI).href;
    if (!this.files.has(url)) {
      this.files.set(url, fetch(url).then((r) => (r.ok ? r.json() : { answers: {} }))
        .then((file) => { for (const [k, v] of Object.entries(file.answers)) this.byKey.set(k, v); })
        .catch(() => { this.files.delete(url); })); // offline before it was cached: try again next time
    }
    return this.files.get(url);
  },
  // An answer computed before the request: {answer, by: "build" | "ahead"} (the answer a copy: a draw may
  // keep or change it), or null. On a hit the worker still answers ahead around the state.
  async lookup(request, root) {
    if (!this.enabled) return null;
    const loading = this.load(root);
    if (python.state !== "ready") await loading; // a small file: worth the wait while Python boots
    const key = canonical(request);
    const built = this.byKey.get(key), text = this.ahead.get(key);
    if (built === undefined && text === undefined) return null;
    python.around(request);
    return built !== undefined ? { answer: structuredClone(built), by: "build" } : { answer: JSON.parse(text), by: "ahead" };
  },
};

// An answer from the build's cache or the answers ahead when they hold the request, else from Python:
// {answer, built} (built: not computed for this request).
export async function ask(request, root) {
  const hit = await answers.lookup(request, root);
  return hit ? { answer: hit.answer, built: true } : { answer: await python.ask(request), built: false };
}

// ---- Plotly, loaded only when a chart comes near the screen ----------------------------------------
// Plotly.js is the largest script here (about 500 KB compressed): a reader who never scrolls to a chart
// never downloads it. `near` is the element whose approach triggers the load (the widget's root).
function nearViewport(el) {
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
// Python's figures carry no theme: text, axes and grid take the page's colours here, at each draw and
// again whenever the reader switches the palette (see the observer below). A near-black line or marker
// (the 80 GB card, the lab's measured "black dots") keeps its colour but gets an outline or the text
// colour, so it still shows on the dark palette.
const NEAR_BLACK = /^#(111|111111|222|222222|000|000000)$/i;
function cssVar(name) { return getComputedStyle(document.body).getPropertyValue(name).trim(); }
// Lines and marks need 3:1 against the page (WCAG 1.4.11). Two hues of Python's figures miss it on one
// palette: the navy of FP32 and the main curves on the dark one (1.8:1), the orange of FP16 with scaling
// and the master-weight copy on the light one (2.7:1). There they are drawn lighter or darker (5.8:1 and
// 4.2:1), unless the figure already uses a colour close to the replacement (the ledger's light-blue
// master weights beside its navy weights): two parts must not become one.
const SWAP = { slate: { "#1f4e8c": "#6d9eeb" }, default: { "#e08a1e": "#b06d00" } };
const rgbOf = (c) => (/^#[0-9a-f]{6}$/i.test(c) ? [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)) : null);
const near = (a, b) => { const [x, y] = [rgbOf(a), rgbOf(b)]; return x && y && Math.hypot(...x.map((v, i) => v - y[i])) < 60; };
function paletteSwap(data) {
  const used = data.flatMap((t) => [t.line?.color, t.marker?.color]).filter((c) => typeof c === "string").map((c) => c.toLowerCase());
  const swap = Object.entries(SWAP[document.body.dataset.mdColorScheme] || {})
    .filter(([from, to]) => !used.some((c) => c !== from && near(c, to)));
  const to = (c) => (typeof c === "string" && swap.find(([from]) => from === c.toLowerCase())?.[1]) || c;
  return (t) => {
    const out = { ...t };
    if (t.line?.color) out.line = { ...t.line, color: to(t.line.color) };
    if (typeof t.marker?.color === "string") out.marker = { ...t.marker, color: to(t.marker.color) };
    return out;
  };
}
export function themed(figure) {
  const fg = cssVar("--md-default-fg-color"), grid = cssVar("--md-default-fg-color--lightest");
  const line = cssVar("--md-default-fg-color--lighter");
  const layout = { ...figure.layout, font: { ...figure.layout.font, color: fg || undefined } };
  for (const key of Object.keys(layout).filter((k) => /^[xy]axis\d*$/.test(k))) {
    // Plotly's default tick labels use SI suffixes (100k, 2M): numbers are written out (100,000) unless
    // Python chose a format for the axis.
    layout[key] = { gridcolor: grid, zerolinecolor: line, linecolor: line, exponentformat: "none", separatethousands: true, ...layout[key] };
  }
  if (fg && layout.shapes) {
    layout.shapes = layout.shapes.map((sh) => (NEAR_BLACK.test(sh.line?.color || "") ? { ...sh, line: { ...sh.line, color: fg } } : sh));
  }
  if (fg && layout.legend) layout.legend = { ...layout.legend, font: { ...layout.legend.font, color: fg } };
  // A filled near-black marker (the timeline's "black dots") keeps its colour inside a ring of the text
  // colour; an open or line-shaped one (the lab's ledger mark) is all outline, so it takes the text colour.
  const data = figure.data.map(paletteSwap(figure.data)).map((t) => {
    if (!fg || !NEAR_BLACK.test(t.marker?.color || "")) return t;
    const outline = /open|^line/.test(t.marker.symbol || "");
    return { ...t, marker: outline ? { ...t.marker, color: fg } : { ...t.marker, line: { color: fg, width: 1.5, ...t.marker.line } } };
  });
  return { data, layout, config: { displayModeBar: false, responsive: true } };
}

// Draws (or redraws) a figure into a chart div and remembers it, so that a palette switch can redraw
// it in the new colours. `figure` is Python's spec; every widget draws through here.
export function plot(Plotly, chart, figure) {
  chart.c9Figure = figure;
  const f = themed(figure);
  Object.assign(f.layout, chart.c9Fit); // a redraw keeps the fit found before (no jump at every frame)
  return Plotly.react(chart, f.data, f.layout, f.config).then(() => fitPlotArea(Plotly, chart));
}
// On a narrow screen a legend wraps onto many lines and takes the height from the plot itself (the lab's
// memory chart kept 50 px of plot under a taller legend): the chart grows until its plot area is at least
// MIN_PLOT px and at least as tall as the legend.
export const MIN_PLOT = 180;
// A title wider than the chart (Plotly does not wrap it) is set smaller, down to 11 px, so that it stays whole.

function fitPlotArea(Plotly, chart) {
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
  return Plotly.relayout(chart, change);
}
function retheme() {
  if (!window.Plotly) return;
  for (const chart of document.querySelectorAll(".js-plotly-plot")) if (chart.c9Figure) plot(window.Plotly, chart, chart.c9Figure);
}
// Material writes the palette into <body data-md-color-scheme>; its toggle changes only that attribute.
new MutationObserver(retheme).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

// ---- A widget's request loop: the latest input wins, one request in flight ------------------------
// `restoring` marks the state opened from the page address (urlState below): draw gets it as its
// second argument (set the controls then), and a refusal says the link was wrong, not the reader.
export function liveView(widget, root, draw) {
  const status = root.querySelector(".c9-status");
  let inFlight = false, queued = null;
  const say = (text, kind) => { status.textContent = text; status.dataset.kind = kind || ""; };
  async function send(params, restoring = false) {
    if (inFlight) { queued = [params, restoring]; return; }
    inFlight = true;
    const t0 = performance.now();
    const request = { widget, params };
    try {
      const hit = await answers.lookup(request, root);
      const by = hit?.by ?? "python";
      let answer = hit?.answer;
      if (!hit) {
        if (restoring) restoringFromAddress(root, say);
        else if (python.state !== "ready") say("正在启动页面里的 Python（第一次约需几秒）……", "busy");
        answer = await python.ask(request);
      }
      const tAnswer = performance.now();
      // The benchmark's breakdown: a round trip to Python, or an answer the build computed.
      performance.measure(`c9:${hit ? "built" : "python"}:${widget}`, { start: t0, end: tAnswer });
      if (answer.ok && queued) {
        // A newer input is waiting: drawing this older state would undo what the reader just did
        // (a bit flipped twice quickly would show the first flip, and a third click act on it).
      } else if (answer.ok) {
        draw(answer.view, restoring);
        delete root.dataset.stale;
        root.c9Url?.write({ ...params, ...answer.view.params });
        root.dataset.state = "live";
        root.removeAttribute("aria-busy");
        const ms = Math.max(1, Math.round(performance.now() - t0));
        say(by === "build" ? `Python 已算出这一状态（构建时预先算好，取用 ${ms} ms）。`
          : by === "ahead" ? `Python 已算出这一状态（趁你上一步之后的空闲提前算好，取用 ${ms} ms）。`
            : `Python 已算出这一状态（${ms} ms）。`, "ok");
        root.dataset.answeredBy = by; // for tests
        performance.mark("c9:redraw");
        performance.measure(`c9:draw:${widget}`, { start: tAnswer, end: performance.now() });
      } else {
        if (restoring) { root.dataset.state = "default"; root.removeAttribute("aria-busy"); }
        say(restoring ? `链接里的参数有误：${answer.error}。这里仍是默认状态。` : `输入有误：${answer.error}`, "error");
        if (!restoring) root.dataset.stale = ""; // the result shown is for the previous input (course.css fades it)
      }
    } catch (err) {
      root.dataset.state = "no-python";
      root.removeAttribute("aria-busy");
      say(err instanceof PythonUnavailable
        ? `页面里的 Python 没能加载（网络或浏览器不支持 WebAssembly）。${restoring ? "地址里的参数没法重算：" : ""}图和数字停在构建时算好的默认状态，正文不受影响。`
        : UNEXPECTED, "error");
      if (!(err instanceof PythonUnavailable)) console.error("C9:", widget, err);
    } finally {
      inFlight = false;
      if (queued) { const [next, r] = queued; queued = null; send(next, r); }
    }
  }
  return { send, say };
}

// What a reader sees when drawing an answer fails in our own code: the exception's text is for the console.
export const UNEXPECTED = "这一状态没能画出来（页面脚本出了意外）；正文和构建时的数字不受影响，换个输入再试。";

// A state opened from the address is drawn only once Python has recomputed it (a second or more while
// Python starts): until then the default view stays, dimmed and marked busy, and the status says the
// numbers shown are not yet the address's, so the address and what the reader sees never disagree unsaid.
export function restoringFromAddress(root, say) {
  root.dataset.state = "restoring";
  root.setAttribute("aria-busy", "true");
  say("正在按地址里的参数重算（页面里的 Python 第一次启动约需几秒）；算好之前，下面还是默认状态。", "busy");
}

// A number box holding what it cannot read (letters, 1e400) reports "" with validity.badInput set: the
// message to show instead of letting Python call it empty, or null when the box reads fine.
export function unreadableNumber(input, name) {
  return input.validity.badInput
    ? `输入有误：${name}读不成数字，请填 ${input.min} 到 ${Number(input.max).toLocaleString("en-US")} 之间的整数`
    : null;
}

// ---- A widget's state in the page address, so a reader can share exactly what they see ------------
// Keys are "<prefix>.<name>": the widget's short prefix (ledger, bf, ru, ls, bl, mn, mb, tl) and, for the
// second or third widget of the same kind on a page, 2 or 3 after it (document order), e.g.
//   lesson-3/?ru2.steps=500&ls.k=12        lesson-5/?mb.s=8192&mb.b=2&tl.mode=full_recompute
// A switch is 1 or 0. Only values that differ from the build-time default are written, so a page in
// its default state keeps a bare address; Material's own ?q= (search) and the #anchor are left alone.
// Writing: liveView calls write() after each answer Python accepted, with history.replaceState
// (Material's history.state kept) — never pushState, so Back leaves the page instead of undoing slider
// moves — and only while the address is still this widget's page: instant navigation changes the
// address before the old page is swapped out, and Back to an address with keys mounts it anew.
// Reading: restore(send, current) sends the address's values over the widget's current parameters,
// once, through Python like any input: a bad value gets the widget's Chinese message in .c9-status,
// the build-time default stays drawn, and the controls are set (draw's `restoring`) only from an
// accepted answer. `fields` lists the parameter names, or maps short URL names to them;
// `legacy` names are also read without the prefix (older links) and dropped on the next write.
const MAX_URL_VALUE = 1000; // characters
export function urlState(root, prefix, fields, { legacy = [] } = {}) {
  const names = Array.isArray(fields) ? Object.fromEntries(fields.map((f) => [f, f])) : fields;
  const same = [...document.querySelectorAll(`.c9-widget[data-widget="${root.dataset.widget}"]`)];
  const nth = same.indexOf(root) + 1;
  const ns = `${prefix}${nth > 1 ? nth : ""}.`;
  const page = location.pathname;
  const base = JSON.parse(root.dataset.default || "{}").params || {};
  const text = (v) => (v === true ? "1" : v === false ? "0" : v == null ? null : String(v));
  const state = {
    ns,
    read() {
      const q = new URLSearchParams(location.search), out = {};
      for (const [key, name] of Object.entries(names)) {
        const raw = q.get(ns + key) ?? (legacy.includes(key) ? q.get(key) : null);
        if (raw === null) continue;
        // A switch's 1/0 becomes true/false; anything else goes to Python as typed, which refuses it.
        out[name] = typeof base[name] === "boolean" && (raw === "1" || raw === "0") ? raw === "1" : raw;
      }
      return Object.keys(out).length ? out : null;
    },
    write(params) {
      if (!root.isConnected || location.pathname !== page) return;
      const url = new URL(location.href);
      for (const key of legacy) url.searchParams.delete(key);
      for (const [key, name] of Object.entries(names)) {
        const t = text(params[name]);
        // A long typed tensor stays out of the address: a link of many KB is refused by servers and
        // shorteners, so that state cannot be shared (the rest of the widget's state still is).
        if (t === null || t === text(base[name]) || t.length > MAX_URL_VALUE) url.searchParams.delete(ns + key);
        else url.searchParams.set(ns + key, t);
      }
      const href = url.href.replace(/%2C/gi, ","); // commas are fine in a query and easier to read
      if (href !== location.href) history.replaceState(history.state, "", href);
    },
    restore(send, current) {
      const wanted = state.read();
      if (wanted) send({ ...current, ...wanted }, true);
      return wanted;
    },
  };
  root.c9Url = state;
  return state;
}

// Sets a form's named controls to these parameters (a state opened from the address). Names without a
// control are skipped; outputs and labels that follow a control are the widget's own business.
export function showControls(form, params) {
  for (const [name, value] of Object.entries(params)) {
    const el = form.elements.namedItem(name);
    if (!el || value == null) continue;
    if (el instanceof RadioNodeList) el.value = String(value);
    else if (el.type === "checkbox") el.checked = Boolean(value);
    else el.value = String(value);
  }
}


// ---- Charts: the first draw once Plotly is loaded, and every redraw after ------------------------
// A widget's chart div gets its build-time figure as soon as Plotly arrives; data-chart="drawn" on the
// root tells tests (and readers of the DOM) that it is up. Returns the teardown for the page's exit.
// `figure` may be a function giving the latest figure: Python can answer first (a state opened from
// the address is sent at once), and the first draw must then show that answer, not the default.
export function drawChart(root, chart, figure) {
  loadPlotly(root).then((Plotly) => {
    if (!root.isConnected) return;
    plot(Plotly, chart, typeof figure === "function" ? figure() : figure).then(() => { root.dataset.chart = "drawn"; });
  }).catch(() => { chart.textContent = "图表脚本没能加载；下面的文字和表格给出了同样的数字。"; });
  return () => { if (window.Plotly) window.Plotly.purge(chart); };
}

export function redrawChart(chart, figure) {
  if (window.Plotly) plot(window.Plotly, chart, figure);
}
