"""The stylesheet and script of the `-o html` page (dractl.report.html), kept apart from the markup.

Layout rules the browser tests hold the page to (tests/cli/test_report_html_picture.py): nothing
is cut or drawn over other text at 1400 and at 390 pixels wide, so every text container may wrap
(`overflow-wrap: anywhere`), device chips grow with their label, tables turn into stacked rows on
narrow screens, and the side panel moves under the content."""

CSS = """
:root{--fg:#1d2330;--muted:#5f6877;--line:#d5d9e0;--bg:#f6f7f9}
*{box-sizing:border-box}
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg)}
header{padding:10px 20px;background:#1d2330;color:#fff}
header h1{font-size:17px;margin:0}
header p{margin:2px 0 0;color:#c9ced6;font-size:12px;overflow-wrap:anywhere}
main{display:flex;gap:16px;padding:12px 20px;align-items:flex-start}
#content{flex:1;min-width:0}
#panel{width:340px;flex:none;position:sticky;top:12px;background:#fff;border:1px solid var(--line);
 border-radius:6px;padding:10px;max-height:90vh;overflow:auto;font:12px/1.4 ui-monospace,monospace;
 white-space:pre-wrap;overflow-wrap:anywhere}
h2{font-size:15px;margin:14px 0 6px}
dl.summary{display:flex;flex-wrap:wrap;gap:6px;margin:0}
dl.summary div{background:#fff;border:1px solid var(--line);border-radius:4px;padding:2px 8px}
dl.summary dt{display:inline;color:var(--muted)}
dl.summary dd{display:inline;margin:0 0 0 4px;font-weight:600}
ul.legend{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;padding:0;margin:0}
ul.legend li{display:flex;align-items:center;gap:6px;min-width:0;overflow-wrap:anywhere}
.swatch{width:14px;height:14px;border-radius:3px;flex:none;border:1px solid rgba(0,0,0,.3)}
.swatch.free{background:#fff}
.swatch.unavailable{background:repeating-linear-gradient(45deg,#c9ced6 0 3px,#fff 3px 6px);border-color:#b3261e}
.swatch.shared{background:linear-gradient(90deg,#4e79a7 0 50%,#f28e2b 50% 100%)}
.swatch.counter-set{border:1px dashed #8a93a3;background:#fff}
.toolbar{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:0 0 8px}
#filter{flex:1 1 220px;min-width:0;padding:5px 8px;font:inherit;border:1px solid #8a93a3;border-radius:4px}
.toolbar button{font:inherit;padding:4px 10px;border:1px solid #8a93a3;border-radius:4px;background:#fff;cursor:pointer}
#shown{color:var(--muted)}
details.node{background:#fff;border:1px solid var(--line);border-radius:6px;margin:0 0 6px}
details.node>summary{cursor:pointer;padding:5px 8px;display:flex;flex-wrap:wrap;gap:2px 10px;align-items:center}
details.node>summary::-webkit-details-marker{display:none}
details.node>summary::before{content:"\\25b8";color:var(--muted)}
details.node[open]>summary::before{content:"\\25be"}
.nodename{font-weight:600;overflow-wrap:anywhere;min-width:0}
.counts{color:var(--muted);font-size:12px;overflow-wrap:anywhere;min-width:0}
.fill{display:block;width:160px;height:10px;border-radius:3px;border:1px solid #c9ced6;flex:none}
.nodebody{padding:2px 8px 8px;display:flex;flex-wrap:wrap;gap:6px;align-items:flex-start}
.devs{display:flex;flex-wrap:wrap;gap:3px;min-width:0;max-width:100%}
.dev{display:inline-flex;align-items:center;justify-content:center;min-width:22px;min-height:20px;
 max-width:100%;padding:1px 4px;border-radius:3px;border:1px solid #8a93a3;background:#fff;color:var(--fg);
 font:10px/1.2 ui-monospace,monospace;overflow-wrap:anywhere;cursor:pointer}
.dev.allocated{background:var(--c);color:var(--t);border-color:rgba(0,0,0,.35)}
.dev.unavailable{background:repeating-linear-gradient(45deg,#c9ced6 0 3px,#fff 3px 6px);border-color:#b3261e;color:#7a1020}
.dev:focus,.dev:hover{outline:2px solid #1d2330}
.dev.hit{outline:3px solid #d4a000}
.cset{border:1px dashed #8a93a3;border-radius:4px;padding:4px;display:flex;flex-direction:column;gap:4px;flex:1 1 100%;
 min-width:0;max-width:100%}
.cset-name{font-size:11px;color:var(--muted);overflow-wrap:anywhere}
.counters{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:1px 12px;font-size:10px}
.counter{display:grid;grid-template-columns:minmax(0,1fr) 48px minmax(0,max-content);gap:6px;align-items:center}
.counter span{overflow-wrap:anywhere;min-width:0}
.counters .bar{height:6px;background:#e3e6eb;border-radius:3px;overflow:hidden}
.counters .bar i{display:block;height:100%;background:#4a6fa5}
ul.pending{list-style:none;padding:0;margin:0}
ul.pending>li{background:#fff;border:1px solid var(--line);border-radius:6px;margin:0 0 6px;padding:4px 8px}
ul.pending summary{cursor:pointer;overflow-wrap:anywhere}
ul.tree{list-style:none;margin:0;padding:0 0 0 14px;border-left:1px solid #c9ced6}
ul.tree li{margin:1px 0;overflow-wrap:anywhere}
ul.tree .code{font-weight:600;color:#b3261e}
table{border-collapse:collapse;background:#fff;margin:0 0 12px;max-width:100%}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:#eef0f4}
#selfcheck{display:none}
@media (max-width:900px){
 main{flex-direction:column;padding:8px}
 #panel{width:auto;position:static;max-height:none;align-self:stretch}
 table,thead,tbody,tr,td{display:block;width:100%}
 table tr:first-child{display:none}
 td{border:none;border-bottom:1px solid var(--line)}
 td::before{content:attr(data-label) ": ";color:var(--muted)}
 tr{border:1px solid var(--line);margin:0 0 6px}
}
"""

