"""Per node of the `-o html` page: a collapsible row with the node's counts and fill, and inside
it one chip per device (labelled with its profile or name, coloured by the workload holding it,
striped when several hold it, hatched when unavailable) and one box per shared counter set with
its counters' names, fill bars and numbers."""

from __future__ import annotations

import html
from typing import Any

from dractl.report import palette
from dractl.report.sanitize import safe_line

OPEN_UP_TO = 20          # nodes are drawn open when there are at most this many
FREE_STRIP, UNAVAILABLE_STRIP = "#e3e6eb", "#b3261e"   # the collapsed row's colours of such devices
_PROFILE_ATTRIBUTES = ("profile", "mig-profile", "migProfile", "partitionProfile")
_STRIPES = 4             # holder colours shown in a shared device's stripes


def e(value: Any) -> str:
    # Control and bidi characters shown as visible escapes (the page may be read as text too).
    return html.escape(safe_line(value), quote=True)


class Colours:
    """Per pod: its workload's colour, shaded by the pod's place in the workload."""

    def __init__(self, workloads: list[dict], pod_workload: dict[str, str]) -> None:
        self.base = palette.assign(workloads)
        self.pod_workload = pod_workload
        index: dict[str, int] = {}
        self.pod: dict[str, str] = {}
        for pod, wid in pod_workload.items():
            i = index.get(wid, 0)
            index[wid] = i + 1
            self.pod[pod] = palette.shade(self.base.get(wid, palette.OTHER), i)

    def of(self, holder: str) -> str:
        from dractl.capacity.picture import CLAIMS_ONLY

        return self.pod.get(holder) or self.base.get(CLAIMS_ONLY, palette.OTHER)


def node_row(group: dict, devices: dict[str, dict], colours: Colours, open_: bool) -> str:
    cells, counts = [], {"total": 0, "allocated": 0, "unavailable": 0, "strip": []}
    for parent in group.get("parents") or []:
        if "device" in parent:
            cells.append(device_chip(parent["device"], devices, colours, counts))
            continue
        inner = "".join(device_chip(d, devices, colours, counts) for d in parent.get("devices") or [])
        cells.append(f"<div class=\"cset\"><div class=\"cset-name\">counter set {e(parent.get('counterSet'))}</div>"
                     f"{_counters(parent.get('counters') or [])}<div class=\"devs\">{inner}</div></div>")
    fill = f"<span class=\"fill\" aria-hidden=\"true\" style=\"background:{_strip(counts['strip'])}\"></span>"
    free = counts["total"] - counts["allocated"] - counts["unavailable"]
    summary = (f"<summary><span class=\"nodename\">{e(group.get('node'))}</span>"
               f"<span class=\"counts\">{counts['total']} devices: {counts['allocated']} allocated, {free} free, "
               f"{counts['unavailable']} unavailable</span>{fill}</summary>")
    return (f"<details class=\"node\" data-name=\"{e(str(group.get('node') or '').lower())}\""
            f"{' open' if open_ else ''}>{summary}<div class=\"nodebody\"><div class=\"devs\">{''.join(cells)}</div>"
            "</div></details>")


def _strip(colours: list[str]) -> str:
    """The node's devices in a row, each in its holder's colour: what the collapsed row shows."""
    if not colours:
        return FREE_STRIP
    n = len(colours)
    stops, start = [], 0
    for i in range(1, n + 1):
        if i == n or colours[i] != colours[start]:
            stops.append(f"{colours[start]} {100 * start / n:.4g}% {100 * i / n:.4g}%")
            start = i
    return f"linear-gradient(90deg,{','.join(stops)})"


def _counters(counters: list[dict]) -> str:
    rows = []
    for c in counters:
        total, consumed = _number(c.get("total")), _number(c.get("consumed"))
        percent = 0 if not total else max(0, min(100, round(100 * consumed / total)))
        rows.append(f"<span class=\"counter\" title=\"{e(c.get('name'))}: {percent}% used\"><span>{e(c.get('name'))}</span>"
                    f"<span class=\"bar\"><i style=\"width:{percent}%\"></i></span>"
                    f"<span>{e(c.get('consumed'))}/{e(c.get('total'))}</span></span>")
    return f"<div class=\"counters\">{''.join(rows)}</div>" if rows else ""


def _number(text: Any) -> float:
    from dractl.api.quantity import Quantity, QuantityError

    try:
        return float(Quantity.parse(str(text)).value)
    except (QuantityError, ValueError, TypeError):
        return 0.0


def label_of(device: dict) -> str:
    """What a chip says: the partition profile when the driver publishes one, else the name."""
    attributes = device.get("attributes") or {}
    for key, value in attributes.items():
        if key.rpartition("/")[2] in _PROFILE_ATTRIBUTES and value:
            return str(value).strip('"')
    return str(device.get("name") or "")


def holders(device: dict) -> list[str]:
    return list(device.get("pods") or ()) or list(device.get("claims") or ())


def device_chip(device: dict, devices: dict[str, dict], colours: Colours, counts: dict) -> str:
    """A chip; the page's filter searches its id, label and title (every holder)."""
    device_id = str(device.get("id"))
    devices[device_id] = device
    state = device.get("state") or "free"
    counts["total"] += 1
    counts[state] = counts.get(state, 0) + 1
    held = holders(device)
    label = label_of(device)
    title = f"{device_id}: {state}"
    if held:
        kind = "pod" if device.get("pods") else "claim"
        title += (f", held by {len(held)} {kind}s: " if len(held) > 1 else f", held by {kind} ") + ", ".join(held)
    if device.get("unavailable"):
        title += f": {device['unavailable']}"
    style = ""
    counts["strip"].append(UNAVAILABLE_STRIP if state == "unavailable" else FREE_STRIP)
    if state == "allocated" and held:
        shown = [colours.of(h) for h in held[:_STRIPES]]
        background = shown[0] if len(shown) == 1 else "linear-gradient(90deg," + ",".join(
            f"{c} {100 * i // len(shown)}% {100 * (i + 1) // len(shown)}%" for i, c in enumerate(shown)) + ")"
        style = f" style=\"--c:{background};--t:{palette.text_colour(shown[0])}\""
        counts["strip"][-1] = shown[0]
    return (f"<span class=\"dev {e(state)}\" tabindex=\"0\" data-id=\"{e(device_id)}\""
            f" title=\"{e(title)}\"{style}>{e(label)}</span>")
