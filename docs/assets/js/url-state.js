// A widget's state in the page address, so a reader can share exactly what they see.
// Keys are "<prefix>.<name>": the widget's short prefix (ledger, bf, ru, ls, bl, mn, mb, tl) and, for the
// second or third widget of the same kind on a page, 2 or 3 after it (document order), e.g.
//   lesson-3/?ru2.steps=500&ls.k=12        lesson-5/?mb.s=8192&mb.b=2&tl.mode=full_recompute
// A switch is 1 or 0. Only values that differ from the build-time default are written, so a page in
// its default state keeps a bare address; Material's own ?q= (search) and the #anchor are left alone.
// Writing: liveView (live-view.js) calls write() after each answer Python accepted, with history.replaceState
// (Material's history.state kept) — never pushState, so Back leaves the page instead of undoing slider
// moves — and only while the address is still this widget's page: instant navigation changes the
// address before the old page is swapped out, and Back to an address with keys mounts it anew.
// Reading: restore(send, current) sends the address's values over the widget's current parameters,
// once, through Python like any input: a bad value gets the widget's Chinese message in .c9-status,
// the build-time default stays drawn, and the controls are set (draw's `restoring`) only from an
// accepted answer. `fields` lists the parameter names, or maps short URL names to them;
// `legacy` names are also read without the prefix (older links) and dropped on the next write; `base`
// replaces the default view's params where those lack a field (a parameter only some parts carry).
const MAX_URL_VALUE = 1000; // characters
export function urlState(root, prefix, fields, { legacy = [], base: given } = {}) {
  const names = Array.isArray(fields) ? Object.fromEntries(fields.map((f) => [f, f])) : fields;
  const same = [...document.querySelectorAll(`.c9-widget[data-widget="${root.dataset.widget}"]`)];
  const nth = same.indexOf(root) + 1;
  const ns = `${prefix}${nth > 1 ? nth : ""}.`;
  const page = location.pathname;
  const base = given || JSON.parse(root.dataset.default || "{}").params || {};
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
