"""`capacity -o text`: pools (KEP-5677's numbers), nodes, and the --fit answer as trees."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dractl.report.sanitize import safe_line
from dractl.report.styled import Styled, StyledTree, print_fitted

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
    label = _t(f"fit {fit['workload']}: {fit_answer(fit)}{bound}", "bold green" if fit["replicas"] else "bold red")
    tree = StyledTree(label)
    if fit.get("addedNodes"):
        tree.add(_t(f"with {fit['addedNodes']} node(s) added like {fit['like']}"))
    if fit.get("need") is not None:
        need = fit["need"]
        text = (f"{need['nodes']} node(s) like {fit['like']} needed for {need['replicas']} replica(s) in total"
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


def fit_answer(fit: dict) -> str:
    """"N more replica(s) (M in total)": the workload's own pods that were placed count in M."""
    if fit.get("gang"):
        return "the gang fits" if fit["replicas"] else "the gang does not fit"
    text = f"{fit['replicas']} more replica(s) ({fit['total']} in total"
    missed = fit["declared"] - fit["declaredPlaced"]
    if missed:
        text += f"; {missed} of its {fit['declared']} declared pod(s) did not fit"
    return text + ")"


def summary_line(summary: dict) -> str:
    return (f"{summary['pools']} pool(s), {summary['devices']} device(s): {summary['allocated']} allocated, "
            f"{summary['available']} available, {summary['unavailable']} unavailable")


def pods_line(summary: dict) -> Styled | None:
    """How many input pods were placed and how many were not, with the first one's reason."""
    if not summary.get("pods"):
        return None
    line = _t(f"{summary['pods']} input pod(s): {summary['placed']} placed, {summary['notPlaced']} not placed")
    first = summary.get("firstNotPlaced")
    if first:
        line.append(safe_line(f"; the first, {first['pod']}: {first['status']}"
                              + (f": {first['message']}" if first["message"] else "")), "yellow")
    return line


def _before_heading(fit: dict | None, what_if: dict | None) -> str | None:
    if fit:
        return "before --fit (the inputs placed):"
    return "before --what-if (the inputs placed without the rule):" if what_if else None


def _state(console, state: dict, heading: str | None, nodes: bool) -> None:
    if heading:
        print_fitted(console, _t(heading, "bold underline"))
    for status in state["pools"]:
        print_fitted(console, pool_tree(status))
    for node in state["nodes"] if nodes else ():
        print_fitted(console, node_tree(node))


def report(result, view) -> "Drawing":
    """`capacity -o text`: findings, pools and nodes (with --fit: before and after the
    replicas, labelled), the --fit answer, the input pods placed, a summary line."""
    from dractl.report import whatif_text
    from dractl.report.findings_text import print_findings
    from dractl.report.registry import Drawing

    doc = result.capacity
    fit, what_if = doc.get("fit"), doc.get("whatIf")

    def draw(console) -> None:
        shown = [f for f in result.findings if f.severity != "info" and not (view.quiet and f.severity != "error")]
        if shown:
            print_findings(console, shown, quiet=view.quiet)
            console.print()
        if not view.quiet:
            _state(console, doc, _before_heading(fit, what_if), nodes=True)
            if fit:
                _state(console, fit["after"], f"after --fit ({fit['replicas']} more replica(s) of "
                                              f"{fit['workload']}):", nodes=False)
            if what_if:
                _state(console, what_if["after"], "after --what-if (the inputs placed with the rule in force):",
                       nodes=False)
        if fit:
            print_fitted(console, fit_tree(fit))
        if what_if:
            whatif_text.print_what_if(console, what_if, print_fitted)
        console.print()
        pods = pods_line(doc["summary"])
        if pods is not None:
            print_fitted(console, pods)
        print_fitted(console, _t(summary_line(doc["summary"])))
        if what_if:
            print_fitted(console, whatif_text.summary_line(what_if))

    return Drawing(draw, plain=True)
