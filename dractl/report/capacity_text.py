"""`capacity -o text`: pools (KEP-5677's numbers), nodes, and the --fit answer as trees."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dractl.report.sanitize import safe_line
from dractl.report.styled import Styled, StyledTree

if TYPE_CHECKING:
    from dractl.report.registry import Drawing


def _t(text: str, style: str = "") -> Styled:
    return Styled().append(safe_line(text), style)


def pool_tree(status: dict) -> StyledTree:
    label = _t(f"pool {status['driver']}/{status['poolName']}", "bold")
    where = f"node {status['nodeName']}" if status.get("nodeName") else "network-attached"
    label.append(safe_line(f" ({where}, generation {status['generation']})"), "dim")
    if "totalDevices" in status:
        label.append(safe_line(f": {status['totalDevices']} devices, {status['allocatedDevices']} allocated, "
                               f"{status['availableDevices']} available, {status['unavailableDevices']} unavailable"))
    tree = StyledTree(label)
    if status.get("validationError"):
        tree.add(_t(f"validationError: {status['validationError']}", "bold red"))
    if status.get("invalidReason"):
        tree.add(_t(f"invalid (the scheduler allocates none of its devices): {status['invalidReason']}", "bold red"))
    for entry in status.get("partitionSummary") or ():
        tree.add(_t(f"partition type {entry['type']} ({entry['attribute']}): {entry['total']} devices, "
                    f"{entry['allocatable']} more allocatable"))
    for cs in status.get("counterSets") or ():
        used = ", ".join(f"{c['name']} {c['consumed']}/{c['total']}" for c in cs["counters"])
        tree.add(_t(f"counter set {cs['name']} used: {used}"))
    shareable = status.get("shareableSummary")
    if shareable:
        node = tree.add(_t(f"shareable devices: {shareable['fullyAvailableDevices']} unused, "
                           f"{shareable['partiallyAvailableDevices']} partly used"))
        for c in shareable.get("capacity") or ():
            node.add(_t(f"{c['name']}: {c['consumed']} of {c['total']} consumed, {c['available']} left"))
    _unavailable(tree, status.get("unavailable") or [])
    return tree


def _unavailable(tree: StyledTree, entries: list[dict]) -> None:
    """One line per reason, naming the devices (long lists shortened to the first few)."""
    by_reason: dict[str, list[str]] = {}
    for entry in entries:
        why = entry["reason"]
        if entry.get("taints"):
            why += " " + ", ".join(f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"
                                   for t in entry["taints"])
        elif entry.get("detail"):
            why += f" ({entry['detail']})"
        by_reason.setdefault(why, []).append(entry["device"])
    for why, devices in by_reason.items():
        shown = ", ".join(devices[:8]) + (f", ... ({len(devices)} devices)" if len(devices) > 8 else "")
        tree.add(_t(f"unavailable: {why}: {shown}", "yellow"))


def node_tree(view: dict) -> StyledTree:
    d = view["devices"]
    tree = StyledTree(_t(f"node {view['name']}", "bold").append(
        safe_line(f": {d['total']} devices, {d['allocated']} allocated, {d['free']} free, {d['unavailable']} unavailable")))
    for cls in view["classes"]:
        tree.add(_t(f"class {cls['name']}: {cls['total']} devices, {cls['allocated']} allocated, "
                    f"{cls['free']} free, {cls['unavailable']} unavailable"))
    return tree


def fit_tree(fit: dict) -> StyledTree:
    bound = " (the --max bound: more may fit)" if fit.get("bounded") else ""
    label = _t(f"fit {fit['workload']}: {fit['replicas']} more replica(s){bound}", "bold green" if fit["replicas"] else "bold red")
    tree = StyledTree(label)
    if fit.get("addedNodes"):
        tree.add(_t(f"with {fit['addedNodes']} node(s) added like {fit['like']}"))
    if fit.get("need") is not None:
        need = fit["need"]
        text = (f"{need['nodes']} node(s) like {fit['like']} needed for {need['replicas']} replica(s)"
                if need.get("nodes") is not None else f"{need['replicas']} replica(s) do not fit with up to "
                f"{need['tried']} node(s) like {fit['like']}")
        tree.add(_t(text, "bold"))
    stop = fit.get("stoppedBy")
    if stop:
        node = tree.add(_t(f"next replica: {stop['status']}: {stop['message']}", "yellow"))
        for line in stop.get("details") or ():
            node.add(_t(line))
    placements = fit.get("placements") or []
    if placements:
        node = tree.add(_t(f"placements ({len(placements)}):"))
        for p in placements[:50]:
            node.add(_t(f"{p['pod']} on {p['node']}: {', '.join(p['devices']) or 'no devices'}"))
        if len(placements) > 50:
            node.add(_t(f"... {len(placements) - 50} more (-o json lists all)", "dim"))
    return tree


def summary_line(summary: dict) -> str:
    return (f"{summary['pools']} pool(s), {summary['devices']} device(s): {summary['allocated']} allocated, "
            f"{summary['available']} available, {summary['unavailable']} unavailable")


def report(result, view) -> "Drawing":
    """`capacity -o text`: findings, pools, nodes, the --fit answer, a summary line."""
    from dractl.report.findings_text import print_findings
    from dractl.report.registry import Drawing

    doc = result.capacity

    def draw(console) -> None:
        shown = [f for f in result.findings if f.severity != "info"]
        if shown:
            print_findings(console, shown, quiet=view.quiet)
            console.print()
        if not view.quiet:
            for status in doc["pools"]:
                console.print(pool_tree(status))
            for node in doc["nodes"]:
                console.print(node_tree(node))
        if "fit" in doc:
            console.print(fit_tree(doc["fit"]))
        console.print()
        console.print(_t(summary_line(doc["summary"])))

    return Drawing(draw, plain=True)
