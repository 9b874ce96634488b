"""`capacity --what-if RULE.yaml -o text`: dractl's what-if for DeviceTaintRules as a tree per
rule and per node (data: dractl.capacity.taintrule)."""

from __future__ import annotations

from dractl.capacity.taintrule import shown_devices
from dractl.report.sanitize import safe_line
from dractl.report.styled import Styled, StyledTree

LABEL = "[dractl what-if, not a Kubernetes feature]"
_SHOWN_PODS = 20


def _t(text: str, style: str = "") -> Styled:
    return Styled().append(safe_line(text), style)


def rule_tree(rule: dict, enabled: bool) -> StyledTree:
    taint = rule["taint"]
    shown = f"{taint['key']}{'=' + taint['value'] if taint.get('value') else ''}:{taint['effect']}"
    label = _t(f"what-if DeviceTaintRule {rule['name']} ({rule['file']}:{rule['line']}): taint {shown}", "bold")
    label.append(" " + LABEL, "dim")
    tree = StyledTree(label)
    selector = rule["selector"]
    tree.add(_t("deviceSelector: " + ("missing" if selector is None else
                                      ", ".join(f"{k} {v}" for k, v in selector.items()) or "{} (empty)")))
    tree.add(_t(f"effect {rule['effect']}"))
    if rule.get("selectorNote"):
        tree.add(_t(rule["selectorNote"], "yellow"))
    if rule.get("caveat"):
        tree.add(_t(rule["caveat"], "yellow"))
    if rule.get("invalid"):
        tree.add(_t("the rule has validation errors (above): the API server rejects it, nothing changes", "bold red"))
    status = rule.get("status")
    if enabled and status:
        text = f"status the eviction controller would write: {status['type']}={status['status']} {status['reason']}"
        tree.add(_t(text + (f": {status['message']}" if status["message"] else "")))
    return tree


def node_tree(node: dict, seen: set | None = None) -> StyledTree:
    """seen: explanations already printed (a pod whose explanation was printed for an earlier
    pod says so instead of repeating it)."""
    seen = set() if seen is None else seen
    devices = node["devices"]
    head = _t(f"node {node['node']}", "bold")
    head.append(safe_line(f": {len(devices)} device(s) selected: {compact_devices(devices)}" if devices
                          else ": no device selected"))
    tree = StyledTree(head)
    for claim in node["claims"]:
        pods = ", ".join(claim["pods"]) or "no pod"
        tree.add(_t(f"claim {claim['claim']} (allocated {claim['allocated']}) on {', '.join(claim['devices'])}: "
                    f"{pods}"))
    for entry in node["evicted"][:_SHOWN_PODS]:
        when = "at once" if not entry["afterSeconds"] else f"after {entry['afterSeconds']} s (tolerationSeconds)"
        item = tree.add(_t(f"evicted {when}: pod {entry['pod']} (claim {entry['claim']}, "
                           f"{', '.join(entry['devices'])})", "bold red"))
        for note in entry.get("notes") or ():
            item.add(_t(note, "yellow"))
    _more(tree, node["evicted"], "evicted")
    shown = listed(node)
    for entry in shown[:_SHOWN_PODS]:
        tree.children.append(_blocked(entry, seen))
    _more(tree, shown, "with a changed placement")
    return tree


def listed(node: dict) -> list[dict]:
    """The changed pods a node lists: those that no longer fit, and those planned on a selected
    device; pods that only move because others took their devices first are counted, not listed."""
    return [c for c in node["changed"] if c["fromSelected"] or c["after"]["status"] != "Scheduled"]


def compact_devices(devices: list[str]) -> str:
    """driver/pool/a, driver/pool/b as "driver/pool: a, b" (each pool's first few names)."""
    pools: dict[str, list[str]] = {}
    for device in devices:
        pool, _, name = device.rpartition("/")
        pools.setdefault(pool, []).append(name)
    return "; ".join(f"{pool}: {shown_devices(names)}" for pool, names in pools.items())


def _blocked(entry: dict, seen: set) -> StyledTree:
    after = entry["after"]
    devices = ", ".join(entry["before"]["devices"]) or "no devices"
    if after["status"] == "Scheduled":
        moved = ", ".join(after["devices"]) or "no devices"
        return StyledTree(_t(f"moves: pod {entry['pod']} (planned here on {devices}) goes to {after['node']} "
                             f"({moved})", "yellow"))
    item = StyledTree(_t(f"blocked: pod {entry['pod']} (planned here on {devices}) is {after['status']}", "bold red"))
    if after.get("message"):
        explanation = (after["message"], tuple(after.get("details") or ()))
        if explanation in seen:
            item.add(_t("the same explanation as for an earlier pod above", "dim"))
            return item
        seen.add(explanation)
        reason = item.add(_t(f"{after.get('code', '')} {after['message']}".strip()))
        for line in after.get("details") or ():
            reason.add(_t(line))
    return item


def _more(tree: StyledTree, entries: list, what: str) -> None:
    if len(entries) > _SHOWN_PODS:
        tree.add(_t(f"... {len(entries) - _SHOWN_PODS} more pod(s) {what} (-o json lists all)", "dim"))


def quiet_nodes(nodes: list[dict]) -> tuple[list[dict], list[dict]]:
    """Nodes with something to say, and nodes where the rule only selects free devices."""
    busy = [n for n in nodes if n["claims"] or n["evicted"] or listed(n)]
    idle = [n for n in nodes if n["devices"] and not (n["claims"] or n["evicted"] or listed(n))]
    return busy, idle


def idle_line(idle: list[dict]) -> Styled:
    names = ", ".join(n["node"] for n in idle[:10]) + (", ..." if len(idle) > 10 else "")
    count = sum(len(n["devices"]) for n in idle)
    return _t(f"{len(idle)} more node(s) with {count} selected device(s), none of them allocated: {names}")


def knock_on_line(what_if: dict) -> Styled | None:
    others = what_if["moved"] - what_if["movedFromSelected"]
    if not others:
        return None
    return _t(f"{others} more pending pod(s) placed elsewhere, not planned on a selected device: pods placed "
              "before them (input order, first fit) took other devices (-o json lists them)", "dim")


def summary_line(what_if: dict) -> Styled:
    moved, direct = what_if["moved"], what_if["movedFromSelected"]
    detail = f" ({direct} of them planned on selected devices)" if moved != direct else ""
    return _t(f"what-if: {what_if['selectedDevices']} device(s) selected; {what_if['evicted']} pod(s) evicted, "
              f"{what_if['blocked']} pending pod(s) blocked, {moved} placed elsewhere{detail} {LABEL}", "bold")


def print_what_if(console, what_if: dict, fitted) -> None:
    """fitted(console, item): print a line or tree fitted to the terminal."""
    if not what_if["enabled"]:
        fitted(console, _t(f"what-if: {what_if['disabledNote']}", "yellow"))
    for rule in what_if["rules"]:
        fitted(console, rule_tree(rule, what_if["enabled"]))
    busy, idle = quiet_nodes(what_if["nodes"])
    seen: set = set()
    for node in busy:
        fitted(console, node_tree(node, seen))
    if idle:
        fitted(console, idle_line(idle))
    knock_on = knock_on_line(what_if)
    if knock_on is not None:
        fitted(console, knock_on)
