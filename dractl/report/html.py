"""`-o html`: one self-contained page picturing the devices after a dry run.

A summary, a legend (one colour family per workload: the pods of a Deployment, a Job or a
PodGroup share a hue, each pod a shade of it; free, unavailable and shared devices; counter
sets), then per node a collapsible row (dractl.report.html_nodes) with a filter box over nodes,
devices and pods, the pods that were not scheduled with the plan's tree of reasons, and (for
`capacity`) the pool table. Hovering a device shows every holder, clicking it shows its
attributes, capacity and holders in a side panel.

Safe and deterministic: every string from the inputs goes through `safe_line` (control and bidi
characters as visible escapes) and `html.escape` (or, inside the embedded JSON, has `<`, `>`,
`&` and U+2028/2029 escaped), nothing is loaded from the network, and the same plan always
gives the same bytes. The page checks itself: `<body data-nodes=N data-devices=M>` carries the
expected counts and a script compares them with the DOM into the hidden `#selfcheck`.
"""

from __future__ import annotations

import json
from typing import Any

from dractl.report.html_assets import CSS, JS
from dractl.report.html_nodes import OPEN_UP_TO, Colours, e, node_row

_POOL_COLUMNS = ("driver", "poolName", "nodeName", "generation", "totalDevices", "allocatedDevices",
                 "availableDevices", "unavailableDevices", "validationError")
_PENDING_OPEN_UP_TO = 10


def _json_for_script(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render(picture: dict) -> str:
    """`picture`: dractl.capacity.picture.picture() — {"title", "summary", "nodes", "workloads",
    "podWorkload", "pending", "pools"}."""
    groups = picture.get("nodes") or []
    workloads = picture.get("workloads") or []
    colours = Colours(workloads, picture.get("podWorkload") or {})
    devices: dict[str, dict] = {}
    open_ = len(groups) <= OPEN_UP_TO
    rows = [node_row(g, devices, colours, open_) for g in groups]
    title = e(picture.get("title") or "dractl")
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
        f"<title>{title}</title><style>{CSS}</style></head>",
        f"<body data-nodes=\"{len(groups)}\" data-devices=\"{len(devices)}\">",
        f"<header><h1>{title}</h1><p>{_subtitle(picture.get('summary') or {}, len(groups))}</p></header>",
        "<main><div id=\"content\">",
        _summary(picture.get("summary") or {}),
        _legend(workloads, colours),
        "<h2>Nodes</h2><div class=\"toolbar\"><input id=\"filter\" type=\"search\" "
        "placeholder=\"Filter: node, device, profile, pod\" aria-label=\"Filter nodes, devices and pods\">"
        "<button id=\"expand\" type=\"button\">Expand all</button><button id=\"collapse\" type=\"button\">"
        f"Collapse all</button><span id=\"shown\">{len(groups)} of {len(groups)} node(s) shown</span></div>",
        "<div id=\"nodes\">", "".join(rows), "</div>",
        _pending(picture.get("pending") or []),
        _pools_table(picture.get("pools") or []),
        "<p id=\"selfcheck\">checking</p></div>",
        "<aside id=\"panel\" aria-live=\"polite\">Click a device to see its attributes and holders.</aside></main>",
        f"<script type=\"application/json\" id=\"devices-data\">{_json_for_script(devices)}</script>",
        f"<script>{JS}</script></body></html>\n",
    ]
    return "".join(parts)


def _subtitle(summary: dict, drawn: int) -> str:
    nodes = summary.get("nodes", drawn)
    shown = [f"{nodes} node(s), {drawn} with devices"] + [f"{v} {k}" for k, v in summary.items()
                                                           if k in ("pods", "devices")]
    return e(", ".join(shown))


def _summary(summary: dict) -> str:
    if not summary:
        return ""
    items = "".join(f"<div><dt>{e(k)}</dt><dd>{e(v)}</dd></div>" for k, v in summary.items())
    return f"<dl class=\"summary\" id=\"summary\">{items}</dl>"


