"""The cluster-side input of allocation, indexed once and reused for many nodes and claims:
device classes, slices (with DeviceTaintRule taints merged in), pools per node, and the allocated
state, which changes incrementally as the dry-run scheduler commits allocations."""

from __future__ import annotations

from typing import Iterable

from dractl.allocator.features import STABLE, AllocatorFeatures
from dractl.allocator.nodes import NodeInfo
from dractl.allocator.pools import GatherError, NodePools, gather_pools
from dractl.allocator.state import AllocatedState, claim_key
from dractl.allocator.taints import apply_taint_rules
from dractl.api.resource import (
    AllocationResult,
    DeviceClass,
    DeviceTaintRule,
    ResourceClaim,
    ResourceSlice,
)


class Inventory:
    def __init__(self, features: AllocatorFeatures, classes: Iterable[DeviceClass] = (),
                 slices: Iterable[ResourceSlice] = (), allocated_claims: Iterable[ResourceClaim] = (),
                 taint_rules: Iterable[DeviceTaintRule] = ()):
        self.features = features
        self.classes: dict[str, DeviceClass] = {}
        for c in classes:
            self.classes.setdefault(c.name, c)
        # Class name -> its selectors' CEL expressions (None for a selector without one).
        self.class_selectors: dict[str, tuple] = {
            name: tuple(sel.cel_expression for sel in c.selectors) for name, c in self.classes.items()}
        rules = list(taint_rules) if features.device_taint_rules else []
        # For explanations: which rule a device's taint comes from (its taint object is shared).
        self.taint_rules: tuple[DeviceTaintRule, ...] = tuple(rules)
        self.slices: tuple[ResourceSlice, ...] = tuple(apply_taint_rules(slices, rules))
        self._by_node: dict[str, list[ResourceSlice]] = {}
        self._without_node: list[ResourceSlice] = []
        self._by_pool: dict[tuple, list[ResourceSlice]] = {}
        for sl in self.slices:
            if sl.node_name:
                self._by_node.setdefault(sl.node_name, []).append(sl)
            else:
                self._without_node.append(sl)
            self._by_pool.setdefault(sl.pool_id, []).append(sl)
        self.state = AllocatedState.from_claims(allocated_claims, features.consumable_capacity)
        self._pools: dict[tuple, NodePools | GatherError] = {}
        # Pools shared by nodes that gathering cannot tell apart (see _node_view).
        self._views: dict[tuple, NodePools | GatherError] = {}
        self._view_basis: dict[bool, tuple | None] = {}
        # Allocator.could_match: selector expressions -> whether some device passes them.
        self.match_anywhere: dict[tuple, bool] = {}

    # -- pools ----------------------------------------------------------------------------------
    def pools_for(self, node: NodeInfo, variant: str) -> NodePools:
        """Pools of `node` (cached; slices never change during a run). Raises GatherError."""
        key = (node.cache_key, variant == STABLE)
        cached = self._pools.get(key)
        if cached is None:
            cached = self._pools[key] = self._gather(node, variant == STABLE)
        if isinstance(cached, GatherError):
            raise cached
        return cached

    def slices_of_pool(self, pool_id: tuple) -> tuple[ResourceSlice, ...]:
        """Every slice of the pool in the cluster, any node or generation (for explanations)."""
        return tuple(self._by_pool.get(pool_id, ()))

    def _gather(self, node: NodeInfo, stable: bool) -> NodePools | GatherError:
        candidates = self.slices if stable else self._by_node.get(node.name, []) + self._without_node
        view = self._node_view(node, candidates, stable)
        shared = self._views.get(view) if view is not None else None
        if shared is not None:
            return shared if isinstance(shared, GatherError) else shared.for_node(node)
        try:
            gathered = gather_pools(node, candidates, self._by_pool, self.features, stable=stable)
        except GatherError as exc:
            return self._views.setdefault(view, exc) if view is not None else exc
        if view is not None:
            gathered.node_independent = True
            self._views[view] = gathered
        return gathered

    def _node_view(self, node: NodeInfo, candidates, stable: bool) -> tuple | None:
        """What pool gathering reads of `node` (dractl's own shortcut): with no node-local slice
        and no per-device node selection among the candidates, only the labels their node
        selectors name (the name if one matches fields; the declared features if a slice skips
        node operations). Nodes alike in these get the same pools, and a search over them never
        reads the node. None when the node itself matters."""
        if not stable and node.name in self._by_node:
            return None
        basis = self._view_basis.get(stable, self)
        if basis is self:
            basis = self._view_basis[stable] = _view_basis(candidates)
        if basis is None:
            return None
        label_keys, by_name, by_features = basis
        labels = node.labels
        return (stable, tuple([(k in labels, labels.get(k)) for k in label_keys]),
                node.name if by_name else None, node.declared_features if by_features else None)

    def device_class(self, name: str) -> DeviceClass | None:
        return self.classes.get(name)

    # -- allocated state --------------------------------------------------------------------------
    def commit(self, claim: ResourceClaim | str, allocation: AllocationResult) -> None:
        """Record an allocation so that later allocations see its devices as in use."""
        self.state.add(claim if isinstance(claim, str) else claim_key(claim), allocation)

    def release(self, claim: ResourceClaim | str) -> None:
        self.state.remove(claim if isinstance(claim, str) else claim_key(claim))

    @property
    def version(self) -> int:
        return self.state.version


def _view_basis(candidates) -> tuple | None:
    """(label keys the candidates' node selectors read, whether one matches fields, whether a
    slice skips node operations), or None when a candidate is node-local or selects per device."""
    keys: dict[str, None] = {}
    by_name = by_features = False
    for sl in candidates:
        if sl.node_name or sl.per_device_node_selection:
            return None
        by_features = by_features or bool(sl.skip_node_operations)
        selector = sl.node_selector
        for term in selector.terms if selector is not None else ():
            for requirement in term.match_expressions:
                keys.setdefault(requirement.key, None)
            by_name = by_name or bool(term.match_fields)
    return tuple(keys), by_name, by_features
