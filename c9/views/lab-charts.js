import { loadPlotly, plot } from "../core.js";

// ---- The lab page: draw the build-time figure (no Python; the numbers are in the HTML already) -----
export default function mount(root) {
  const chart = root.querySelector(".c9-chart");
  if (!chart || !root.dataset.default) return;
  const { figure } = JSON.parse(root.dataset.default);
  loadPlotly(root).then((Plotly) => {
    if (!root.isConnected) return;
    plot(Plotly, chart, figure).then(() => { root.dataset.chart = "drawn"; });
  }).catch(() => { /* the table and summary below the chart already carry the numbers */ });
  return () => { if (window.Plotly) window.Plotly.purge(chart); };
}
