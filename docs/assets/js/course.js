// The course's front end. Python computes, JavaScript draws: each widget reads its controls, asks
// the Python worker for a view (numbers, a Chinese summary, a Plotly spec) and redraws.
// Widget contract: one root element [data-widget=NAME] with its default view in data-default
// (computed at build time, so the page is whole before and without Python), CSS scoped to
// .c9-widget, no globals, mounted once (guarded by root.c9Mounted), torn down when the page is left.

document.documentElement.classList.add("c9-js");

const ASSETS = new URL("../", import.meta.url);           // site/assets/
const VENDOR = new URL("../../vendor/", import.meta.url); // site/vendor/

// ---- Python in a Web Worker, started lazily and shared across instant-navigation pages ----------
const python = {
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
      if (data.ready) {
        this.state = "ready"; this.bootMs = data.bootMs;
        performance.mark("c9:python-ready");
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
  ask(request) {
    this.start();
    if (this.state === "failed") return Promise.reject(new PythonUnavailable("failed earlier"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, request });
    });
  },
};
class PythonUnavailable extends Error {}

// ---- Plotly, loaded only on pages that draw a chart ---------------------------------------------
let plotlyLoading = null;
function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  plotlyLoading ??= new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = new URL("plotly/plotly-cartesian.min.js", VENDOR).href;
    s.onload = () => resolve(window.Plotly);
    s.onerror = () => { plotlyLoading = null; reject(new Error("plotly failed to load")); };
    document.head.append(s);
  });
  return plotlyLoading;
}

function themed(figure) {
  const fg = getComputedStyle(document.body).getPropertyValue("--md-default-fg-color").trim();
  const layout = { ...figure.layout, font: { ...figure.layout.font, color: fg || undefined } };
  return { data: figure.data, layout, config: { displayModeBar: false, responsive: true } };
}

// ---- A widget's request loop: the latest input wins, one request in flight ------------------------
function liveView(widget, root, draw) {
  const status = root.querySelector(".c9-status");
  let inFlight = false, queued = null;
  const say = (text, kind) => { status.textContent = text; status.dataset.kind = kind || ""; };
  async function send(params) {
    if (inFlight) { queued = params; return; }
    inFlight = true;
    const t0 = performance.now();
    if (python.state !== "ready") say("正在启动页面里的 Python(第一次约需几秒)……", "busy");
    try {
      const answer = await python.ask({ widget, params });
      if (answer.ok) {
        draw(answer.view);
        root.dataset.state = "live";
        say(`Python 已算出这一状态(${Math.max(1, Math.round(performance.now() - t0))} ms)。`, "ok");
        performance.mark("c9:redraw");
      } else {
        say(`输入有误:${answer.error}`, "error");
      }
    } catch (err) {
      root.dataset.state = "no-python";
      say(err instanceof PythonUnavailable
        ? "页面里的 Python 没能加载(网络或浏览器不支持 WebAssembly)。图和数字停在构建时算好的默认状态,正文不受影响。"
        : `出错了:${err.message}`, "error");
    } finally {
      inFlight = false;
      if (queued) { const next = queued; queued = null; send(next); }
    }
  }
  return { send, say };
}