def _legend(workloads: list[dict], colours: Colours) -> str:
    from dractl.report.palette import BASE, OTHER

    items = []
    for w in workloads[:len(BASE)]:
        colour = colours.base.get(w["id"])
        items.append(f"<li class=\"workload\"><span class=\"swatch\" style=\"background:{colour}\"></span>"
                     f"{e(w['label'])} ({_counts(w)})</li>")
    rest = workloads[len(BASE):]
    if rest:
        items.append(f"<li class=\"workload\"><span class=\"swatch\" style=\"background:{OTHER}\"></span>"
                     f"{len(rest)} more workload(s) ({sum(w['pods'] for w in rest)} pod(s), "
                     f"{sum(w['devices'] for w in rest)} device(s)): the device titles name them</li>")
    items.append("<li><span class=\"swatch free\"></span>free</li>")
    items.append("<li><span class=\"swatch unavailable\"></span>unavailable (tainted, pool incomplete or invalid)</li>")
    items.append("<li><span class=\"swatch shared\"></span>shared: one stripe per holder</li>")
    items.append("<li><span class=\"swatch counter-set\"></span>dashed box: partitions sharing a counter set, "
                 "with each counter's use</li>")
    return ("<h2>Legend</h2><p class=\"hint\">Device chips show the partition profile or the device name; "
            f"colour: the workload holding it, a shade per pod.</p><ul class=\"legend\" id=\"legend\">{''.join(items)}</ul>")


def _counts(workload: dict) -> str:
    pods = f"{workload['pods']} pod(s), " if workload["pods"] else ""
    return f"{pods}{workload['devices']} device(s)"


def _tree(reason: dict) -> str:
    """A reason and its explanation lines as a nested list (two more spaces: one level deeper)."""
    out = [f"<li><span class=\"code\">{e(reason.get('code'))}</span> {e(reason.get('message'))}"]
    depth = [-1]
    for line in reason.get("details") or ():
        indent = len(line) - len(line.lstrip(" "))
        if indent > depth[-1]:
            out.append("<ul class=\"tree\">")
            depth.append(indent)
        else:
            out.append("</li>")
            while len(depth) > 2 and indent < depth[-1]:
                out.append("</ul></li>")
                depth.pop()
        out.append(f"<li>{e(line.strip())}")
    out.append("</li></ul>" * (len(depth) - 1) + "</li>")
    return "".join(out)


def _pending(pending: list[dict]) -> str:
    if not pending:
        return ""
    items = []
    for i, entry in enumerate(pending):
        owner = f" ({entry['owner']})" if entry.get("owner") else ""
        claims = "".join(f"<li>{e(c)}</li>" for c in entry.get("claims") or ())
        reasons = "".join(_tree(r) for r in entry.get("reasons") or ())
        search = e(f"{entry.get('pod')} {entry.get('owner') or ''}".lower())
        opened = " open" if i < _PENDING_OPEN_UP_TO else ""
        items.append(f"<li data-search=\"{search}\"><details{opened}><summary><b>pod {e(entry.get('pod'))}</b>"
                     f"{e(owner)} {e(entry.get('status'))}</summary><ul class=\"tree\">{claims}{reasons}</ul>"
                     "</details></li>")
    return (f"<section id=\"pending\"><h2>Not scheduled ({len(pending)})</h2>"
            f"<ul class=\"pending\">{''.join(items)}</ul></section>")


def _pools_table(pools: list[dict]) -> str:
    if not pools:
        return ""
    head = "".join(f"<th>{e(c)}</th>" for c in _POOL_COLUMNS)
    body = "".join("<tr>" + "".join(f"<td data-label=\"{e(c)}\">{e(p.get(c, ''))}</td>" for c in _POOL_COLUMNS)
                   + "</tr>" for p in pools)
    return f"<h2>Pools</h2><table id=\"pools\"><tr>{head}</tr>{body}</table>"
