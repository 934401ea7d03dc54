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
export class PythonUnavailable extends Error {}

// ---- Plotly, loaded only on pages that draw a chart ---------------------------------------------
let plotlyLoading = null;
export function loadPlotly() {
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

export function themed(figure) {
  const fg = getComputedStyle(document.body).getPropertyValue("--md-default-fg-color").trim();
  const layout = { ...figure.layout, font: { ...figure.layout.font, color: fg || undefined } };
  return { data: figure.data, layout, config: { displayModeBar: false, responsive: true } };
}

// ---- A widget's request loop: the latest input wins, one request in flight ------------------------
export function liveView(widget, root, draw) {
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


// ---- Charts: the first draw once Plotly is loaded, and every redraw after ------------------------
// A widget's chart div gets its build-time figure as soon as Plotly arrives; data-chart="drawn" on the
// root tells tests (and readers of the DOM) that it is up. Returns the teardown for the page's exit.
export function drawChart(root, chart, figure) {
  loadPlotly().then((Plotly) => {
    if (!root.isConnected) return;
    const f = themed(figure);
    Plotly.newPlot(chart, f.data, f.layout, f.config).then(() => { root.dataset.chart = "drawn"; });
  }).catch(() => { chart.textContent = "图表脚本没能加载;下面的文字和表格给出了同样的数字。"; });
  return () => { if (window.Plotly) window.Plotly.purge(chart); };
}

export function redrawChart(chart, figure) {
  if (window.Plotly) { const f = themed(figure); window.Plotly.react(chart, f.data, f.layout, f.config); }
}
