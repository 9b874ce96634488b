"""Layout checks of the `-o html` picture in headless Chromium, driven over the DevTools
protocol (cdp.py) so that a phone-sized viewport is real (390 x 844, emulated as a mobile device).

The checker runs in the page after its own script and returns a report:

* text that overflows: the page scrolls sideways, or a piece of text (each line box of each text
  node, from Range.getClientRects) lies outside the box of its nearest non-inline element;
* text that overlaps other text: two line boxes of different text nodes intersect (by more than
  a pixel each way; a grid of 50-pixel cells keeps it linear);
* both with the nodes as the page opens them and after "Expand all";
* the filter: typed into the box as a user would (an input event), the node rows left visible
  and the devices it marks;
* the legend's workload colours (computed style), for the colour-distance check.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from cdp import Browser

CHECKER = r"""
(async function(queries){
  function boxOf(el){ while (el && getComputedStyle(el).display === 'inline') el = el.parentElement; return el; }
  var range = document.createRange();
  function textRects(){
    // Line boxes of every drawn text. A text alone in its element is measured through the
    // element (Range.getClientRects costs ~0.25 ms a call: 17,000 texts took 4 s).
    var out = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), n;
    while ((n = walker.nextNode())) {
      if (!n.nodeValue.trim()) continue;
      var el = n.parentElement;
      if (el.closest('script,style,#selfcheck')) continue;
      // Inside a closed <details> only the summary is drawn (the rest is laid out but hidden).
      var closed = el.closest('details:not([open])'), summary = el.closest('summary');
      if (closed && !(summary && summary.parentElement === closed)) continue;
      var alone = el.childNodes.length === 1, rects;
      if (alone) rects = el.getClientRects();
      else { range.selectNodeContents(n); rects = range.getClientRects(); }
      for (var i = 0; i < rects.length; i++) {
        var b = rects[i];
        if (b.width < 1 || b.height < 1) continue;
        out.push({el: el, alone: alone, x: b.left + scrollX, y: b.top + scrollY, r: b.right + scrollX,
                  b: b.bottom + scrollY, t: n.nodeValue.trim().slice(0, 60)});
      }
    }
    return out;
  }
  function check(label){
    var problems = [], width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width + 1)
      problems.push('page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + width);
    var rects = textRects();
    rects.forEach(function(t){
      if (t.r > width + 1 || t.x < -1) problems.push('beyond the page edge: ' + t.t);
      var box = boxOf(t.el);
      if (t.alone && box === t.el) {
        // Measured through its own box: the text overflows when the box's content does.
        if (box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 2)
          problems.push('overflows its box: ' + t.t);
        return;
      }
      var c = box.getBoundingClientRect();
      if (t.x < c.left + scrollX - 1 || t.r > c.right + scrollX + 1 || t.y < c.top + scrollY - 2 || t.b > c.bottom + scrollY + 2)
        problems.push('overflows its box: ' + t.t);
    });
    var grid = {}, seen = {};
    rects.forEach(function(t, i){
      for (var gx = Math.floor(t.x / 50); gx <= Math.floor(t.r / 50); gx++)
        for (var gy = Math.floor(t.y / 50); gy <= Math.floor(t.b / 50); gy++)
          (grid[gx + ',' + gy] = grid[gx + ',' + gy] || []).push(i);
    });
    Object.keys(grid).forEach(function(k){
      var l = grid[k];
      for (var a = 0; a < l.length; a++) for (var b = a + 1; b < l.length; b++) {
        var key = l[a] + '/' + l[b];
        if (seen[key]) continue;
        seen[key] = 1;
        var p = rects[l[a]], q = rects[l[b]];
        if (Math.min(p.r, q.r) - Math.max(p.x, q.x) > 1 && Math.min(p.b, q.b) - Math.max(p.y, q.y) > 1)
          problems.push('overlap: "' + p.t + '" / "' + q.t + '"');
      }
    });
    return {label: label, texts: rects.length, count: problems.length, problems: problems.slice(0, 15)};
  }
  function visible(){
    return Array.prototype.filter.call(document.querySelectorAll('#nodes details.node'),
      function(n){ return n.style.display !== 'none'; }).map(function(n){ return n.getAttribute('data-name'); });
  }
    var started = performance.now();
  var report = {checks: [check('as opened')], nodes: visible().length, width: document.documentElement.clientWidth};
  report.legend = Array.prototype.map.call(document.querySelectorAll('#legend li.workload .swatch'),
    function(s){ return getComputedStyle(s).backgroundColor; });
  report.open = document.querySelectorAll('#nodes details.node[open]').length;
  var selfcheck = document.getElementById('selfcheck');
  report.selfcheck = selfcheck ? selfcheck.textContent : null;
  report.selfcheckShown = !!selfcheck && selfcheck.getClientRects().length > 0;
  var expand = document.getElementById('expand'), box = document.getElementById('filter');
  report.controls = {expand: !!expand, filter: !!box};
  if (expand) { expand.click(); report.checks.push(check('expanded')); }
  report.filters = {};
  for (var i = 0; i < queries.length; i++) {
    if (!box) break;
    box.value = queries[i];
    box.dispatchEvent(new Event('input', {bubbles: true}));
    await new Promise(function(done){ setTimeout(done, 500); });
    var shown = document.getElementById('shown');
    report.filters[queries[i]] = {
      nodes: visible(),
      hits: Array.prototype.map.call(document.querySelectorAll('.dev.hit'), function(d){ return d.getAttribute('data-id'); }),
      shown: shown ? shown.textContent : null};
    if (i === 0) report.checks.push(check('filtered'));
  }
  report.checkMs = Math.round(performance.now() - started);
  return report;
})
"""


def layout_report(page: Path, tmp: Path, width: int, height: int, queries: list[str],
                  shot: Path | None = None) -> dict:
    """The checker's report for `page` in a width x height viewport (a phone below 600 pixels);
    report["filters"][query]: the nodes shown and the devices marked after typing each query into
    the filter box (the layout is checked after the first); with `shot`, a screenshot of the
    page as it opened."""
    with Browser(tmp / f"profile-{width}x{height}") as browser:
        browser.open(page.as_uri(), width, height, mobile=width < 600)
        if shot is not None:
            browser.screenshot(shot)
        return browser.evaluate(f"{CHECKER}({json.dumps(queries)})")


def _lab(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(one: str, two: str) -> float:
    """CIE76 distance of two CSS colours given as rgb(r, g, b) or #rrggbb."""
    return sum((a - b) ** 2 for a, b in zip(_lab(_parse(one)), _lab(_parse(two)), strict=True)) ** 0.5


def _parse(colour: str) -> tuple[int, int, int]:
    if colour.startswith("#"):
        return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
    r, g, b = (int(v) for v in re.findall(r"\d+", colour)[:3])
    return r, g, b
