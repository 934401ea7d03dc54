// The course's service worker: after a first visit, the pages and the widgets work with the network cut.
// It sits at the site's root, so its scope is every page under the site's sub-path (e.g. /c9/).
// - vendor/ (Pyodide, Plotly.js, KaTeX, the web font: copied by the build from pinned npm packages):
//   cache first, each file cached when a page first uses it. Nothing is fetched ahead: a reader who
//   never touches a widget never downloads Pyodide (≈ 6 MB gzip).
// - everything else in the scope (pages, assets/*.js, *.css, course-py.zip, numbers.json, the widgets'
//   answer caches in assets/answers/, the search index, sitemap.xml): network first, the cached copy only
//   when the network fails, so a reader online always gets the fresh page. A widget's answer cache is
//   fetched when the widget nears the screen and kept here like the rest: offline, a widget used before
//   answers its first touches from it even if Python was never downloaded.
// Only same-origin GET requests in the scope are handled. The build (hooks/course.py) writes the line
// below: the cache versions, one per folder of vendor/ (a new web font does not throw away Pyodide) and
// one for the rest; and the scripts Material's search worker imports for the site's language. On
// activation the caches of other versions of this site are deleted.
const BUILD = { vendor: {}, site: "dev", search: [] }; // c9:build

const SCOPE = self.registration.scope;           // ends with "/"
// Caches belong to the origin, which other sites may share (user.github.io/other-repo/): ours carry the scope.
const PREFIX = `c9 ${SCOPE} `;
const SITE_CACHE = `${PREFIX}site-${BUILD.site}`;
const VENDOR = new URL("vendor/", SCOPE).href;
const VENDOR_CACHES = Object.fromEntries(Object.entries(BUILD.vendor)
  .map(([folder, version]) => [folder, `${PREFIX}vendor-${folder}-${version}`]));
const CURRENT = new Set([SITE_CACHE, ...Object.values(VENDOR_CACHES)]);

// vendor/pyodide/pyodide.asm.wasm → Pyodide's cache; anything else → null (network first, site cache).
function vendorCache(url) {
  return url.startsWith(VENDOR) ? VENDOR_CACHES[url.slice(VENDOR.length).split("/")[0]] || null : null;
}

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && !CURRENT.has(name)) await caches.delete(name);
    }
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
    await self.clients.claim(); // the first page is controlled without a reload
  })());
});

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
    .then(() => FONT_FILE.test(url) && keepAllFontFiles(cacheName))
    .catch((err) => console.warn("C9 service worker: not cached:", url, err)));
}

// The web font comes in slices (hooks/fonts.py), and a page fetches only those its drawn text needs: a part
// never scrolled to fetched none of its own. Once a reader needs one (no CJK system font), all the font's
// files are kept, so that every page and part read offline. A reader with a CJK font fetches none.
const FONT_FILE = /\/vendor\/fonts\/files\/noto-sans-sc-[^/]+\.woff2$/;
async function keepAllFontFiles(cacheName) {
  const css = new URL("vendor/fonts/noto-sans-sc.css", SCOPE).href;
  const text = await (await caches.match(css) || await fetch(css)).text();
  const cache = await caches.open(cacheName);
  await Promise.all([...text.matchAll(/url\(\.\/(files\/[^)]+)\)/g)].map(async ([, file]) => {
    const url = new URL(file, css).href;
    if (await cache.match(url)) return;
    const response = await fetch(url);
    if (cacheable(response)) await cache.put(url, response);
  }));
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
    throw err;
  }
}

// A page never opened online cannot be shown offline: say so in Chinese instead of the browser's error page.
function offlinePage() {
  const html = `<!doctype html><html lang="zh-Hans"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>离线:这一页还没有缓存</title>
<body style="font-family: sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.6">
<h1>现在是离线状态</h1>
<p>这一页还没有在联网时打开过,所以没有存在本机。联网后再打开它;之后断网也能读。</p>
<p>联网时读过的页面(和用过的组件)离线也能用:<a href="${SCOPE}">回到章导读</a>。</p></body></html>`;
  return new Response(html, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

// The first page a reader opens loads before this worker controls it; the page then sends the URLs it
// loaded ({cache: [url, …]}) and they are cached here, so that page works offline too. The search worker
// started by that page imported its scripts unseen by the page: they are added here.
self.addEventListener("message", (event) => {
  const urls = event.data && Array.isArray(event.data.cache) ? event.data.cache : [];
  if (!urls.length) return;
  const search = BUILD.search.map((path) => new URL(path, SCOPE).href);
  event.waitUntil(Promise.all([...urls, ...search].map(async (raw) => {
    if (typeof raw !== "string") return;
    const url = raw.split("#")[0];
    if (!url.startsWith(SCOPE)) return;
    const cacheName = vendorCache(url) || SITE_CACHE;
    if (await caches.match(url, { cacheName })) return;
    const response = await fetch(url);
    if (cacheable(response)) await (await caches.open(cacheName)).put(url, response);
    if (FONT_FILE.test(url)) await keepAllFontFiles(cacheName);
  }).map((p) => p.catch(() => {}))));
});
