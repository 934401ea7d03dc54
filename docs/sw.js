// The course's service worker: the pages a reader opened, or the whole chapter once saved, work with the network cut.
// It sits at the site's root, so its scope is every page under the site's sub-path (e.g. /c9/).
// - At install it keeps the shell: the offline fallback page (overrides/offline.html) and what it loads (the
//   site's styles and scripts, the web font, the search), so a page not saved opens offline as that page, in the
//   site's look and with its navigation, never in boxes.
// - vendor/ (Pyodide, Plotly.js, KaTeX, the web font: copied by the build from pinned npm packages):
//   cache first, each file cached when a page first uses it. Nothing else is fetched ahead: a reader who
//   never touches a widget never downloads Pyodide (≈ 6 MB gzip), unless they save the chapter.
// - everything else in the scope (pages, assets/*.js, *.css, course-py.zip, the widgets' answer caches in
//   assets/answers/, the search index, sitemap.xml): network first, the cached copy only when the network
//   fails, so a reader online always gets the fresh page.
// - The chapter saved: the footer's 「保存整章」 (save-chapter.js) asks this worker for the manifest the build
//   wrote (offline.json: every file with its size and hash) and has it store the files one by one.
// Only same-origin GET requests in the scope are handled. The build (hooks/offline.py) writes the line
// below: the cache versions (one per folder of vendor/, so a new web font does not throw away Pyodide, and
// one for the rest of the site, a hash of every file of the manifest), the scripts Material's search worker
// imports, the shell, and the mark the fallback page's links start from. On activation, the files an older
// build of this site cached that are unchanged (same hash in both manifests) are copied into the new caches,
// and the old caches are deleted.
const BUILD = { vendor: {}, site: "dev", search: [], shell: [], manifest: "offline.json", fallback: "offline.html", mark: "__C9_SCOPE__" }; // c9:build

const SCOPE = self.registration.scope;           // ends with "/"
// Caches belong to the origin, which other sites may share (user.github.io/other-repo/): ours carry the scope.
const PREFIX = `c9 ${SCOPE} `;
const SITE_CACHE = `${PREFIX}site-${BUILD.site}`;
const VENDOR = new URL("vendor/", SCOPE).href;
const VENDOR_CACHES = Object.fromEntries(Object.entries(BUILD.vendor)
  .map(([folder, version]) => [folder, `${PREFIX}vendor-${folder}-${version}`]));
const CURRENT = new Set([SITE_CACHE, ...Object.values(VENDOR_CACHES)]);
const at = (path) => new URL(path, SCOPE).href;
// A file of the manifest is asked for by its address: a page by its folder (lesson-1/index.html → lesson-1/).
const urlOf = (path) => at(path.replace(/(^|\/)index\.html$/, "$1"));
// Kept in the site cache once the reader has asked for the whole chapter: after an update, the page saves
// what changed (save-chapter.js).
const WANTED = at("c9-chapter-wanted");
const WIDGET_SCRIPTS = at("assets/js/widgets/");

// vendor/pyodide/pyodide.asm.wasm → Pyodide's cache; anything else → null (network first, site cache).
function vendorCache(url) {
  return url.startsWith(VENDOR) ? VENDOR_CACHES[url.slice(VENDOR.length).split("/")[0]] || null : null;
}
const cacheFor = (url) => vendorCache(url) || SITE_CACHE;

// Pages hear of a new worker (controllerchange) as its activation starts, and may ask it before its activate
// event has run: from install on, their questions wait until the older build's files are carried over.
let activated = Promise.resolve();
let doneActivating = () => {};

self.addEventListener("install", (event) => {
  activated = new Promise((resolve) => { doneActivating = resolve; });
  self.skipWaiting();
  // A file of the shell that fails only warns: the worker still serves what it has.
  event.waitUntil(Promise.all(BUILD.shell.map((path) => store(at(path))
    .catch((err) => console.warn("C9 service worker: not cached at install:", path, err)))));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const old = (await caches.keys()).filter((name) => name.startsWith(PREFIX) && !CURRENT.has(name));
    if (old.length) await keepUnchanged(old).catch((err) => console.warn("C9 service worker: nothing carried over:", err));
    for (const name of old) await caches.delete(name);
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
    await self.clients.claim(); // the first page is controlled without a reload
  })().finally(() => doneActivating()));
});

// A new build: what the older build's caches hold and the new manifest lists with the same hash is copied
// over, so a saved chapter stays saved but for the files that changed (and those are fetched fresh).
async function keepUnchanged(old) {
  const fresh = await manifestIn(SITE_CACHE);
  let before = null;
  for (const name of old) before = before || await manifestIn(name);
  if (!fresh || !before) return;
  const hashes = new Map(before.files.map((f) => [f.path, f.hash]));
  const copy = async (url) => {
    const target = await caches.open(cacheFor(url));
    if (await target.match(url)) return;
    for (const name of old) {
      const hit = await caches.match(url, { cacheName: name });
      if (hit) { await target.put(url, hit); return; }
    }
  };
  for (const file of fresh.files) if (hashes.get(file.path) === file.hash) await copy(urlOf(file.path));
  await copy(WANTED);
}

async function manifestIn(cacheName) {
  const hit = await caches.match(at(BUILD.manifest), { cacheName });
  return hit ? hit.json() : null;
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET" || !req.url.startsWith(SCOPE) || req.headers.has("range")) return;
  const vendor = vendorCache(req.url);
  event.respondWith(vendor ? cacheFirst(event, vendor) : networkFirst(event));
});

// Only whole, same-origin answers are kept (not a 404, a redirect or a partial body).
const cacheable = (response) => response.status === 200 && response.type === "basic";

