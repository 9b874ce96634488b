"""Per-pool availability in the shape of KEP-5677's `PoolStatus` (resource.k8s.io/v1alpha3
`ResourcePoolStatusRequest.status.pools[]`), computed offline from slices and allocated claims.

Upstream rules followed here (KEP-5677, "Partitionable & Consumable Device Accounting", and the
controller's pool views):
* only the latest generation of a pool counts; a pool with fewer slices at that generation than
  its `resourceSliceCount` gets a `PoolIncomplete:` validationError and no device counts;
* `allocatedDevices` counts a device once however many non-admin claims hold it;
* `unavailableDevices` are unallocated devices with a NoSchedule or NoExecute taint (from the
  slice or from a DeviceTaintRule); `availableDevices` = total - allocated - unavailable;
* `partitionSummary` groups counter-consuming devices by the slice's `partitionTypeAttribute`
  (or a request-wide default) and counts, per type, how many fresh devices still fit in the
  shared counters left after in-use devices (each in-use device debited once);
* `shareableSummary` covers devices with `allowMultipleAllocations`.

dractl's own additions, never in upstream's object (documented in the README): `unavailable`
(each unavailable device with why), `invalidReason` (a pool the scheduler rejects as invalid:
its devices are unavailable), and `counterSets` (the KEP's fallback view of shared counters,
used/left per counter, for pools without a partition type attribute).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from dractl.allocator.features import AllocatorFeatures
from dractl.allocator.pools import build_pool
from dractl.api.limits import POOL_STATUS_LIST_ITEMS_MAX
from dractl.api.quantity import Quantity
from dractl.api.resource import CounterSet, Device, ResourceSlice
from dractl.capacity.usage import DeviceID, DeviceUse

MAX_STATUS_LIST_ITEMS = POOL_STATUS_LIST_ITEMS_MAX
BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")

# Why a device cannot be allocated although nothing holds it (stable values, in JSON).
TAINTED = "Tainted"
POOL_INCOMPLETE = "PoolIncomplete"
POOL_INVALID = "PoolInvalid"


@dataclass
class ClusterPool:
    """One pool across the whole cluster: its slices of the latest generation."""

    driver: str
    name: str
    generation: int
    slice_count: int                 # resourceSliceCount the driver declared
    slices: list[ResourceSlice] = field(default_factory=list)
    invalid_reason: str = ""

    @property
    def incomplete(self) -> bool:
        return len(self.slices) < self.slice_count

    @property
    def devices(self) -> list[Device]:
        return [dev for sl in self.slices for dev in sl.devices]

    @property
    def node_name(self) -> str | None:
        """The node of a node-local pool: the one node its device slices name (slices that only
        define shared counters name none)."""
        names = {sl.node_name for sl in self.slices if sl.devices or sl.node_name}
        return names.pop() if len(names) == 1 else None

    @property
    def counter_sets(self) -> list[CounterSet]:
        return [cs for sl in self.slices for cs in sl.shared_counters]


def cluster_pools(slices: Iterable[ResourceSlice], features: AllocatorFeatures) -> list[ClusterPool]:
    """Pools sorted by driver, then pool name (the order of `status.pools`)."""
    latest: dict[tuple[str, str], ClusterPool] = {}
    for sl in slices:
        pool = latest.get(sl.pool_id)
        if pool is None or sl.pool.generation > pool.generation:
            latest[sl.pool_id] = pool = ClusterPool(sl.driver, sl.pool.name, sl.pool.generation,
                                                    sl.pool.resource_slice_count)
        if sl.pool.generation == pool.generation:
            pool.slices.append(sl)
    pools = sorted(latest.values(), key=lambda p: (p.driver, p.name))
    for pool in pools:
        pool.slices.sort(key=lambda s: s.name)
        if not pool.incomplete:
            # The scheduler's own validity check of a complete pool (duplicate device names,
            # counter sets that are missing or defined twice), applied to the whole pool.
            checked = build_pool((pool.driver, pool.name), pool.slices, None, features)
            pool.invalid_reason = checked.invalid_reason if checked.invalid else ""
    return pools


def blocking_taints(device: Device) -> list[dict]:
    return [{"key": t.key, **({"value": t.value} if t.value else {}), "effect": t.effect}
            for t in device.taints if t.effect in BLOCKING_EFFECTS]


def pool_status(pool: ClusterPool, usage: Mapping[DeviceID, DeviceUse],
                default_partition_attribute: str | None = None) -> dict:
    out: dict = {"driver": pool.driver, "poolName": pool.name}
    if pool.node_name:
        out["nodeName"] = pool.node_name
    out["generation"] = pool.generation
    devices = pool.devices
    if pool.incomplete:
        out["validationError"] = (f"PoolIncomplete: pool {pool.driver}/{pool.name} has {len(pool.slices)} of "
                                  f"{pool.slice_count} ResourceSlices at generation {pool.generation}")
        out["unavailable"] = [{"device": d.name, "reason": POOL_INCOMPLETE} for d in devices]
        return out
    in_use = {d.name for d in devices if _use(usage, d).in_use}
    unavailable = _unavailable(pool, devices, in_use)
    out["resourceSliceCount"] = len(pool.slices)
    out["totalDevices"] = len(devices)
    out["allocatedDevices"] = len(in_use)
    out["availableDevices"] = len(devices) - len(in_use) - len(unavailable)
    out["unavailableDevices"] = len(unavailable)
    error = _views(out, pool, devices, usage, in_use, default_partition_attribute)
    if error:
        out["validationError"] = error
    if pool.invalid_reason:
        out["invalidReason"] = pool.invalid_reason
    if unavailable:
        out["unavailable"] = unavailable
    return out


def _use(usage: Mapping[DeviceID, DeviceUse], device: Device) -> DeviceUse:
    return usage.get(device.id) or _NO_USE


_NO_USE = DeviceUse()


def _unavailable(pool: ClusterPool, devices: Sequence[Device], in_use: set[str]) -> list[dict]:
    out = []
    for dev in devices:
        if dev.name in in_use:
            continue
        if pool.invalid_reason:
            out.append({"device": dev.name, "reason": POOL_INVALID, "detail": pool.invalid_reason})
            continue
        taints = blocking_taints(dev)
        if taints:
            out.append({"device": dev.name, "reason": TAINTED, "taints": taints})
    return out


def _views(out: dict, pool: ClusterPool, devices: Sequence[Device], usage, in_use: set[str],
           default_attribute: str | None) -> str:
    """Fill partitionSummary / counterSets / shareableSummary; return the first structural error."""
    counter_sets = pool.counter_sets
    attributes = _partition_attributes(pool, default_attribute)
    error = ""
    if any(attributes.values()):
        if not counter_sets:
            error = (f"PartitionTypeMissing: pool {pool.driver}/{pool.name} declares partitionTypeAttribute "
                     "but publishes no sharedCounters")
        else:
            summary, error = _partition_summary(pool, devices, attributes, counter_sets, in_use)
            if summary:
                out["partitionSummary"] = summary
    elif counter_sets:
        out["counterSets"] = counter_set_view(counter_sets, devices, in_use)
    shareable, shareable_error = _shareable_summary(pool, devices, usage, in_use)
    if shareable is not None:
        out["shareableSummary"] = shareable
    if error:
        out.pop("partitionSummary", None)
    return error or shareable_error


def _partition_attributes(pool: ClusterPool, default_attribute: str | None) -> dict[str, str]:
    """device name -> grouping attribute: the slice's own, else (only when no slice of the pool
    declares one) the request's default."""
    declared = {dev.name: sl.partition_type_attribute or "" for sl in pool.slices for dev in sl.devices}
    if not any(declared.values()) and default_attribute:
        return {name: default_attribute for name in declared}
    return declared


