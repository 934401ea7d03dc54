// Material for MkDocs partials/javascripts/content.html inline script, moved to a file so the site runs under a strict
// Content-Security-Policy (script-src 'self'). Same code; the scope comes from this file's own URL.
var target=document.getElementById(location.hash.slice(1));target&&target.name&&(target.checked=target.name.startsWith("__tabbed_"))
