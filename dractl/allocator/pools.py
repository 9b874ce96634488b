"""Resource pools for one node: gathering, generations, completeness, validity and search order
(docs/spec/allocator.md#pools)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from dractl.allocator.compatgroups import ignored_slice
from dractl.allocator.nodes import NodeInfo, NodeSelectorError, node_matches
from dractl.api.resource import CounterSet, Device, ResourceSlice

# The node feature a kubelet declares when it honours ResourceSlice.spec.skipNodeOperations.
OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations"

PoolID = tuple  # (driver, pool name)


class GatherError(Exception):
    """A slice's or device's node selector cannot be parsed (hard error)."""


class Candidate:
    """One allocatable device at its position in the node's search order."""

    __slots__ = ("device", "slice", "pool", "index", "id", "per_device_node_selection")

    def __init__(self, device: Device, slice_: ResourceSlice, pool: "Pool", index: int):
        self.device = device
        self.slice = slice_
        self.pool = pool
        self.index = index
        self.id = device.id
        self.per_device_node_selection = slice_.per_device_node_selection is True

    def __repr__(self) -> str:
        return f"Candidate({self.device.id_str})"


@dataclass(eq=False)
class Pool:
    driver: str
    name: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    # Device slices targeting the node, sorted by name (empty for incomplete/invalid placeholders).
    slices: tuple[ResourceSlice, ...] = ()
    # Device slices of the pool that do not target the node (only needed for counters).
    other_slices: tuple[ResourceSlice, ...] = ()
    counter_sets: Mapping[str, CounterSet] = field(default_factory=dict)
    has_binding_conditions: bool = False
    # For explanations only: the relevant slices of an incomplete or invalid pool.
    unusable_slices: tuple[ResourceSlice, ...] = ()

    @property
    def id(self) -> PoolID:
        return (self.driver, self.name)

    @property
    def id_str(self) -> str:
        return f"{self.driver}/{self.name}"

    @property
    def usable(self) -> bool:
        return not (self.incomplete or self.invalid)

    def counter_consumers(self):
        """Devices (targeting or not) that consume counters, for availability computation."""
        for sl in self.slices + self.other_slices:
            for dev in sl.devices:
                if dev.consumes_counters:
                    yield dev


@dataclass(eq=False)
class NodePools:
    """Everything about the pools of one node that does not depend on the allocated state."""

    node: NodeInfo
    pools: tuple[Pool, ...]
    candidates: tuple[Candidate, ...]
    # first_stateful[i]: index of the first candidate at or after i whose allocation attempt can
    # leave state behind (consumes counters or may be shared); len(candidates) if none.
    first_stateful: tuple[int, ...] = ()
    # Per-device node selection results for this node (errors are not cached).
    device_on_node: dict = field(default_factory=dict)
    # Some candidate consumes shared counters (else the search needs no counter bookkeeping).
    has_counter_consumers: bool = False
    # Some device of the pools (targeting the node or not) declares compatibility groups.
    has_compatibility_groups: bool = False
    # Devices left out of `candidates` because their slice sets skipNodeOperations and the
    # scheduler's gate is off or the node does not declare DRAOptionalNodeOperations (for
    # explanations).
    blocked_node_operations: tuple[Device, ...] = ()
    # Gathered for every node alike (Inventory._node_view): no candidate selects nodes per
    # device, so a search over these pools gives the same verdict on each of those nodes.
    node_independent: bool = False

    @property
    def has_invalid(self) -> bool:
        return any(p.invalid for p in self.pools)

    def for_node(self, node: NodeInfo) -> "NodePools":
        """The same pools and candidates (shared, read-only) for another node alike."""
        return replace(self, node=node, device_on_node={})


def _add_slice(pools: dict, sl: ResourceSlice) -> None:
    kept = pools.get(sl.pool_id)
    if kept is None:
        pools[sl.pool_id] = [sl]
        return
    gen = kept[0].pool.generation
    if sl.pool.generation < gen:
        return
    if sl.pool.generation > gen:
        pools[sl.pool_id] = [sl]
        return
    kept.append(sl)


def _ignored(sl: ResourceSlice, features) -> bool:
    """Left out of pool gathering entirely, as if the slice did not exist: with
    DRADeviceCompatibilityGroups off, a slice that declares compatibility groups (compatgroups.py)."""
    return not features.compatibility_groups and ignored_slice(sl)


def node_operations_blocked(sl: ResourceSlice, node: NodeInfo, features) -> bool:
    """1.37 (KEP-5945, docs/spec/allocator.md#optional-node-operations): devices of a slice with a
    non-empty skipNodeOperations are unallocatable unless the DRAOptionalNodeOperations gate is on
    and the node declares the feature in status.declaredFeatures."""
    if not sl.skip_node_operations:
        return False
    return not (features.optional_node_operations and OPTIONAL_NODE_OPERATIONS in node.declared_features)


def _relevant(sl: ResourceSlice, node: NodeInfo, features, stable: bool) -> bool:
    if _ignored(sl, features):
        return False
    if not features.partitionable_devices and (sl.per_device_node_selection is not None or sl.shared_counters):
        return False
    if stable and sl.shared_counters:
        return True
    if sl.node_name or sl.all_nodes or sl.node_selector is not None:
        try:
            return node_matches(node, sl.node_name, sl.all_nodes, sl.node_selector)
        except NodeSelectorError as exc:
            raise GatherError(f"failed to perform node selection for slice {sl.name}: {exc}") from None
    if sl.per_device_node_selection:
        for dev in sl.devices:
            try:
                if node_matches(node, dev.node_name, dev.all_nodes, dev.node_selector):
                    return True
            except NodeSelectorError as exc:
                raise GatherError(f"failed to perform node selection for device {dev.name} "
                                  f"in slice {sl.name}: {exc}") from None
    return False