function keep(event, cacheName, url, response) {
  if (!cacheable(response)) return;
  const copy = response.clone();
  event.waitUntil(caches.open(cacheName).then((c) => c.put(url, copy))
    .catch((err) => console.warn("C9 service worker: not cached:", url, err)));
}

// Fetches a file afresh (past the browser's HTTP cache, which may hold an older build's) and keeps it in its
// cache; onBytes(n) hears each piece of the body as it arrives.
async function store(url, onBytes) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!cacheable(response)) throw new Error(`HTTP ${response.status}`);
  const cache = await caches.open(cacheFor(url));
  if (!onBytes) return cache.put(url, response);
  const stored = cache.put(url, response.clone());
  stored.catch(() => {}); // heard below, after the body (a body cut short fails both)
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onBytes(value.byteLength);
  }
  return stored;
}

async function cacheFirst(event, cacheName) {
  const url = event.request.url;
  const hit = await caches.match(url, { cacheName });
  if (hit) return hit;
  const response = await fetch(event.request);
  keep(event, cacheName, url, response);
  return response;
}

async function networkFirst(event) {
  const req = event.request;
  try {
    const response = (await event.preloadResponse) || await fetch(req);
    keep(event, SITE_CACHE, req.url, response);
    return response;
  } catch (err) {
    const hit = await caches.match(req.url, { cacheName: SITE_CACHE })
      // A page opened with other controls in its address (lesson-5/?s=8192) falls back to the page.
      || (req.mode === "navigate" && await caches.match(req.url, { cacheName: SITE_CACHE, ignoreSearch: true }));
    if (hit) return hit;
    if (req.mode === "navigate") return offlinePage();
    // A widget's script never saved: a module that says so (course.js shows the widget's Chinese message),
    // not a failed import that the page would log as an error.
    if (req.destination === "script" && req.url.startsWith(WIDGET_SCRIPTS)) {
      return new Response('export const unavailable = "offline";\n',
        { headers: { "Content-Type": "text/javascript; charset=utf-8" } });
    }
    throw err;
  }
}

// A page not saved, opened offline: the fallback page the build rendered with the site's template (kept at
// install), its links pointed at this scope. Only if even that is missing, a few plain lines. Status 200: an
// error status would be logged in the page's console as a failed load, and the page says what happened.
async function offlinePage() {
  const page = await caches.match(at(BUILD.fallback), { cacheName: SITE_CACHE });
  const html = page
    ? (await page.text()).replaceAll(`${BUILD.mark}/`, SCOPE).replaceAll(BUILD.mark, SCOPE)
    : `<!doctype html><html lang="zh-Hans"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>离线：这一页还没有存到本机</title>
<h1>现在是离线状态</h1><p>这一页还没有存到本机。联网后再打开它，之后断网也能读。</p>
<p><a href="${SCOPE}">回到章导读</a></p></html>`;
  return new Response(html, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

// The chapter's files and which are kept: [{url, bytes, saved}], the total, and whether it was asked for.
async function chapterStatus() {
  let chapter = await manifestIn(SITE_CACHE);
  if (!chapter) {
    await store(at(BUILD.manifest));
    chapter = await manifestIn(SITE_CACHE);
  }
  const files = await Promise.all(chapter.files.map(async ({ path, bytes }) => {
    const url = urlOf(path);
    return { url, bytes, saved: Boolean(await caches.match(url, { cacheName: cacheFor(url) })) };
  }));
  const wanted = Boolean(await caches.match(WANTED, { cacheName: SITE_CACHE }));
  return { ok: true, files, bytes: chapter.bytes, wanted };
}

// Messages from save-chapter.js, each with a port for the answer: {offline: "status"}; {offline: "want"} (the
// reader asked for the chapter); {offline: "save", url} (one file of the manifest; {loaded: n} as it arrives).
async function answer(data, port) {
  try {
    await activated;
    if (data.offline === "status") {
      port.postMessage(await chapterStatus());
    } else if (data.offline === "want") {
      await (await caches.open(SITE_CACHE)).put(WANTED, new Response("1"));
      port.postMessage({ ok: true });
    } else if (data.offline === "save") {
      const chapter = await manifestIn(SITE_CACHE);
      if (!chapter || !chapter.files.some((f) => urlOf(f.path) === data.url)) throw new Error("not in the manifest");
      let loaded = 0;
      let told = 0;
      await store(data.url, (n) => {
        loaded += n;
        if (loaded - told >= 256 * 1024) { port.postMessage({ loaded: loaded - told }); told = loaded; }
      });
      port.postMessage({ ok: true, loaded: loaded - told });
    }
  } catch (err) {
    port.postMessage({ ok: false, quota: err && err.name === "QuotaExceededError", error: String(err) });
  }
}

// The first page a reader opens loads before this worker controls it; the page then sends the URLs it
// loaded ({cache: [url, …]}) and they are cached here, so that page works offline too. The search worker
// started by that page imported its scripts unseen by the page: they are added here.
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.offline && event.ports[0]) {
    event.waitUntil(answer(data, event.ports[0]));
    return;
  }
  const urls = Array.isArray(data.cache) ? data.cache : [];
  if (!urls.length) return;
  const search = BUILD.search.map((path) => at(path));
  event.waitUntil(Promise.all([...urls, ...search].map(async (raw) => {
    if (typeof raw !== "string") return;
    const url = raw.split("#")[0];
    if (!url.startsWith(SCOPE)) return;
    const cacheName = cacheFor(url);
    if (await caches.match(url, { cacheName })) return;
    const response = await fetch(url);
    if (cacheable(response)) await (await caches.open(cacheName)).put(url, response);
  }).map((p) => p.catch(() => {}))));
});
