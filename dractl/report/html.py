"""`-o html`: one self-contained page picturing the devices after a dry run.

Per node a row of its devices, coloured by the pod (or claim) holding them; partitions drawn
inside the counter set they share, its counters as bars; unavailable devices hatched, with the
reason; unschedulable pods with their explanation; a summary table. Hovering a device shows a
short title, clicking it shows its attributes, capacity and holders in a side panel.

Safe and deterministic: every string from the inputs goes through `safe_line` (control and bidi
characters as visible escapes) and `html.escape` (or, inside the
embedded JSON, has `<`, `>`, `&` and U+2028/2029 escaped), nothing is loaded from the network,
and the same plan always gives the same bytes (colours come from a CRC of the holder's name).
The page checks itself: `<body data-nodes=N data-devices=M>` carries the expected counts and a
script compares them with the DOM, writing "ok" or the mismatch into `#selfcheck`.
"""

from __future__ import annotations

import html
import json
import zlib
from typing import Any

from dractl.report.sanitize import safe_line

_CSS = """
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{padding:12px 20px;background:#1d2330;color:#fff}
header h1{font-size:17px;margin:0}
main{display:flex;gap:16px;padding:12px 20px}
#content{flex:1;min-width:0}
#panel{width:340px;flex:none;position:sticky;top:12px;align-self:flex-start;background:#fff;
 border:1px solid #d5d9e0;border-radius:6px;padding:10px;max-height:90vh;overflow:auto;
 font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;background:#fff;margin:0 0 12px}
th,td{border:1px solid #d5d9e0;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef0f4}
.node{display:flex;align-items:flex-start;gap:8px;padding:4px 0;border-bottom:1px solid #e3e6eb}
.nodename{width:230px;flex:none;font-weight:600;overflow-wrap:anywhere}
.devs{display:flex;flex-wrap:wrap;gap:3px}
.dev{width:18px;height:18px;border-radius:3px;border:1px solid #8a93a3;cursor:pointer;box-sizing:border-box}
.dev.free{background:#fff}
.dev.unavailable{background:repeating-linear-gradient(45deg,#c9ced6 0 3px,#fff 3px 6px);border-color:#b3261e}
.dev:focus,.dev:hover{outline:2px solid #1d2330}
.parent{border:1px dashed #8a93a3;border-radius:4px;padding:2px 3px;display:flex;flex-direction:column;gap:2px}
.bars{display:flex;flex-direction:column;gap:1px}
.bar{height:4px;width:100%;min-width:40px;background:#e3e6eb;position:relative}
.bar span{position:absolute;left:0;top:0;bottom:0;background:#4a6fa5}
.pending li{margin:0 0 6px}
details summary h2{display:inline}
.legend span{display:inline-block;margin-right:12px}
.legend .dev{display:inline-block;vertical-align:middle;cursor:default}
#selfcheck{font-size:11px;color:#5f6877}
"""

_JS = """
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
  var body = document.body;
  var nodes = document.querySelectorAll('#nodes .node').length;
  var devices = document.querySelectorAll('#nodes .dev[data-id]').length;
  var want = [parseInt(body.getAttribute('data-nodes'), 10), parseInt(body.getAttribute('data-devices'), 10)];
  var check = document.getElementById('selfcheck');
  check.textContent = (nodes === want[0] && devices === want[1]) ? 'ok'
    : 'mismatch: ' + nodes + ' nodes, ' + devices + ' devices; expected ' + want[0] + ', ' + want[1];
  // Milliseconds from navigation start until the page was parsed and checked (benchmarks read it).
  check.setAttribute('data-ready-ms', String(Math.round(performance.now())));
})();
"""


def _e(value: Any) -> str:
    # Control and bidi characters shown as visible escapes (the page may be read as text too).
    return html.escape(safe_line(value), quote=True)


def _json_for_script(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def holder_colour(name: str) -> str:
    """A stable, readable colour per holder."""
    hue = zlib.crc32(name.encode("utf-8", "surrogatepass")) % 360
    return f"hsl({hue},62%,58%)"


def render(picture: dict) -> str:
    """`picture`: {"title", "summary": {label: value}, "nodes": dractl.capacity.document.device_map(),
    "pending": [{"pod", "reasons": [text]}], "pools": [PoolStatus] (optional)}."""
    groups = picture.get("nodes") or []
    devices: dict[str, dict] = {}
    rows = [_node_row(g, devices) for g in groups]
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
        f"<title>{_e(picture.get('title') or 'dractl')}</title><style>{_CSS}</style></head>",
        f"<body data-nodes=\"{len(groups)}\" data-devices=\"{len(devices)}\">",
        f"<header><h1>{_e(picture.get('title') or 'dractl')}</h1></header><main><div id=\"content\">",
        _summary_table(picture.get("summary") or {}),
        _legend(),
        "<h2>Nodes</h2><div id=\"nodes\">", "".join(rows), "</div>",
        _pending(picture.get("pending") or []),
        _pools_table(picture.get("pools") or []),
        "<p id=\"selfcheck\">checking</p></div>",
        "<aside id=\"panel\" aria-live=\"polite\">Click a device to see its attributes and holders.</aside></main>",
        f"<script type=\"application/json\" id=\"devices-data\">{_json_for_script(devices)}</script>",
        f"<script>{_JS}</script></body></html>\n",
    ]
    return "".join(parts)