JS = """
(function(){
  var data = JSON.parse(document.getElementById('devices-data').textContent);
  var panel = document.getElementById('panel');
  function show(el){
    var d = data[el.getAttribute('data-id')];
    panel.textContent = d ? JSON.stringify(d, null, 2) : '';
  }
  document.addEventListener('click', function(ev){
    var el = ev.target.closest ? ev.target.closest('.dev[data-id]') : null;
    if (el) show(el);
  });
  document.addEventListener('keydown', function(ev){
    if (ev.key === 'Enter' && document.activeElement && document.activeElement.getAttribute('data-id')) show(document.activeElement);
  });
  var nodes = Array.prototype.slice.call(document.querySelectorAll('#nodes details.node'));
  var pending = Array.prototype.slice.call(document.querySelectorAll('ul.pending>li'));
  var shown = document.getElementById('shown');
  var index = null;  // per node: its name, and per chip what the filter matches (built on first use)
  function chipText(d){ return (d.getAttribute('data-id') + ' ' + d.textContent + ' ' + d.title).toLowerCase(); }
  function build(){
    index = nodes.map(function(n){
      var chips = Array.prototype.map.call(n.querySelectorAll('.dev[data-id]'), function(d){ return [d, chipText(d)]; });
      return {name: n.getAttribute('data-name'), chips: chips,
              text: n.getAttribute('data-name') + ' ' + chips.map(function(c){ return c[1]; }).join(' ')};
    });
  }
  function filter(){
    var q = document.getElementById('filter').value.trim().toLowerCase();
    var count = 0;
    if (index === null) build();
    document.querySelectorAll('.dev.hit').forEach(function(el){ el.classList.remove('hit'); });
    nodes.forEach(function(n, i){
      var entry = index[i], hit = !q || entry.text.indexOf(q) >= 0;
      n.style.display = hit ? '' : 'none';
      if (hit) count++;
      if (hit && q && entry.name.indexOf(q) < 0) {
        n.open = true;
        entry.chips.forEach(function(c){ if (c[1].indexOf(q) >= 0) c[0].classList.add('hit'); });
      }
    });
    pending.forEach(function(p){
      p.style.display = !q || p.getAttribute('data-search').indexOf(q) >= 0 ? '' : 'none';
    });
    shown.textContent = count + ' of ' + nodes.length + ' node(s) shown';
  }
  var timer = null;
  document.getElementById('filter').addEventListener('input', function(){
    clearTimeout(timer); timer = setTimeout(filter, nodes.length > 200 ? 120 : 0);
  });
  document.getElementById('expand').addEventListener('click', function(){ nodes.forEach(function(n){ if (n.style.display !== 'none') n.open = true; }); });
  document.getElementById('collapse').addEventListener('click', function(){ nodes.forEach(function(n){ n.open = false; }); });
  var body = document.body;
  var devices = document.querySelectorAll('#nodes .dev[data-id]').length;
  var want = [parseInt(body.getAttribute('data-nodes'), 10), parseInt(body.getAttribute('data-devices'), 10)];
  var check = document.getElementById('selfcheck');
  check.textContent = (nodes.length === want[0] && devices === want[1]) ? 'ok'
    : 'mismatch: ' + nodes.length + ' nodes, ' + devices + ' devices; expected ' + want[0] + ', ' + want[1];
  // Milliseconds from navigation start until the page was parsed and checked (benchmarks read it).
  check.setAttribute('data-ready-ms', String(Math.round(performance.now())));
})();
"""
