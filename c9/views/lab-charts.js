import { drawChart } from "../charts.js";

// ---- The lab page: draw the build-time figure (no Python; the numbers are in the HTML already) -----
export default function mount(root) {
  const chart = root.querySelector(".c9-chart");
  if (!chart || !root.dataset.default) return null;
  return drawChart(root, chart, JSON.parse(root.dataset.default).figure);
}