def _partition_type(device: Device, attribute: str) -> str | None:
    """The string value of `attribute` on the device; a driver-domain attribute may be written bare."""
    value = device.attributes.get(attribute)
    if value is None and attribute.startswith(device.driver + "/"):
        value = device.attributes.get(attribute[len(device.driver) + 1:])
    if value is None or value.type != "string":
        return None
    return str(value.value)


def _partition_summary(pool, devices, attributes, counter_sets, in_use) -> tuple[list[dict], str]:
    groups: dict[tuple[str, str], dict] = {}
    for dev in devices:
        attribute = attributes.get(dev.name)
        if not dev.consumes_counters or not attribute:
            continue
        kind = _partition_type(dev, attribute)
        if kind is None:
            return [], (f"PartitionTypeMissing: device {dev.name!r} in pool {pool.driver}/{pool.name} does not "
                        f"carry partition type attribute {attribute!r}")
        group = groups.setdefault((attribute, kind), {"total": 0, "fresh": [], "cost": _cost_key(dev)})
        if group["cost"] != _cost_key(dev):
            return [], (f"PartitionCostMismatch: devices of partition type {kind!r} in pool "
                        f"{pool.driver}/{pool.name} consume different counters")
        group["total"] += 1
        if dev.name not in in_use:
            group["fresh"].append(dev)
    baseline = _counters_left(counter_sets, devices, in_use)
    summary = []
    for (attribute, kind), group in sorted(groups.items()):
        left = {name: dict(counters) for name, counters in baseline.items()}
        allocatable = 0
        for dev in group["fresh"]:
            if _fits(dev, left):
                allocatable += 1
                _debit(dev, left)
        summary.append({"attribute": attribute, "type": kind, "total": group["total"], "allocatable": allocatable})
    if len(summary) > MAX_STATUS_LIST_ITEMS:
        return [], (f"PartitionSummaryOverCap: pool {pool.driver}/{pool.name} has {len(summary)} partition types, "
                    f"exceeding the maximum of {MAX_STATUS_LIST_ITEMS}")
    return summary, ""