// ---- Lesson 5: the stacked memory bar -----------------------------------------------------------
function mountMemoryBar(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const summary = root.querySelector(".c9-summary");
  const tbody = root.querySelector(".c9-segments tbody");
  const explain = root.querySelector(".c9-explain");
  const stops = root.dataset.stops.split(",").map(Number);
  const sRange = form.elements.s_stop, sBox = form.elements.s, bRange = form.elements.b;
  let view = JSON.parse(root.dataset.default);

  const draw = (v) => {
    view = v;
    summary.textContent = v.summary;
    document.dispatchEvent(new CustomEvent("c9:memory-bar", { detail: v.params }));
    for (const seg of v.segments) {
      const row = tbody.querySelector(`tr[data-key="${seg.key}"]`);
      if (row) { row.cells[1].textContent = seg.text; row.cells[2].textContent = seg.formula; }
    }
    if (explain.dataset.key) showSegment(explain.dataset.key);
    if (window.Plotly) { const f = themed(v.figure); window.Plotly.react(chart, f.data, f.layout, f.config); }
  };
  const showSegment = (key) => {
    const seg = view.segments.find((s) => s.key === key);
    if (!seg) return;
    explain.dataset.key = key;
    explain.textContent = `${seg.label}:${seg.text},按 ${seg.formula} 计。${seg.note}`;
  };
  const params = () => ({
    model: form.elements.model.value,
    s: sBox.value.trim(),
    b: Number(bRange.value),
    mode: form.elements.mode.value,
    s2_full_only: form.elements.s2_full_only.checked,
  });
  const { send } = liveView("memory-bar", root, draw);

  const nearestStop = (s) => stops.reduce((best, x, i) => Math.abs(Math.log(x / s)) < Math.abs(Math.log(stops[best] / s)) ? i : best, 0);
  const onInput = (e) => {
    if (e.target === sRange) sBox.value = stops[Number(sRange.value)];
    if (e.target === sBox) {
      const s = Number(sBox.value);
      if (Number.isFinite(s) && s > 0) sRange.value = nearestStop(s);
    }
    sRange.setAttribute("aria-valuetext", `s = ${Number(sBox.value).toLocaleString("en-US")}`);
    form.elements.b_out.value = bRange.value;
    send(params());
  };
  form.addEventListener("input", (e) => { if (e.target !== sBox) onInput(e); });
  sBox.addEventListener("change", onInput);   // typed values are sent once committed
  form.addEventListener("submit", (e) => { e.preventDefault(); onInput({ target: sBox }); });
  tbody.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-key]");
    if (b) showSegment(b.dataset.key);
  });

  loadPlotly().then((Plotly) => {
    if (!root.isConnected) return;
    const f = themed(view.figure);
    Plotly.newPlot(chart, f.data, f.layout, f.config).then(() => {
      chart.on("plotly_click", (ev) => { const key = ev.points?.[0]?.customdata; if (key) showSegment(key); });
      performance.mark("c9:widget-ready");
      root.dataset.chart = "drawn";
    });
  }).catch(() => {
    chart.textContent = "图表脚本没能加载;下面的文字和表格给出了同样的数字。";
  });

  return () => { if (window.Plotly) window.Plotly.purge(chart); };
}

// ---- Lesson 5: Korthikanti's formula, term by term ------------------------------------------------
function mountFormula(root) {
  const summary = root.querySelector(".c9-formula-summary");
  const items = new Map([...root.querySelectorAll(".c9-term-item")].map((el) => [el.dataset.term, el]));
  const buttons = [...root.querySelectorAll("button.c9-term")];
  root.classList.add("c9-formula-live");
  const select = (key) => {
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.term === key));
    for (const [k, el] of items) el.classList.toggle("c9-active", k === key);
  };
  for (const b of buttons) {
    b.addEventListener("click", () => select(b.dataset.term));
    b.addEventListener("focus", () => select(b.dataset.term));
  }
  const draw = (v) => {
    summary.textContent = v.summary;
    for (const term of v.terms) {
      const value = items.get(term.key)?.querySelector(".c9-term-value");
      if (value) value.textContent = term.value;
    }
  };
  const { send } = liveView("formula", root, draw);
  const follow = (e) => send({ model: e.detail.model, s: e.detail.s, b: e.detail.b });
  document.addEventListener("c9:memory-bar", follow);
  return () => document.removeEventListener("c9:memory-bar", follow);
}

// ---- Lesson 5: the memory timeline of one iteration ----------------------------------------------
function mountTimeline(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const now = root.querySelector(".c9-now");
  const summary = root.querySelector(".c9-summary");
  const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  let view = JSON.parse(root.dataset.default);
  let frame = view.n - 1, timer = null;

  const figureAt = (k) => {
    const [line, peak] = view.figure.data;
    const shown = { ...line, x: line.x.slice(0, k + 1), y: line.y.slice(0, k + 1), text: line.text.slice(0, k + 1) };
    const data = [shown, k >= view.peak_index ? peak : { ...peak, x: [], y: [], text: [] }];
    return themed({ data, layout: view.figure.layout });
  };
  const announce = (k) => {
    const line = view.figure.data[0];
    now.textContent = `第 ${k} 步(共 ${view.n - 1} 步):${line.text[k]},${line.y[k].toFixed(1)} GB。`;
  };
  const drawFrame = (k, speak) => {
    frame = k;
    if (window.Plotly) { const f = figureAt(k); window.Plotly.react(chart, f.data, f.layout, f.config); }
    if (speak) announce(k);
  };
  const pause = () => { clearInterval(timer); timer = null; };
  const play = () => {
    pause();
    if (reduceMotion.matches) { drawFrame(view.n - 1, true); return; }
    let k = frame >= view.n - 1 ? 0 : frame;
    const perFrame = Math.max(16, Math.round(6000 / view.n)); // about six seconds for one iteration
    timer = setInterval(() => {
      drawFrame(k, false);
      if (k >= view.n - 1) { pause(); announce(k); }
      k += 1;
    }, perFrame);
  };
  const step = () => { pause(); drawFrame(frame >= view.n - 1 ? 0 : frame + 1, true); };

  const draw = (v) => {
    pause();
    view = v;
    summary.textContent = v.summary;
    const tbody = root.querySelector(".c9-marks tbody");
    tbody.replaceChildren(...v.marks.map((m) => {
      const tr = document.createElement("tr");
      for (const text of [m.i, m.label + (m.i === v.peak_index ? "(峰值)" : ""), m.text]) {
        const td = document.createElement("td"); td.textContent = text; tr.append(td);
      }
      return tr;
    }));
    drawFrame(v.n - 1, false);
  };
  const { send } = liveView("timeline", root, draw);
  form.addEventListener("input", () => send({
    model: form.elements.model.value,
    iteration: Number(form.elements.iteration.value),
    mode: form.elements.mode.value,
  }));
  form.addEventListener("submit", (e) => e.preventDefault());
  form.addEventListener("click", (e) => {
    const action = e.target.closest("button[data-action]")?.dataset.action;
    if (action === "play") play();
    if (action === "pause") pause();
    if (action === "step") step();
  });

  loadPlotly().then((Plotly) => {
    if (!root.isConnected) return;
    const f = figureAt(frame);
    Plotly.newPlot(chart, f.data, f.layout, f.config).then(() => { root.dataset.chart = "drawn"; });
  }).catch(() => { chart.textContent = "图表脚本没能加载;下面的文字和表格给出了同样的数字。"; });

  return () => { pause(); if (window.Plotly) window.Plotly.purge(chart); };
}

