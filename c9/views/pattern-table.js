// ---- Lesson 4: the 256-pattern table. The table is complete in the HTML; this makes it an ARIA grid
// (one tab stop; the arrow keys, Home/End, PageUp/PageDown and Ctrl+Home/End move between cells, so a
// screen reader leaves the keys to it) and writes the chosen cell's details (its title) below it.
export default function mount(root) {
  const table = root.querySelector("table");
  const cells = [...root.querySelectorAll("td[data-code]")];
  const detail = root.querySelector(".c9-pt-detail");
  if (cells.length !== 256) return null;
  let current = cells.findIndex((c) => c.title === detail.textContent.trim());
  if (current < 0) current = 0;
  table.setAttribute("role", "grid");
  cells.forEach((c, i) => {
    c.tabIndex = i === current ? 0 : -1;
    c.setAttribute("aria-selected", String(i === current));
  });

  const show = (i, focus) => {
    cells[current].tabIndex = -1;
    cells[current].setAttribute("aria-selected", "false");
    current = i;
    cells[i].tabIndex = 0;
    cells[i].setAttribute("aria-selected", "true");
    detail.textContent = cells[i].title;
    if (focus) cells[i].focus();
  };
  const onKey = (e) => {
    const i = cells.indexOf(e.target);
    if (i < 0) return;
    const r = i >> 4, c = i & 15;
    const moves = { ArrowRight: [r, c + 1], ArrowLeft: [r, c - 1], ArrowDown: [r + 1, c], ArrowUp: [r - 1, c],
      Home: e.ctrlKey ? [0, 0] : [r, 0], End: e.ctrlKey ? [15, 15] : [r, 15], PageUp: [0, c], PageDown: [15, c] };
    const to = moves[e.key];
    if (!to) return;
    e.preventDefault();
    const [nr, nc] = to;
    if (nr < 0 || nr > 15 || nc < 0 || nc > 15) return;
    show(nr * 16 + nc, true);
  };
  const onFocus = (e) => { const i = cells.indexOf(e.target); if (i >= 0 && i !== current) show(i, false); else if (i >= 0) detail.textContent = cells[i].title; };
  const onClick = (e) => { const td = e.target.closest("td[data-code]"); if (td) show(cells.indexOf(td), true); };
  root.addEventListener("keydown", onKey);
  root.addEventListener("focusin", onFocus);
  root.addEventListener("click", onClick);
  return () => {
    table.removeAttribute("role");
    root.removeEventListener("keydown", onKey);
    root.removeEventListener("focusin", onFocus);
    root.removeEventListener("click", onClick);
  };
}
