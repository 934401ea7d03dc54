// Material for MkDocs partials/javascripts/base.html inline script, moved to a file so the site runs under a strict
// Content-Security-Policy (script-src 'self'). Same code; the scope comes from this file's own URL.
// eslint-disable-next-line no-unused-vars, no-empty -- Material's code as it ships (its catch ignores a full storage)
__md_scope=new URL("../../../",document.currentScript.src),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),__md_set=(e,_,t=localStorage,a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,JSON.stringify(_))}catch(e){}}
// The course's own mark that scripts run (course.css hides what only a script can show), set here before the
// body is styled rather than by course.js after: adding a class to <html> later restyles the whole page.
document.documentElement.classList.add("c9-js");
// Without any of the CJK system fonts the text's font stack names first (course.css), the text is drawn in the
// Noto Sans SC cut (hooks/fonts.py), which the browser asks for only once it lays the text out: it came
// after the first paint and the lines re-wrapped under the reader (a layout shift of 0.13–0.35). Ask for
// it here instead, before the body is laid out: 「中」 is in the cut's first slice, which holds what a page
// draws when it opens (hooks/fonts.py), so it is on its way first; the other two follow once the page's
// text is laid out.
// Whether a family is installed is told by the width of Latin letters drawn in it (against monospace); a
// reader who has one fetches nothing.
(() => {
  const ctx = document.createElement("canvas").getContext("2d");
  if (!ctx || !document.fonts) return;
  const width = (family) => { ctx.font = `16px ${family}`; return ctx.measureText("mmmmlllliiiiWWWW").width; };
  const mono = width("monospace");
  const cjk = ["PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", "Source Han Sans SC"];
  if (cjk.every((f) => width(`"${f}", monospace`) === mono)) document.fonts.load("16px 'Noto Sans SC'", "中").catch(() => {});
})();