def _cost_key(device: Device) -> tuple:
    return tuple(sorted((cc.counter_set, name, q.canonical())
                        for cc in device.consumes_counters for name, q in cc.counters.items()))


def _counters_left(counter_sets: Sequence[CounterSet], devices: Sequence[Device],
                   in_use: set[str]) -> dict[str, dict[str, Quantity]]:
    left = {cs.name: dict(cs.counters) for cs in counter_sets}
    for dev in devices:
        if dev.name in in_use:
            _debit(dev, left)
    return left


def _fits(device: Device, left: Mapping[str, Mapping[str, Quantity]]) -> bool:
    for cc in device.consumes_counters:
        counters = left.get(cc.counter_set, {})
        for name, amount in cc.counters.items():
            if name not in counters or counters[name] < amount:
                return False
    return True


def _debit(device: Device, left: dict[str, dict[str, Quantity]]) -> None:
    for cc in device.consumes_counters:
        counters = left.get(cc.counter_set)
        if counters is None:
            continue
        for name, amount in cc.counters.items():
            if name in counters:
                counters[name] = counters[name] - amount


def counter_set_view(counter_sets, devices, in_use) -> list[dict]:
    left = _counters_left(counter_sets, devices, in_use)
    view = []
    for cs in counter_sets:
        counters = []
        for name in sorted(cs.counters):
            total = cs.counters[name]
            remaining = left[cs.name][name]
            counters.append({"name": name, "total": total.canonical(), "consumed": (total - remaining).canonical(),
                             "available": _non_negative(remaining).canonical()})
        view.append({"name": cs.name, "counters": counters})
    return view


def _shareable_summary(pool, devices, usage, in_use) -> tuple[dict | None, str]:
    shareable = [d for d in devices if d.allow_multiple_allocations]
    if not shareable:
        return None, ""
    totals: dict[str, Quantity] = {}
    consumed: dict[str, Quantity] = {}
    for dev in shareable:
        for name, amount in dev.capacity.items():
            totals[name] = totals.get(name, Quantity(0)) + amount
        for name, amount in _use(usage, dev).consumed.items():
            consumed[name] = consumed.get(name, Quantity(0)) + amount
    capacity = []
    for name in sorted(totals):
        used = consumed.get(name, Quantity(0))
        capacity.append({"name": name, "total": totals[name].canonical(), "consumed": used.canonical(),
                         "available": _non_negative(totals[name] - used).canonical()})
    if len(capacity) > MAX_STATUS_LIST_ITEMS:
        return None, (f"ShareableSummaryOverCap: pool {pool.driver}/{pool.name} has {len(capacity)} shareable "
                      f"capacity keys, exceeding the maximum of {MAX_STATUS_LIST_ITEMS}")
    partial = sum(1 for d in shareable if d.name in in_use)
    summary = {"fullyAvailableDevices": len(shareable) - partial, "partiallyAvailableDevices": partial}
    if capacity:
        summary["capacity"] = capacity
    return summary, ""


def _non_negative(q: Quantity) -> Quantity:
    return q if q.sign() >= 0 else Quantity(0)
