// Wide tables: a cue above the box that scrolls, saying how many columns are out of view, and the box
// made reachable by keyboard. course.js asks for the cues of each page it mounts.
// The scrolling box is the table itself or the nearest wrapper that scrolls sideways (Material's
// .md-typeset__scrollwrap, a widget's .c9-*-scroll). Its first column stays pinned (course.css).
const cueText = (hidden) => `表格比这里宽：还有 ${hidden} 列在右边，左右滑动查看（第一列固定不动）`;
const CUE_AT_END = "表格比这里宽：左右滑动查看（第一列固定不动）";
function scrollerOf(table) {
  for (let el = table; el && el.tagName !== "ARTICLE"; el = el.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(el).overflowX)) return el;
  }
  return null;
}
// Measures every box first and writes the cues after: a write between two boxes' measurements would make the
// browser lay the whole page out again for each table (lesson 5 lost about half a second to that).
function measureCue(box) {
  const right = box.getBoundingClientRect().right;
  const cells = [...(box.querySelector("tr")?.cells || [])];
  return {
    box,
    hidden: cells.filter((c) => c.getBoundingClientRect().right > right + 1).length,
    more: box.scrollWidth > box.clientWidth + 1,
    atEnd: box.scrollLeft + box.clientWidth >= box.scrollWidth - 1,
  };
}
function writeCue({ box, hidden, more, atEnd }) {
  box.c9Cue.hidden = !more;
  if (more && !box.hasAttribute("tabindex")) {
    // A box that scrolls must be reachable by keyboard (arrow keys scroll it once it has focus).
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    const caption = box.querySelector("caption")?.textContent.trim();
    box.setAttribute("aria-label", caption ? `${caption}（可左右滑动）` : "可左右滑动的表格");
  }
  // Both wordings stay in the cue, one of them invisible, so the cue is as tall as the longer one: at 390 px
  // the table below jumped 23 px when the cue went from two lines to one at the scroll's end.
  const [counted, plain] = box.c9Cue.children;
  if (more && hidden) counted.textContent = cueText(hidden);
  counted.classList.toggle("c9-cue-off", !hidden);
  plain.classList.toggle("c9-cue-off", Boolean(hidden));
  box.classList.toggle("c9-more-right", more && !atEnd);
  box.classList.toggle("c9-scrolls", more); // its caption keeps clear of the fade at either end (course.css)
}
const updateCues = (boxes) => boxes.map(measureCue).forEach(writeCue);
// The observer's first report for each box comes after the page's next layout, all boxes in one call.
const cueSizes = "ResizeObserver" in window ? new ResizeObserver((entries) => updateCues(entries.map((e) => e.target))) : null;
// A table's cue is made when the table nears the screen: finding its scroll box reads computed styles and the
// cue is measured, which for every table at once would cost the opening page a style and layout pass.
function addCue(table) {
  const box = scrollerOf(table);
  if (!box || box.c9Cue) return;
  box.c9Cue = Object.assign(document.createElement("p"), { className: "c9-scroll-cue", hidden: true });
  box.c9Cue.setAttribute("aria-hidden", "true"); // the table itself is there for screen readers
  box.c9Cue.append(document.createElement("span"), Object.assign(document.createElement("span"), { textContent: CUE_AT_END }));
  box.before(box.c9Cue);
  box.addEventListener("scroll", () => updateCues([box]), { passive: true });
  if (cueSizes) cueSizes.observe(box);
  else updateCues([box]);
}
const nearScreen = "IntersectionObserver" in window
  ? new IntersectionObserver((entries) => {
    for (const e of entries.filter((x) => x.isIntersecting)) { nearScreen.unobserve(e.target); addCue(tableIn(e.target)); }
  }, { rootMargin: "100% 0px" })
  : null;
// A widget that redraws a table (lesson 5's estimator: another model chosen before the reader scrolled down)
// replaces it inside its [data-part] box: watching the old table, the cue was never made; the box stays.
const tableIn = (el) => (el.tagName === "TABLE" ? el : el.querySelector("table"));
export function addScrollCues() {
  for (const table of document.querySelectorAll("article table")) {
    const watched = table.closest("[data-part]") || table;
    if (watched.c9CueAsked) continue;
    watched.c9CueAsked = true;
    if (nearScreen) nearScreen.observe(watched);
    else addCue(table);
  }
}
