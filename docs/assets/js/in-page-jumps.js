// Jumps within the page are the browser's own: it lands the target at its scroll-margin (Material's :target
// rule clears the sticky header) and keeps each place for Back and Forward, as with scripts off. Material's
// instant navigation took these links over, and on the first one after a page opened it fetched the page
// again and swapped in the fresh copy (its stream of addresses starts empty, so the first address always
// looks like another page): the copy's widgets were not mounted yet, so the place it scrolled to landed as
// far off as mounting had moved the text above (445 px on lesson 5), and every widget was mounted twice.
// Links to another page, and search results (their ?h= marks the words found), stay with Material.
// A classic script before Material's bundle (overrides/main.html): a fragment's navigation fires popstate,
// and this listener must come before Material's on window to keep the event from it.
(() => {
  // The page whose content is in the document, or on its way: Material swaps it in after a fetch, and a Back
  // pressed before that must not be taken for a jump within the page the fetch will replace.
  let shown = location.pathname;
  let linked = ""; // the #id of the page on its way when a link brought it, not a step back or forward
  const push = history.pushState;
  history.pushState = function pushState(...args) { // Material's instant navigation to another page
    push.apply(this, args);
    shown = location.pathname;
    linked = location.hash;
  };

  // After a jump to page#id (an address opened with one, or a page Material brings in), the page's widgets
  // mount and change the layout above the target, and the browser's scroll anchoring holds the block that
  // straddles the top edge, not the target (a search result on lesson 4 stopped 16 px low; an exercise
  // folding its answer away moved lesson 2's next heading 14 px up). Until the widgets have mounted
  // (course.js: data-c9-widgets) and the layout has then held still for half a second, or the reader
  // scrolls, the target is kept where its scroll-margin puts it; 10 s at most, as a machine under load
  // mounts late.
  // byLink: Material brought the page in and jumped (jumpTo below makes sure); else the address was opened,
  // and the browser's own jump may still be to come (Material's bundle runs before it).
  function holdTarget(byLink) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target || (byLink && !target.matches(":target"))) return;
    const inputs = ["wheel", "touchstart", "keydown", "pointerdown"];
    let held = true, still = 0, frames = 0;
    const release = () => { held = false; };
    for (const type of inputs) addEventListener(type, release, { capture: true, passive: true });
    const step = () => {
      held &&= target.isConnected && decodeURIComponent(location.hash.slice(1)) === target.id; // no later jump
      if (!held || still >= 30 || ++frames > 600) {
        for (const type of inputs) removeEventListener(type, release, { capture: true });
        return;
      }
      const off = target.getBoundingClientRect().top - parseFloat(getComputedStyle(target).scrollMarginTop);
      const by = Math.min(off, document.scrollingElement.scrollHeight - innerHeight - scrollY); // the foot stops it lower
      const mounting = document.documentElement.dataset.c9Widgets === "mounting";
      if (Math.abs(by) >= 1) { scrollBy(0, by); still = 0; } else still = mounting ? 0 : still + 1;
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }
  // The table row an address names is marked (course.css): :target marks it after a load or a jump within the
  // page, but not on a page Material's instant navigation brought in, whose target it scrolled to itself.
  function markRow() {
    for (const row of document.querySelectorAll("tr.c9-target")) row.classList.remove("c9-target");
    const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target?.matches("tr")) target.classList.add("c9-target");
  }
  addEventListener("hashchange", markRow);
  // Material jumps to a linked page's #id only while the new step has no state, but its record of the place
  // scrolled to lands on that step when the reader scrolled less than 100 ms before the click (a wheel's
  // smooth scroll still running): it then restored that place, and its heading tracking rewrote the address
  // to the heading there (lesson 3's link to lesson 1's ledger row landed 3,611 px off). The jump it skipped.
  function jumpTo(hash) {
    history.scrollRestoration = "auto"; // as Material does: the popstate listener below leaves this jump alone
    location.replace(hash); // in place of the heading's address, not a step of its own
    history.scrollRestoration = "manual";
  }
  // The page as first opened: an address typed or followed, not a reload or a step back, whose place the
  // browser restores (Material has written a place into history.state by the time its stream starts).
  let opened = performance.getEntriesByType?.("navigation")[0]?.type === "navigate";
  addEventListener("DOMContentLoaded", () => window.document$?.subscribe(() => {
    const hash = linked;
    shown = location.pathname;
    linked = "";
    const target = hash ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
    if (target && !target.matches(":target")) jumpTo(hash);
    markRow();
    if (location.hash && (hash || opened)) holdTarget(Boolean(hash)); // not a step back, whose place Material restores
    opened = false;
  }));

  // Material's heading tracking rewrites the address to the section heading the page is in; a link to a table
  // row (lesson 3 to lesson 1's #ledger-bf16_pure_sr) lost its row that way, and a copied address with it.
  // While the row the address names is in view, the address keeps it.
  const replace = history.replaceState;
  history.replaceState = function replaceState(state, title, url) {
    const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (url !== undefined && target?.matches("tr")) {
      const next = new URL(url, location.href);
      const box = target.getBoundingClientRect();
      if (next.pathname === location.pathname && next.hash !== location.hash && box.bottom > 0 && box.top < innerHeight) {
        replace.call(this, state, title, location.href);
        return;
      }
    }
    replace.call(this, state, title, url);
  };

  const drawer = () => document.querySelector("[data-md-toggle=drawer]");

  function fragmentHere(link, event) {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || link.target) return null;
    const url = new URL(link.href, location.href);
    const same = url.origin === location.origin && url.pathname === shown && [location.search, ""].includes(url.search);
    return same && url.hash ? url.hash : null;
  }

  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    const hash = link && fragmentHere(link, event);
    if (!hash) return;
    event.stopPropagation(); // Material's handler listens on document.body
    event.preventDefault();
    // This address with the link's fragment (a widget's state in ?… kept): the browser jumps and adds a step to
    // the history, and jumps again to the fragment it is on, which setting location.hash would not.
    Object.assign(document.createElement("a"), { href: hash }).click();
    if (drawer()?.checked) drawer().click(); // the phone's drawer closes, as after Material's navigation
  }, true);

  addEventListener("popstate", (event) => {
    if (location.pathname !== shown) { shown = location.pathname; linked = ""; return; } // another page: Material brings it in
    event.stopImmediatePropagation();
    // Once Material has navigated it asks the browser not to restore places; then the one its state keeps.
    if (history.scrollRestoration !== "manual") return;
    const { x = 0, y } = history.state || {};
    if (typeof y === "number") scrollTo(x, y);
    else document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  });
})();
