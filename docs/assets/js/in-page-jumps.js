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
  let shown = location.pathname; // the page whose content is in the document (Material swaps it)
  addEventListener("DOMContentLoaded", () => window.document$?.subscribe(() => { shown = location.pathname; }));

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
    if (location.pathname !== shown) return; // another page: Material brings it in
    event.stopImmediatePropagation();
    // Once Material has navigated it asks the browser not to restore places; then the one its state keeps.
    if (history.scrollRestoration !== "manual") return;
    const { x = 0, y } = history.state || {};
    if (typeof y === "number") scrollTo(x, y);
    else document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  });
})();
