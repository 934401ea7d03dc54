// Material for MkDocs partials/javascripts/base.html inline script, moved to a file so the site runs under a strict
// Content-Security-Policy (script-src 'self'). Same code; the scope comes from this file's own URL.
__md_scope=new URL("../../../",document.currentScript.src),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),__md_set=(e,_,t=localStorage,a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,JSON.stringify(_))}catch(e){}}
