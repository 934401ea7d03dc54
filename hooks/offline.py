"""The chapter offline: what the service worker (docs/sw.js) keeps, written by the build.

- The fallback page (overrides/offline.html, a static template of the theme, so it has the site's header,
  navigation, styles and font): the service worker answers with it when a page never saved is opened
  offline. It is served at the address the reader asked for, at any depth, so its links cannot be
  relative: the build writes them from SCOPE_MARK, which the service worker replaces with its scope.
- The manifest (offline.json): every file the chapter needs offline (the pages, their scripts and styles,
  each widget's script and answer cache, the Python zip and Pyodide, Plotly, the fonts, the search index),
  each with its size on disk and a hash of its content, and the total. The save action (save-chapter.js)
  states the total before it starts and stores these files; the service worker copies a file from the
  caches of an older build when its hash is unchanged.
- The shell: what the fallback page itself loads (its styles and scripts, the web font, the search), cached
  when the service worker installs, so that the fallback is never drawn in boxes.
- The cache versions written into sw.js: one per folder of vendor/, a hash of the folder (a new web font
  does not throw away Pyodide), and one for the rest of the site, a hash of every file of the manifest
  (pages included: any new build of them is a new cache, and the unchanged files are carried over).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import zipfile
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

from mkdocs.utils import normalize_url

from c9.base import units

FALLBACK = "offline.html"
MANIFEST = "offline.json"
SCOPE_MARK = "__C9_SCOPE__"
# The pages' footer states the chapter's size; the build writes it in once the files are known.
SIZE_MARK = "__C9_CHAPTER_SIZE__"
# Not needed to read the chapter: source maps, font formats other than woff2 (every browser with a
# service worker reads woff2, the first source of each @font-face), licences, the build's figures as JSON
# (no page fetches them), the error page, the sitemap's gzip copy, and the worker itself.
SKIP = re.compile(
    r"\.map$|\.(ttf|woff)$|(^|/)LICENSE[^/]*$|^assets/numbers\.json$|^404\.html$|\.gz$|^sw\.js$"
)
LUNR = "assets/javascripts/lunr/"  # only the scripts the search worker imports for the site's languages


def template_context(context, template_name, config):
    """The fallback's URLs start from SCOPE_MARK (the module docstring); the footer leaves out Material's
    credit line (English) there."""
    if template_name != FALLBACK:
        return context
    context["base_url"] = SCOPE_MARK
    context["extra_css"] = [normalize_url(p, None, SCOPE_MARK) for p in config.extra_css]
    context["extra_javascript"] = [normalize_url(str(s), None, SCOPE_MARK) for s in config.extra_javascript]
    context["c9_fallback"] = True
    return context


def content_hash(path: Path) -> str:
    """A hash of what a file holds; the Python zip by its members' names and CRCs (its own bytes change
    with the files' times)."""
    h = hashlib.sha256()
    if path.name == "course-py.zip":
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                h.update(f"{info.filename}:{info.CRC:08x}\n".encode())
    else:
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def chapter_files(site: Path, search_scripts: list[str]) -> list[str]:
    """The files (paths under the site) the chapter needs offline, sorted."""
    out = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if SKIP.search(rel) or rel == MANIFEST:
            continue
        if rel.startswith(LUNR) and rel not in search_scripts:
            continue
        out.append(rel)
    return out


def size_text(n_bytes: int) -> str:
    """「约 24 MB」: MB = 10⁶ bytes, to a tenth below 10 MB, whole from there (halves up, as every figure)."""
    tenths = units.round_half_up(Fraction(n_bytes, units.MB), 1)
    return "约 " + units.size(n_bytes, "MB", 1 if tenths < 10 else 0)


