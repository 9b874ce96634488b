"""The public entry point: `Allocator(...).allocate(node, claims)`."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable, Iterable, Sequence

from dractl.allocator import explain as _explain
from dractl.allocator.checks import SHARED_FACTS, FactCache
from dractl.allocator.errors import INVALID_POOLS_MESSAGE, AllocationError
from dractl.allocator.features import AllocatorFeatures, Compat
from dractl.allocator.inventory import Inventory
from dractl.allocator.nodes import NodeInfo
from dractl.allocator.pools import GatherError
from dractl.allocator.results import (
    ALLOCATED,
    ERROR,
    UNSATISFIABLE,
    AllocationOutcome,
    Explanation,
    build_results,
)
from dractl.allocator.search import Search
from dractl.api.resource import DeviceClass, DeviceTaintRule, ResourceClaim, ResourceSlice


class Allocator:
    """Allocates claims on one node at a time, like kube-scheduler's DRA plugin.

    Build it once per run (or once per pod attempt from a shared `Inventory`); call `allocate`
    per candidate node. `commit()` an allocation to make its devices in use for later calls.

    gates: a `dractl.api.versions.FeatureGates` (preferred) or an `AllocatorFeatures`.
    cel_engine: an object with `matches(expression, device) -> bool` (`dractl.cel.SelectorEngine`);
        created from `gates` when omitted.
    facts: where device facts (class match, selector results, taint tolerance per request shape)
        are kept between calls; `checks.SHARED_FACTS` (process-wide) when omitted, so Allocators
        built per node or per pod on the same slice objects reuse them. Keyed safely (see
        `checks.FactCache`); pass a fresh `FactCache()` to keep them private.
    compat: the behaviour switches (`features.Compat`); None = as the gates' release ships them.
    shortcuts: False turns every cache and pruning of the search off (the straightforward path
        the differential tests compare with); outcomes are the same, only slower.
    """

    def __init__(self, gates, classes: Iterable[DeviceClass] = (), slices: Iterable[ResourceSlice] = (),
                 allocated_claims: Iterable[ResourceClaim] = (), taint_rules: Iterable[DeviceTaintRule] = (),
                 cel_engine=None, *, compat: Compat | None = None, variant: str | None = None,
                 inventory: Inventory | None = None, share_id: Callable[[], str] | None = None,
                 facts: FactCache | None = None, shortcuts: bool = True):
        self.features = gates if isinstance(gates, AllocatorFeatures) else AllocatorFeatures.from_gates(gates)
        self.gates = None if isinstance(gates, AllocatorFeatures) else gates
        # Without an explicit `compat`, the switches follow the gates' release (1.37 ships both
        # fixes); AllocatorFeatures carry no release, so they get the snapshot's behaviour.
        if compat is None:
            compat = Compat.for_release(getattr(self.gates, "version", None)) if self.gates is not None else Compat()
        self.compat = compat
        self.variant = variant or self.features.variant
        self.inventory = inventory if inventory is not None else Inventory(
            self.features, classes, slices, allocated_claims, taint_rules)
        # What the fact cache knows the engine by: an engine built here evaluates selectors as a
        # pure function of the gates, so any Allocator with the same gates may share its facts; a
        # caller's engine is known only by its identity.
        self.engine_key = cel_engine
        if cel_engine is None:
            if self.gates is None:
                raise ValueError("cel_engine is required when gates are given as AllocatorFeatures")
            from dractl.cel import SelectorEngine
            cel_engine = SelectorEngine(self.gates)
            self.engine_key = ("SelectorEngine", self.gates.key())
        self.engine = cel_engine
        self.facts = facts if facts is not None else SHARED_FACTS
        self._fact_table = self.facts.table((self.engine_key, self.features))
        self.shortcuts = shortcuts
        # The last node's pools, by NodeInfo identity (the scheduler passes the same NodeInfo for
        # the same node); saves building the inventory's cache key on every call.
        self._last_node: tuple = (None, None)
        # None: every share gets a fresh UUID, drawn only when a result is built (results.py),
        # not for each tentative pick of the search. A caller's generator (the dry run's
        # sequential IDs, tests) is called at every pick, so its sequence is what it always was.
        self.new_share_id = share_id
        # Counter availability per pool *name* (docs/spec/allocator.md#counters-by-pool-name), valid
        # for one version of the allocated state.
        self._counter_cache: dict = {}
        self._counter_cache_version = -1
        # Failed searches and explanations on nodes alike, for one version of the allocated
        # state (see _alike_key).
        self._failed_alike: dict = {}
        self._explained_alike: dict = {}
        self._alike_version = -1

    @classmethod
    def from_inventory(cls, inventory: Inventory, cel_engine, *, gates=None, compat: Compat | None = None,
                       variant: str | None = None, share_id: Callable[[], str] | None = None,
                       facts: FactCache | None = None, shortcuts: bool = True) -> "Allocator":
        return cls(gates if gates is not None else inventory.features, cel_engine=cel_engine, compat=compat,
                   variant=variant, inventory=inventory, share_id=share_id, facts=facts, shortcuts=shortcuts)

    # -- allocated state ------------------------------------------------------------------------
    def commit(self, claim: ResourceClaim | str, allocation) -> None:
        self.inventory.commit(claim, allocation)

    def release(self, claim: ResourceClaim | str) -> None:
        self.inventory.release(claim)

    # -- bounds ---------------------------------------------------------------------------------
    def could_match(self, class_name: str, selectors: Sequence) -> bool:
        """False only when no device of the inventory, on any node, passes the class's and the
        request's selectors (dractl's own shortcut: a subrequest that can never be allocated
        anywhere caps the best DRA score a node can get). True when unsure (CEL errors)."""
        cls = self.inventory.device_class(class_name)
        if cls is None:
            return False
        expressions = tuple(sel.cel_expression for sel in cls.selectors) + \
            tuple(sel.cel_expression for sel in selectors)
        cache = self.inventory.match_anywhere
        known = cache.get(expressions)
        if known is None:
            known = cache[expressions] = self._any_device_matches(expressions)
        return known

    def _any_device_matches(self, expressions: tuple) -> bool:
        if any(e is None for e in expressions):
            return True  # an unsupported selector: the allocator reports it
        matches = self.engine.matches
        for sl in self.inventory.slices:
            for dev in sl.devices:
                try:
                    if all(matches(e, dev) for e in expressions):
                        return True
                except Exception:  # noqa: BLE001 - a CEL error surfaces in the real attempt
                    return True
        return False

    # -- allocation -----------------------------------------------------------------------------
    def allocate(self, node, claims: Sequence[ResourceClaim], *, timeout: float | None = None,
                 deadline: float | None = None, explain: bool = False,
                 extra_constraints: Callable | None = None) -> AllocationOutcome:
        """Allocate `claims` (not yet allocated, in pod order) jointly on `node`.

        node: a Node manifest dict, a NodeInfo, or a node name.
        timeout: seconds for this call (or `deadline`, a time.monotonic() value); when it passes the
            outcome is an error naming the claim and request being searched.
        explain: on failure, attach an Explanation (costs a second, diagnostic search).
        extra_constraints: `(claim) -> list of constraints.Constraint` (fresh objects per call),
            checked with the claim's own constraints; the hook of dractl's podgroup-constraints
            extension (dractl/simulate/groupconstraints.py). Not part of upstream's allocator.
        """
        node_info = node if type(node) is NodeInfo else NodeInfo.from_any(node)
        claims = tuple(claims)
        if deadline is None and timeout is not None:
            deadline = time.monotonic() + timeout
        last_info, node_pools = self._last_node
        if last_info is not node_info or not self.shortcuts:
            try:
                node_pools = self.inventory.pools_for(node_info, self.variant)
            except GatherError as exc:
                return AllocationOutcome(ERROR, claims, error=f"gather pool information: {exc}")
            self._last_node = (node_info, node_pools)
        alike = self._alike_key(node_pools, claims, extra_constraints) \
            if not explain and node_pools.node_independent and self.shortcuts else None
        if alike is not None:
            known = self._failed_alike.get(alike[0])
            if known is not None:
                return known[1]
        search = self._search(node_info, node_pools, claims, deadline, None)
        search.extra_constraints = extra_constraints
        try:
            found = search.run()
            if found:
                results = build_results(search, node_info.name, self.features.device_binding_and_status,
                                        self.variant)
                return AllocationOutcome(ALLOCATED, claims, results, steps=search.steps)
        except AllocationError as exc:
            return AllocationOutcome(ERROR, claims, error=exc.message, timed_out=exc.timed_out,
                                     error_cause=exc.cause, steps=search.steps)
        explanation = None
        if explain:
            explanation = self._explain(node_info, node_pools, claims, deadline, extra_constraints)
        if node_pools.has_invalid:
            outcome = AllocationOutcome(ERROR, claims, error=INVALID_POOLS_MESSAGE, node_failure=True,
                                        explanation=explanation, steps=search.steps)
        else:
            outcome = AllocationOutcome(UNSATISFIABLE, claims, explanation=explanation, steps=search.steps)
        if alike is not None:
            self._failed_alike[alike[0]] = (alike[1], outcome)
        return outcome

    def explain(self, node, claims: Sequence[ResourceClaim], *, timeout: float | None = None,
                extra_constraints: Callable | None = None) -> Explanation:
        """Per request of each claim: which devices of `node` are usable and why the others are not.
        extra_constraints: as for `allocate`."""
        node_info = NodeInfo.from_any(node)
        node_pools = self.inventory.pools_for(node_info, self.variant)
        deadline = time.monotonic() + timeout if timeout is not None else None
        claims = tuple(claims)
        alike = self._alike_key(node_pools, claims, extra_constraints)
        if alike is not None:
            known = self._explained_alike.get(alike[0])
            if known is not None:
                return replace(known[1], node=node_info.name)
        explanation = self._explain(node_info, node_pools, claims, deadline, extra_constraints)
        if alike is not None and not explanation.partial:
            self._explained_alike[alike[0]] = (alike[1], explanation)
        return explanation

    def _alike_key(self, node_pools, claims: tuple, extra_constraints) -> tuple | None:
        """(key, the objects it names) under which a failed search, or its explanation, on another
        node with the same pools holds for this node too (dractl's own shortcut): the pools are
        shared by nodes that gathering cannot tell apart and the search reads nothing else of
        the node, for the same claim objects and allocated state. Group constraints may read
        the node, so a pod under them is searched anew. The key holds object ids; the entries
        keep those objects alive, so an id cannot be reused while its entry exists."""
        if not (self.shortcuts and node_pools.node_independent) or extra_constraints is not None:
            return None
        version = self.inventory.state.version
        if version != self._alike_version:
            self._failed_alike, self._explained_alike = {}, {}
            self._alike_version = version
        return (id(node_pools.candidates), tuple(map(id, claims))), (node_pools.candidates, claims)

    def _explain(self, node_info, node_pools, claims, deadline, extra_constraints=None) -> Explanation:
        def make_search(recorder):
            search = self._search(node_info, node_pools, claims, deadline, recorder)
            search.extra_constraints = extra_constraints
            return search
        return _explain.explain(make_search, node_info.name)

    def _search(self, node_info, node_pools, claims, deadline, recorder) -> Search:
        version = self.inventory.state.version
        if version != self._counter_cache_version:
            self._counter_cache = {}
            self._counter_cache_version = version
        return Search(features=self.features, compat=self.compat, variant=self.variant, node=node_info,
                      node_pools=node_pools, inventory=self.inventory, claims=list(claims), engine=self.engine,
                      counter_cache=self._counter_cache, new_share_id=self.new_share_id, facts=self.facts,
                      fact_table=self._fact_table, shortcuts=self.shortcuts, deadline=deadline,
                      recorder=recorder)
