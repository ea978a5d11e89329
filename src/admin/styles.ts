/**
 * The admin pages' stylesheet, inlined in every page (no CDN, no extra request). Polaris-like: system font stack,
 * #f1f1f1 page, white cards with a 12px radius and a soft shadow, #303030 text, badges in Polaris tones, 16px rhythm.
 * At phone width the tables scroll sideways inside their card, and the navigation wraps.
 */
export const ADMIN_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#f1f1f1;color:#303030;font:13px/20px -apple-system,BlinkMacSystemFont,"San Francisco","Segoe UI",Roboto,"Helvetica Neue",sans-serif}
a{color:#005bd3;text-decoration:none}a:hover{text-decoration:underline}
.top{background:#1a1a1a;color:#e3e3e3;padding:8px 16px;display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px}
.top .brand{font-weight:650;color:#fff;font-size:14px;margin-right:8px}
.top nav{display:flex;flex-wrap:wrap;gap:4px}
.top nav a{color:#e3e3e3;padding:4px 10px;border-radius:8px}
.top nav a[aria-current=page]{background:#303030;color:#fff}
.top .who{margin-left:auto;display:flex;align-items:center;gap:8px;color:#b5b5b5}
.top .who form{margin:0}
.top .who button{background:transparent;border:1px solid #616161;color:#e3e3e3}
main{max-width:1200px;margin:0 auto;padding:16px}
h1{font-size:20px;line-height:28px;font-weight:650;margin:4px 0 16px}
h2{font-size:14px;line-height:20px;font-weight:650;margin:0 0 12px}
h3{font-size:13px;font-weight:650;margin:12px 0 8px}
.card{background:#fff;border-radius:12px;box-shadow:0 1px 0 rgba(26,26,26,.07),0 1px 3px rgba(26,26,26,.1);padding:16px;margin-bottom:16px}
.card.flush{padding:0;overflow:hidden}
.card.flush>h2{padding:16px 16px 0}
.muted{color:#616161}
.small{font-size:12px}
.mono{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,monospace;font-size:12px;word-break:break-all}
.nowrap{white-space:nowrap;word-break:normal}
.table-wrap{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:8px 12px;border-bottom:1px solid #ebebeb;vertical-align:top}
th{font-weight:550;color:#616161;background:#f7f7f7;white-space:nowrap}
tr:last-child td{border-bottom:0}
.badge{display:inline-block;padding:2px 8px;border-radius:8px;font-size:12px;line-height:16px;font-weight:550;background:#e3e3e3;color:#303030;white-space:nowrap}
.badge.success{background:#cdfee1;color:#0c5132}
.badge.info{background:#e0f0ff;color:#00527c}
.badge.attention{background:#fff1e3;color:#5e4200}
.badge.warning{background:#ffd6a4;color:#5e4200}
.badge.critical{background:#fed1d7;color:#8e0b21}
.badge.new{background:#e3e3e3;color:#303030}
.tabs{display:flex;flex-wrap:wrap;gap:4px;margin-bottom:16px}
.tabs a{padding:4px 10px;border-radius:8px;color:#303030;background:#fff;box-shadow:0 1px 0 rgba(26,26,26,.07)}
.tabs a[aria-current=page]{background:#303030;color:#fff}
.tabs .count{color:inherit;opacity:.7;margin-left:4px}
.pager{display:flex;justify-content:space-between;align-items:center;padding:12px 16px;gap:8px}
.filters{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:flex-end;padding:12px 16px}
.filters label{display:flex;flex-direction:column;gap:4px;font-size:13px}
.filters input{font:inherit;padding:6px 8px;border:1px solid #c9cccf;border-radius:8px}
button,.button{font:inherit;font-weight:550;border-radius:8px;padding:6px 12px;border:0;cursor:pointer;background:#fff;color:#303030;box-shadow:0 0 0 1px #d4d4d4 inset,0 1px 0 rgba(0,0,0,.05);display:inline-block;min-height:32px}
button.primary{background:#303030;color:#fff;box-shadow:none}
button.critical{background:#c70a24;color:#fff;box-shadow:none}
.actions{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.actions form{margin:0}
label{display:block;font-weight:550;margin:12px 0 4px}
input[type=text],input[type=password],input[type=url],select,textarea{font:inherit;width:100%;max-width:100%;padding:6px 10px;border:1px solid #8a8a8a;border-radius:8px;background:#fdfdfd;color:#303030}
textarea{min-height:160px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.banner{border-radius:12px;padding:12px 16px;margin-bottom:16px;background:#e0f0ff;color:#00527c}
.banner.critical{background:#fed1d7;color:#8e0b21}
.banner.success{background:#cdfee1;color:#0c5132}
.banner.warning{background:#fff1e3;color:#5e4200}
pre{background:#f7f7f7;border-radius:8px;padding:12px;overflow-x:auto;font-size:12px;line-height:18px;margin:8px 0;white-space:pre-wrap;word-break:break-word}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0}
dl.facts dt{color:#616161}
dl.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
ul.problems{margin:0;padding-left:18px}
ul.problems li{margin:4px 0}
.timeline{list-style:none;margin:0;padding:0}
.timeline li{padding:8px 0;border-bottom:1px solid #ebebeb;display:grid;grid-template-columns:170px 1fr;gap:4px 12px}
.timeline li:last-child{border-bottom:0}
.item{padding:12px 0;border-bottom:1px solid #ebebeb}
.item:last-child{border-bottom:0}
.item .head{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-bottom:6px}
.login{max-width:400px;margin:64px auto}
.diff .diff-add{background:#cdfee1;display:block}
.diff .diff-del{background:#fed1d7;display:block}
.diff .diff-same{display:block;color:#616161}
ol.checklist{margin:0 0 12px;padding-left:20px}
ol.checklist li{margin:8px 0}
ol.checklist li[data-done=true] strong{color:#0c5132}
label.inline{display:flex;gap:8px;align-items:flex-start;font-weight:400;margin:12px 0}
label.inline input{margin-top:3px}
fieldset.choices{border:0;padding:0;margin:12px 0}
fieldset.choices legend{font-weight:550;padding:0}
fieldset.choices label.inline{margin:6px 0}
.cm-editor{border:1px solid #8a8a8a;border-radius:8px;font-size:12px;max-height:70vh}
.cm-editor .cm-scroller{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
#mapping-problems .problem{color:#8e0b21;margin:4px 0}
@media (max-width:640px){
  main{padding:12px 8px}
  .card{padding:12px;border-radius:12px}
  dl.facts{grid-template-columns:1fr}
  dl.facts dt{margin-top:6px}
  .timeline li{grid-template-columns:1fr}
  table.stack thead{display:none}
  table.stack tr{display:block;border-bottom:1px solid #ebebeb;padding:8px 0}
  table.stack td{display:grid;grid-template-columns:110px minmax(0,1fr);justify-items:start;gap:8px;border:0;padding:3px 12px}
  table.stack td::before{content:attr(data-label);color:#616161;font-weight:550}
  .top .who{margin-left:0}
}
`;

/**
 * The embedded pages' own CSS: only what Polaris has no component for (Polaris draws every layout piece there): code
 * and identifiers in monospace, a code block, the version diff and the mapping editor (CodeMirror).
 */
export const EMBEDDED_CSS = `
.mono{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,monospace;font-size:12px;word-break:break-all}
.nowrap{white-space:nowrap;word-break:normal}
pre{background:#f7f7f7;border-radius:8px;padding:12px;overflow-x:auto;font-size:12px;line-height:18px;margin:8px 0;white-space:pre-wrap;word-break:break-word}
.diff .diff-add{background:#cdfee1;display:block}
.diff .diff-del{background:#fed1d7;display:block}
.diff .diff-same{display:block;color:#616161}
label[for=mapping-yaml]{display:block;font-weight:550;margin:12px 0 4px}
textarea[data-editor]{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;width:100%;min-height:160px}
.cm-editor{border:1px solid #8a8a8a;border-radius:8px;font-size:12px;max-height:70vh}
.cm-editor .cm-scroller{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
#mapping-problems .problem{color:#8e0b21;margin:4px 0}
`;