// ---- Guided tasks: predict, try it in the widget, check ------------------------------------------
// Markdown: an admonition "task" holding a list of choices (the right one marked {: .correct }) and a
// collapsible answer. Without JavaScript the reader sees the choices and opens the answer.
function mountTask(root) {
  const list = root.querySelector("ul");
  const answer = root.querySelector("details");
  if (!list || !answer) return null;
  const name = `c9-task-${Math.random().toString(36).slice(2)}`;
  const choices = [...list.children].map((li, i) => {
    const label = document.createElement("label");
    label.className = "c9-choice";
    const input = Object.assign(document.createElement("input"), { type: "radio", name, value: String(i) });
    label.append(input, " ", ...li.childNodes);
    li.replaceChildren(label);
    return { li, input, correct: li.classList.contains("correct") };
  });
  list.classList.add("c9-task-choices");
  const check = Object.assign(document.createElement("button"), { type: "button", className: "md-button", textContent: "核对" });
  const verdict = Object.assign(document.createElement("p"), { className: "c9-verdict" });
  verdict.setAttribute("aria-live", "polite");
  list.after(check, verdict);
  check.addEventListener("click", () => {
    const picked = choices.find((c) => c.input.checked);
    if (!picked) { verdict.textContent = "先选一个你的预测。"; return; }
    verdict.textContent = picked.correct ? "预测对了。下面是道理:" : "和算出来的不一样。下面是道理:";
    verdict.dataset.kind = picked.correct ? "ok" : "error";
    for (const c of choices) c.li.classList.toggle("c9-correct", c.correct);
    answer.open = true;
  });
  return null;
}

const WIDGETS = { "memory-bar": mountMemoryBar, formula: mountFormula, timeline: mountTimeline };

// ---- Mounting, for first load and every instant-navigation page ----------------------------------
const mounted = new Map(); // root element → teardown
const warmUp = "IntersectionObserver" in window
  ? new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) python.start(); }, { rootMargin: "400px" })
  : null;

function mountAll() {
  for (const [root, teardown] of mounted) {
    if (!root.isConnected) { teardown(); mounted.delete(root); }
  }
  for (const root of document.querySelectorAll(".admonition.task")) {
    if (!root.c9Mounted) { root.c9Mounted = true; mountTask(root); }
  }
  for (const root of document.querySelectorAll(".c9-widget[data-widget]")) {
    if (root.c9Mounted) continue;
    const mount = WIDGETS[root.dataset.widget];
    if (!mount) continue;
    root.c9Mounted = true;
    try {
      mounted.set(root, mount(root) || (() => {}));
      warmUp?.observe(root);
      root.addEventListener("pointerdown", () => python.start(), { once: true });
      root.addEventListener("focusin", () => python.start(), { once: true });
    } catch (err) {
      console.error("C9 widget failed to mount:", root.dataset.widget, err);
      const status = root.querySelector(".c9-status");
      if (status) status.textContent = "这个组件没能启动;正文和默认数字不受影响。";
    }
  }
}

if (window.document$) window.document$.subscribe(mountAll);
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
else mountAll();

// For tests and the benchmark: the state of the Python worker.
export const c9 = { python };