def write_size_into_pages(site: Path, files: list[str]) -> str:
    """Writes the chapter's size into every page that states it (SIZE_MARK) and returns the text. The text
    is part of the pages it sizes: repeated until the total it states is the total with it written in."""
    pages = {p: p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    marked = {p: t for p, t in pages.items() if SIZE_MARK in t}
    others = sum((site / f).stat().st_size for f in files if site / f not in marked)
    text = size_text(others)
    for _ in range(10):
        total = others + sum(
            len(t.replace(SIZE_MARK, text).encode())
            for p, t in marked.items()
            if p.relative_to(site).as_posix() in files
        )
        if size_text(total) == text:
            break
        text = size_text(total)
    else:
        raise SystemExit("offline: the chapter's stated size does not settle")
    for p, t in marked.items():
        p.write_text(t.replace(SIZE_MARK, text), encoding="utf-8")
    return text


def manifest(site: Path, files: list[str]) -> dict:
    entries = [{"path": f, "bytes": (site / f).stat().st_size, "hash": content_hash(site / f)} for f in files]
    total = sum(e["bytes"] for e in entries)
    return {"files": entries, "bytes": total, "text": size_text(total)}


class _Refs(HTMLParser):
    """The site's own files a page loads as it opens: its stylesheets, icon and scripts."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and a.get("rel") in ("stylesheet", "icon"):
            self.urls.append(a["href"])
        elif tag == "script" and a.get("src"):
            self.urls.append(a["src"])


IMPORT = re.compile(r"""^\s*import\s+(?:[^"';]*?\s+from\s+)?["'](\.{1,2}/[^"']+)["']""", re.M)
CSS_URL = re.compile(r"url\(\./([^)]+\.woff2)\)")


def shell(site: Path, search_scripts: list[str]) -> list[str]:
    """What the fallback page loads (module docstring): the files it links, the modules those scripts
    import, the web font's files, Material's search (its worker, the worker's scripts, the index) and the
    sitemap its instant navigation reads; and the manifest."""
    refs = _Refs()
    refs.feed((site / FALLBACK).read_text(encoding="utf-8"))
    todo = [u.removeprefix(SCOPE_MARK + "/") for u in refs.urls if u.startswith(SCOPE_MARK + "/")]
    todo += [FALLBACK, MANIFEST, "sitemap.xml", "search/search_index.json", *search_scripts]
    todo += [p.relative_to(site).as_posix() for p in site.glob("assets/javascripts/workers/search.*.min.js")]
    found: set[str] = set()
    while todo:
        path = todo.pop()
        if path in found:
            continue
        if not (site / path).is_file():
            raise SystemExit(f"offline: the fallback page loads {path}, which the build did not write")
        found.add(path)
        folder = posixpath.dirname(path)
        text = (site / path).read_text(encoding="utf-8") if path.endswith((".js", ".css")) else ""
        links = IMPORT.findall(text) if path.endswith(".js") else CSS_URL.findall(text)
        todo += [posixpath.normpath(posixpath.join(folder, rel)) for rel in links]
    return sorted(found)


def folder_hash(folder: Path) -> str:
    """A hash of a folder's files, names and contents."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0" + content_hash(path).encode())
    return h.hexdigest()[:10]


def site_version(chapter: dict) -> str:
    """The site cache's version: a hash of every file the manifest lists (what a saved chapter holds)."""
    text = "".join(f"{e['path']}\0{e['hash']}\n" for e in chapter["files"])
    return hashlib.sha256(text.encode()).hexdigest()[:10]


SW_BUILD = re.compile(r"^const BUILD = \{[^\n]*\}; // c9:build$", re.M)


def write(site: Path, pyodide_version: str) -> dict:
    """After every other step of the build: the size into the pages, the manifest, and sw.js's line."""
    search = search_worker_scripts(site)
    files = chapter_files(site, search)
    write_size_into_pages(site, files)
    chapter = manifest(site, files)
    (site / MANIFEST).write_text(
        json.dumps(chapter, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )
    vendor = {d.name: folder_hash(d) for d in sorted((site / "vendor").iterdir()) if d.is_dir()}
    vendor["pyodide"] = f"{pyodide_version}-{vendor['pyodide']}"
    build = {
        "vendor": vendor,
        "site": site_version(chapter),
        "search": search,
        "shell": shell(site, search),
        "manifest": MANIFEST,
        "fallback": FALLBACK,
        "mark": SCOPE_MARK,
    }
    sw = site / "sw.js"
    text, n = SW_BUILD.subn(
        lambda m: f"const BUILD = {json.dumps(build, ensure_ascii=False)}; // c9:build",
        sw.read_text(encoding="utf-8"),
    )
    if n != 1:
        raise SystemExit(f"{sw}: no `const BUILD = {{…}}; // c9:build` line to write the cache versions into")
    sw.write_text(text, encoding="utf-8")
    return chapter


def search_worker_scripts(site: Path) -> list[str]:
    """What Material's search worker imports for the index's languages (its worker code does the same):
    a first page starts that worker before the service worker is in control, so it cannot see them."""
    index = site / "search" / "search_index.json"
    if not index.exists():
        return []
    langs = json.loads(index.read_text(encoding="utf-8"))["config"]["lang"]
    out = []
    for lang in langs:
        out += {"ja": [LUNR + "tinyseg.js"], "hi": [LUNR + "wordcut.js"], "th": [LUNR + "wordcut.js"]}.get(
            lang, []
        )
        if lang != "en":
            out.append(f"{LUNR}min/lunr.{lang}.min.js")
    if len(langs) > 1:
        out.append(LUNR + "min/lunr.multi.min.js")
    if out:
        out.insert(0, LUNR + "min/lunr.stemmer.support.min.js")
    missing = [p for p in out if not (site / p).exists()]
    if missing:
        raise SystemExit(f"sw.js: Material's search worker scripts not found: {missing}")
    return out