def _node_row(group: dict, devices: dict[str, dict]) -> str:
    cells = []
    for parent in group.get("parents") or []:
        if "device" in parent:
            cells.append(_device_cell(parent["device"], devices))
            continue
        inner = "".join(_device_cell(d, devices) for d in parent.get("devices") or [])
        bars = "".join(_bar(c) for c in parent.get("counters") or [])
        cells.append(f"<div class=\"parent\" title=\"counter set {_e(parent.get('counterSet'))}\">"
                     f"<div class=\"bars\">{bars}</div><div class=\"devs\">{inner}</div></div>")
    return (f"<div class=\"node\"><div class=\"nodename\">{_e(group.get('node'))}</div>"
            f"<div class=\"devs\">{''.join(cells)}</div></div>")


def _bar(counter: dict) -> str:
    total, consumed = _number(counter.get("total")), _number(counter.get("consumed"))
    percent = 0 if not total else max(0, min(100, round(100 * consumed / total)))
    label = f"{counter.get('name')}: {counter.get('consumed')} of {counter.get('total')} used"
    return f"<div class=\"bar\" title=\"{_e(label)}\"><span style=\"width:{percent}%\"></span></div>"


def _number(text: Any) -> float:
    from dractl.api.quantity import Quantity, QuantityError
    try:
        return float(Quantity.parse(str(text)).value)
    except (QuantityError, ValueError, TypeError):
        return 0.0


def _device_cell(device: dict, devices: dict[str, dict]) -> str:
    device_id = str(device.get("id"))
    devices[device_id] = device
    state = device.get("state") or "free"
    holder = (device.get("pods") or device.get("claims") or [""])[0]
    title = f"{device_id}: {state}"
    if holder:
        title += f" ({holder})"
    if device.get("unavailable"):
        title += f": {device['unavailable']}"
    style = f" style=\"background:{holder_colour(holder)}\"" if state == "allocated" and holder else ""
    return (f"<div class=\"dev {_e(state)}\" tabindex=\"0\" data-id=\"{_e(device_id)}\""
            f" title=\"{_e(title)}\"{style}></div>")


def _summary_table(summary: dict) -> str:
    if not summary:
        return ""
    head = "".join(f"<th>{_e(k)}</th>" for k in summary)
    cells = "".join(f"<td>{_e(v)}</td>" for v in summary.values())
    return f"<table id=\"summary\"><tr>{head}</tr><tr>{cells}</tr></table>"


def _legend() -> str:
    return ("<p class=\"legend\"><span><span class=\"dev free\"></span> free</span>"
            "<span><span class=\"dev\" style=\"background:hsl(210,62%,58%)\"></span> allocated (colour per pod)</span>"
            "<span><span class=\"dev unavailable\"></span> unavailable</span>"
            "<span>dashed box: partitions sharing a counter set (bars: counters used)</span></p>")


def _pending(pending: list[dict]) -> str:
    if not pending:
        return ""
    items = []
    for entry in pending:
        reasons = "".join(f"<div>{_e(r)}</div>" for r in entry.get("reasons") or [])
        items.append(f"<li><b>{_e(entry.get('pod'))}</b>{reasons}</li>")
    return (f"<details id=\"pending\" open><summary><h2>Not scheduled ({len(pending)})</h2></summary>"
            f"<ul class=\"pending\">{''.join(items)}</ul></details>")


_POOL_COLUMNS = ("driver", "poolName", "nodeName", "generation", "totalDevices", "allocatedDevices",
                 "availableDevices", "unavailableDevices", "validationError")


def _pools_table(pools: list[dict]) -> str:
    if not pools:
        return ""
    head = "".join(f"<th>{_e(c)}</th>" for c in _POOL_COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{_e(p.get(c, ''))}</td>" for c in _POOL_COLUMNS) + "</tr>"
                   for p in pools)
    return f"<h2>Pools</h2><table id=\"pools\"><tr>{head}</tr>{body}</table>"
