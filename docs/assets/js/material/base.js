// Material for MkDocs partials/javascripts/base.html inline script, moved to a file so the site runs under a strict
// Content-Security-Policy (script-src 'self'). Same code; the scope comes from this file's own URL.
__md_scope=new URL("../../../",document.currentScript.src),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),__md_set=(e,_,t=localStorage,a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,JSON.stringify(_))}catch(e){}}
// The course's own mark that scripts run (course.css hides what only a script can show), set here before the
// body is styled rather than by course.js after: adding a class to <html> later restyles the whole page.
document.documentElement.classList.add("c9-js");
