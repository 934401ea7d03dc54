// Render pymdownx.arithmatex output (\( … \) and \[ … \]) to KaTeX HTML + MathML at build time,
// so math reads correctly with JavaScript off and the page ships no KaTeX script.
// Usage: node tools/render_math.mjs SITE_DIR
import fs from "node:fs";
import path from "node:path";
import katex from "katex";

const site = process.argv[2];
if (!site) { console.error("usage: render_math.mjs SITE_DIR"); process.exit(2); }

const unescape = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
const INLINE = /<span class="arithmatex">\\\(([\s\S]*?)\\\)<\/span>/g;
const BLOCK = /<div class="arithmatex">\\\[([\s\S]*?)\\\]<\/div>/g;

let pages = 0, formulas = 0;
function render(tex, displayMode, file) {
  formulas++;
  try {
    return katex.renderToString(unescape(tex), { displayMode, throwOnError: true, output: "htmlAndMathml", strict: "ignore" });
  } catch (e) {
    console.error(`${file}: KaTeX cannot render ${JSON.stringify(tex)}: ${e.message}`);
    process.exitCode = 1;
    return tex;
  }
}
function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) { if (entry.name !== "vendor") walk(p); }
    else if (entry.name.endsWith(".html")) {
      const html = fs.readFileSync(p, "utf8");
      if (!html.includes('class="arithmatex"')) continue;
      const out = html
        .replace(BLOCK, (_, tex) => `<div class="arithmatex katex-block">${render(tex, true, p)}</div>`)
        .replace(INLINE, (_, tex) => `<span class="arithmatex">${render(tex, false, p)}</span>`);
      fs.writeFileSync(p, out);
      pages++;
    }
  }
}
walk(site);
console.log(`render_math: ${formulas} formulas on ${pages} pages`);