def _invalid(pool_id: PoolID, reason: str, relevant: Sequence[ResourceSlice]) -> Pool:
    return Pool(pool_id[0], pool_id[1], invalid=True, invalid_reason=reason, unusable_slices=tuple(relevant))


def _counter_reference_error(counter_sets: Mapping[str, CounterSet], slices: Sequence[ResourceSlice]) -> str | None:
    for sl in slices:
        for dev in sl.devices:
            for cc in dev.consumes_counters:
                cs = counter_sets.get(cc.counter_set)
                if cs is None:
                    return f"counter set {cc.counter_set} not found"
                for name in cc.counters:
                    if name not in cs.counters:
                        return f"counter {name} not found in counter set {cs.name}"
    return None


def build_pool(pool_id: PoolID, relevant: list[ResourceSlice], all_of_generation: list[ResourceSlice] | None,
               features) -> Pool:
    targeting = sorted(relevant, key=lambda s: s.name)
    if all_of_generation is not None and len(all_of_generation) != len(relevant):
        names = {s.name for s in relevant}
        non_targeting = [s for s in all_of_generation if s.name not in names]
    else:
        non_targeting = []
    if features.partitionable_devices:
        counter_slices = [s for s in targeting if s.shared_counters] + [s for s in non_targeting if s.shared_counters]
        device_slices = [s for s in targeting if not s.shared_counters]
        other_device_slices = [s for s in non_targeting if not s.shared_counters]
    else:
        counter_slices, device_slices, other_device_slices = [], targeting, []

    seen: set[str] = set()
    for sl in device_slices:
        for dev in sl.devices:
            if dev.name in seen:
                return _invalid(pool_id, f"duplicate device name {dev.name}", targeting)
            seen.add(dev.name)
    binding = any(dev.binding_conditions is not None for sl in device_slices for dev in sl.devices)
    if not features.partitionable_devices:
        return Pool(pool_id[0], pool_id[1], slices=tuple(device_slices), has_binding_conditions=binding)

    counter_sets: dict[str, CounterSet] = {}
    for sl in counter_slices:
        for cs in sl.shared_counters:
            if cs.name in counter_sets:
                return _invalid(pool_id, f"duplicate counter set name {cs.name}", targeting)
            counter_sets[cs.name] = cs
    reason = _counter_reference_error(counter_sets, device_slices + other_device_slices)
    if reason:
        return _invalid(pool_id, reason, targeting)
    return Pool(pool_id[0], pool_id[1], slices=tuple(device_slices), other_slices=tuple(other_device_slices),
                counter_sets=counter_sets, has_binding_conditions=binding)


def gather_pools(node: NodeInfo, candidates: Sequence[ResourceSlice],
                 slices_by_pool: Mapping[PoolID, Sequence[ResourceSlice]], features, stable: bool = False) -> NodePools:
    """Pools relevant for `node`, in search order, with their allocatable devices flattened.

    `candidates` are the slices that may be relevant (in input order); `slices_by_pool` indexes
    every slice of the cluster by pool, for the completeness check."""
    kept: dict[PoolID, list[ResourceSlice]] = {}
    for sl in candidates:
        if _relevant(sl, node, features, stable):
            _add_slice(kept, sl)

    pools: list[Pool] = []
    for pool_id, relevant in kept.items():
        expected = relevant[0].pool.resource_slice_count
        if len(relevant) == expected:
            pools.append(build_pool(pool_id, relevant, None, features))
            continue
        generation = relevant[0].pool.generation
        same_gen = []
        obsolete = False
        for sl in slices_by_pool.get(pool_id, ()):
            if _ignored(sl, features):
                continue
            g = sl.pool.generation
            if g == generation:
                same_gen.append(sl)
            elif g > generation:
                obsolete = True
                break
        if obsolete:
            continue
        if len(same_gen) != expected:
            pools.append(Pool(pool_id[0], pool_id[1], incomplete=True,
                              unusable_slices=tuple(sorted(relevant, key=lambda s: s.name))))
            continue
        pools.append(build_pool(pool_id, relevant, same_gen, features))

    pools.sort(key=lambda p: (p.has_binding_conditions, p.driver, p.name))
    flat: list[Candidate] = []
    blocked: list[Device] = []
    for pool in pools:
        for sl in pool.slices:
            if node_operations_blocked(sl, node, features):
                blocked.extend(sl.devices)
                continue
            for dev in sl.devices:
                flat.append(Candidate(dev, sl, pool, len(flat)))
    first = [len(flat)] * (len(flat) + 1)
    for i in range(len(flat) - 1, -1, -1):
        dev = flat[i].device
        first[i] = i if (dev.consumes_counters or dev.allow_multiple_allocations) else first[i + 1]
    consumers = any(cand.device.consumes_counters for cand in flat)
    grouped = features.compatibility_groups and any(
        cc.compatibility_groups for pool in pools for dev in pool.counter_consumers() for cc in dev.consumes_counters)
    return NodePools(node, tuple(pools), tuple(flat), tuple(first), has_counter_consumers=consumers,
                     has_compatibility_groups=grouped, blocked_node_operations=tuple(blocked))
