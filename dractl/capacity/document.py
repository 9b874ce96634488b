"""The state of the cluster's devices after a dry run, as data: pools (KEP-5677 shape), nodes
(devices by class, free/used) and, for the picture, every device with what holds it.

Input is a dry-run Plan (claims that were already allocated plus those the run allocated, and
the slices with DeviceTaintRules applied) and the DeviceClasses of the inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from dractl.allocator.features import AllocatorFeatures
from dractl.api.resource import Device, DeviceClass
from dractl.capacity.pool_status import (
    POOL_INCOMPLETE,
    POOL_INVALID,
    TAINTED,
    ClusterPool,
    cluster_pools,
    counter_set_view,
    pool_status,
)
from dractl.capacity.usage import DeviceUse, device_usage

FREE, ALLOCATED, UNAVAILABLE = "free", "allocated", "unavailable"


@dataclass
class Filters:
    driver: str | None = None
    pool: str | None = None
    node: str | None = None

    def keeps_pool(self, pool: ClusterPool) -> bool:
        if self.driver and pool.driver != self.driver:
            return False
        if self.pool and pool.name != self.pool:
            return False
        return not self.node or _pool_node(pool) == self.node


@dataclass
class CapacityState:
    pools: list[ClusterPool]
    statuses: list[dict]
    usage: dict
    classes: list[DeviceClass]
    claim_pods: dict[str, list[str]] = field(default_factory=dict)   # claim ref -> pod refs
    node_order: dict[str, int] = field(default_factory=dict)          # inventory order of nodes
    class_members: dict[str, set] = field(default_factory=dict)      # class name -> device ids


def build_state(plan, classes: Sequence[DeviceClass], features: AllocatorFeatures, engine,
                filters: Filters | None = None, default_partition_attribute: str | None = None,
                class_members: dict[str, set] | None = None) -> CapacityState:
    """class_members: which devices each class selects, from an earlier state of the same
    slices (the selectors' verdicts do not depend on what is allocated)."""
    filters = filters or Filters()
    allocations = [(c.ref, c.allocation) for c in plan.claims if c.allocation is not None]
    usage = device_usage(allocations)
    pools = [p for p in cluster_pools(plan.slices, features) if filters.keeps_pool(p)]
    statuses = [pool_status(p, usage, default_partition_attribute) for p in pools]
    state = CapacityState(pools, statuses, usage, list(classes), claim_pods=_claim_pods(plan),
                          node_order={name: i for i, name in enumerate(plan.nodes)})
    state.class_members = class_members if class_members is not None else _class_members(pools, classes, engine)
    return state


def _claim_pods(plan) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for pod in plan.pods:
        if pod.status != "Scheduled":
            continue
        for ref in pod.claims:
            if ref.claim is not None:
                out.setdefault(ref.claim.ref, []).append(pod.pod.key)
    return out


def _class_members(pools: Iterable[ClusterPool], classes: Sequence[DeviceClass], engine) -> dict[str, set]:
    """Devices each class selects (all of its CEL selectors true; a selector that fails to
    evaluate on a device does not select it)."""
    members: dict[str, set] = {}
    devices = [d for p in pools for d in p.devices]
    for cls in classes:
        expressions = [s.cel_expression for s in cls.selectors]
        if any(e is None for e in expressions):
            continue
        chosen = set()
        for dev in devices:
            try:
                if all(engine.matches(e, dev) for e in expressions):
                    chosen.add(dev.id)
            except Exception:  # noqa: BLE001 - a CEL error means "not selected" for counting
                continue
        members[cls.name] = chosen
    return members


def _pool_node(pool: ClusterPool) -> str | None:
    return pool.node_name


def device_state(pool_entry: dict, device: Device, use: DeviceUse | None) -> tuple[str, dict | None]:
    """(free|allocated|unavailable, the `unavailable` entry that explains it)."""
    if use is not None and use.in_use:
        return ALLOCATED, None
    why = _unavailable_index(pool_entry).get(device.name)
    return (UNAVAILABLE, why) if why is not None else (FREE, None)


_INDEXES: dict[int, tuple[dict, dict]] = {}


def _unavailable_index(pool_entry: dict) -> dict:
    """device name -> its `unavailable` entry, built once per pool status (node views, the device
    map and the summary each ask for every device: a scan per device was quadratic)."""
    found = _INDEXES.get(id(pool_entry))
    if found is None or found[0] is not pool_entry:
        found = (pool_entry, {e["device"]: e for e in pool_entry.get("unavailable") or ()})
        if len(_INDEXES) > 10_000:
            _INDEXES.clear()
        _INDEXES[id(pool_entry)] = found
    return found[1]


def node_views(state: CapacityState) -> list[dict]:
    """Per node: its node-local devices counted free/allocated/unavailable, in total and per class."""
    nodes: dict[str, dict] = {}
    for pool, status in zip(state.pools, state.statuses, strict=True):
        node = pool.node_name
        if not node:
            continue
        view = nodes.setdefault(node, {"name": node, "pools": [], "devices": _counts(), "classes": {}})
        view["pools"].append(f"{pool.driver}/{pool.name}")
        for dev in pool.devices:
            kind, _ = device_state(status, dev, state.usage.get(dev.id))
            view["devices"][kind] += 1
            view["devices"]["total"] += 1
            for cls_name, members in state.class_members.items():
                if dev.id in members:
                    counts = view["classes"].setdefault(cls_name, _counts())
                    counts[kind] += 1
                    counts["total"] += 1
    out = []
    for name in sorted(nodes, key=lambda n: _node_key(state, n)):
        view = nodes[name]
        view["classes"] = [{"name": c, **view["classes"][c]} for c in sorted(view["classes"])]
        out.append(view)
    return out


def _counts() -> dict:
    return {"total": 0, ALLOCATED: 0, FREE: 0, UNAVAILABLE: 0}


def device_map(state: CapacityState) -> list[dict]:
    """Every device of the kept pools, grouped by node (network-attached pools under their own
    heading), with partitions grouped by the counter set they draw from. Feeds the HTML picture."""
    groups: dict[str, dict] = {}
    for pool, status in zip(state.pools, state.statuses, strict=True):
        key = pool.node_name or f"(network-attached) {pool.driver}/{pool.name}"
        node = groups.setdefault(key, {"node": key, "attached": pool.node_name is None, "parents": []})
        node["parents"].extend(_parents(pool, status, state))
    return [groups[k] for k in sorted(groups, key=lambda k: (groups[k]["attached"], _node_key(state, k)))]


def _node_key(state: CapacityState, node: str) -> tuple:
    """Nodes in inventory order (as the scheduler tries them), others after them by name."""
    return (state.node_order.get(node, len(state.node_order)), node)


def _parents(pool: ClusterPool, status: dict, state: CapacityState) -> list[dict]:
    """Boxes to draw: one per shared counter set (its partitions inside, counters as bars) and one
    per device that consumes no counters."""
    by_set: dict[str, dict] = {}
    for cs in status.get("counterSets") or _counter_sets_for_summary(pool, status, state):
        by_set[cs["name"]] = {"counterSet": cs["name"], "counters": cs["counters"], "devices": []}
    boxes: list[dict] = []
    for dev in pool.devices:
        entry = _device_entry(pool, status, dev, state)
        sets = [cc.counter_set for cc in dev.consumes_counters]
        if sets and sets[0] in by_set:
            by_set[sets[0]]["devices"].append(entry)
        else:
            boxes.append({"device": entry})
    return list(by_set.values()) + boxes


def _counter_sets_for_summary(pool: ClusterPool, status: dict, state: CapacityState) -> list[dict]:
    """Pools that report a partitionSummary still get their counters drawn: same arithmetic as the
    counterSets view."""
    if not pool.counter_sets:
        return []
    in_use = {d.name for d in pool.devices if (state.usage.get(d.id) or DeviceUse()).in_use}
    return counter_set_view(pool.counter_sets, pool.devices, in_use)


def _device_entry(pool: ClusterPool, status: dict, dev: Device, state: CapacityState) -> dict:
    use = state.usage.get(dev.id)
    kind, why = device_state(status, dev, use)
    entry = {"id": dev.id_str, "name": dev.name, "pool": f"{pool.driver}/{pool.name}", "state": kind,
             "classes": sorted(c for c, members in state.class_members.items() if dev.id in members),
             "attributes": {k: (v.render() if v is not None else None) for k, v in sorted(dev.attributes.items())},
             "capacity": {k: q.canonical() for k, q in sorted(dev.capacity.items())}}
    if use is not None and (use.claims or use.admin_claims):
        entry["claims"] = list(use.claims)
        if use.admin_claims:
            entry["adminClaims"] = list(use.admin_claims)
        entry["pods"] = sorted({p for c in use.claims for p in state.claim_pods.get(c, ())})
        if use.consumed:
            entry["consumed"] = {k: q.canonical() for k, q in sorted(use.consumed.items())}
    if why is not None:
        entry["unavailable"] = _why_text(why)
    return entry


def _why_text(entry: dict) -> str:
    reason = entry["reason"]
    if reason == TAINTED:
        taints = ", ".join(f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"
                           for t in entry["taints"])
        return f"tainted ({taints})"
    if reason == POOL_INCOMPLETE:
        return "pool incomplete: not every ResourceSlice of its generation is present"
    if reason == POOL_INVALID:
        return f"pool invalid: {entry.get('detail', '')}"
    return reason


def summary(state: CapacityState) -> dict:
    total = allocated = unavailable = 0
    for pool, status in zip(state.pools, state.statuses, strict=True):
        for dev in pool.devices:
            kind, _ = device_state(status, dev, state.usage.get(dev.id))
            total += 1
            allocated += kind == ALLOCATED
            unavailable += kind == UNAVAILABLE
    return {"pools": len(state.pools), "devices": total, "allocated": allocated,
            "available": total - allocated - unavailable, "unavailable": unavailable}

