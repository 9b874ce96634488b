"""One allocation attempt for one node: pre-pass, depth-first search with backtracking, and the
per-device checks, in the exact order of the reference allocator (allocator-semantics §3, §4, §10).

A `Search` lives for one `Allocator.allocate` call. Everything it changes is either local to the
call or a cache derived from immutable inputs.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from typing import Callable

from dractl.api.resource import (ALLOCATION_MODE_ALL, ALLOCATION_MODE_EXACT_COUNT, ALLOCATION_RESULTS_MAX_SIZE,
                                 DeviceClass, DeviceRequest, ResourceClaim)
from dractl.allocator import reasons as R
from dractl.allocator.capacity import capacity_fits, consumed_capacity
from dractl.allocator.celglue import selector_error
from dractl.allocator.constraints import Constraint, DistinctAttributeConstraint, MatchAttributeConstraint
from dractl.allocator.errors import AllocationError, MaxSizeExceeded, SearchTimeout
from dractl.allocator.features import STABLE, AllocatorFeatures, Compat
from dractl.allocator.nodes import NodeInfo, NodeSelectorError, node_matches
from dractl.allocator.pools import Candidate, NodePools, Pool
from dractl.allocator.state import AllocatedState
from dractl.allocator.taints import untolerated_taint

MAX_DEVICES = ALLOCATION_RESULTS_MAX_SIZE


class RequestData:
    """A request, or one subrequest of a firstAvailable request, ready for the search."""

    __slots__ = ("c", "j", "s", "name", "base", "sub", "result_name", "request", "cls", "class_selectors",
                 "selectors", "mode", "need", "all_devices", "admin", "tolerations", "cap_requests",
                 "cel_cache")

    def __init__(self, c: int, j: int, s: int | None, parent: DeviceRequest, request, cls: DeviceClass | None):
        self.c, self.j, self.s = c, j, s
        self.request = request
        self.name = request.name if s is not None else parent.name
        self.base = parent.name
        self.sub = request.name if s is not None else None
        self.result_name = f"{parent.name}/{request.name}" if s is not None else parent.name
        self.cls = cls
        self.class_selectors: tuple = ()
        self.selectors = tuple(sel.cel_expression for sel in request.selectors)
        self.mode = request.allocation_mode
        self.need = 0
        self.all_devices: list[Candidate] | None = None
        self.admin = request.admin_access is True
        self.tolerations = request.tolerations
        self.cap_requests = request.capacity.requests if request.capacity is not None else None
        # Device -> result of all class and request selectors; shared by every request with the same
        # selectors, across calls (results are pure; errors are never cached and recur).
        self.cel_cache: dict = {}

    @property
    def label(self) -> str:
        return self.result_name


class InternalResult:
    __slots__ = ("rd", "cand", "share_id", "consumed")

    def __init__(self, rd: RequestData, cand: Candidate, share_id, consumed):
        self.rd, self.cand, self.share_id, self.consumed = rd, cand, share_id, consumed


class Search:
    def __init__(self, *, features: AllocatorFeatures, compat: Compat, variant: str, node: NodeInfo,
                 node_pools: NodePools, state: AllocatedState, classes: Callable[[str], DeviceClass | None],
                 claims: list[ResourceClaim], engine, counter_cache: dict, new_share_id: Callable[[], str],
                 selector_caches: dict | None = None, deadline: float | None = None, recorder=None):
        self.f = features
        self.compat = compat
        self.variant = variant
        self.node = node
        self.np = node_pools
        self.cands = node_pools.candidates
        self.state = state
        self.get_class = classes
        self.claims = claims
        self.engine = engine
        self.counter_cache = counter_cache        # pool name -> availability (shared across calls)
        self.selector_caches = selector_caches if selector_caches is not None else {}
        self.new_share_id = new_share_id
        self.deadline = deadline
        self.rec = recorder
        self.steps = 0
        self.claim_reqs: list[list] = []          # per claim: RequestData or tuple of RequestData
        self.constraints: list[list[Constraint]] = []
        self.results: list[list[InternalResult]] = [[] for _ in claims]
        self.chosen: dict[tuple[int, int], int] = {}
        self.allocating: dict[tuple, set] = {}
        self.inflight: dict[tuple, dict[str, Fraction]] = {}
        self.consumed_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self._where = (0, None)                   # (claim index, RequestData) for timeout messages

    # -- public entry ---------------------------------------------------------------------------
    def run(self) -> bool:
        """True = solution in self.results; False = unsatisfiable. Raises AllocationError."""
        try:
            self.prepare()
            try:
                return self.one(0, 0, 0, 0, False, 0)
            except MaxSizeExceeded:
                raise AllocationError("allocation max size exceeded") from None
        except SearchTimeout:
            c, rd = self._where
            where = f"claim {self.claims[c].ref}" if c < len(self.claims) else "claims"
            if rd is not None:
                where += f", request {rd.result_name}"
            raise AllocationError(f"filter operation aborted: timed out while allocating {where}",
                                  timed_out=True) from None

    def _check_deadline(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchTimeout()

    # -- pre-pass (§4.2) ------------------------------------------------------------------------
    def prepare(self) -> None:
        f = self.f
        for c, claim in enumerate(self.claims):
            self._where = (c, None)
            ref = claim.ref
            entries: list = []
            lower_bound = 0
            for j, req in enumerate(claim.requests):
                has_sub = len(req.first_available) > 0
                if has_sub and not f.prioritized_list:
                    raise AllocationError(f"claim {ref}, request {req.name}: has subrequests, "
                                          "but the DRAPrioritizedList feature is disabled")
                if not f.consumable_capacity:
                    if req.exactly is not None and req.exactly.capacity is not None:
                        raise AllocationError(f"claim {ref}, request {req.name}: has capacity requests, "
                                              "but the DRAConsumableCapacity feature is disabled")
                    for sub in req.first_available:
                        if sub.capacity is not None:
                            raise AllocationError(f"claim {ref}, subrequest {sub.name}: has capacity requests, "
                                                  "but the DRAConsumableCapacity feature is disabled")
                if has_sub:
                    subs = tuple(self._validate(c, j, s, req, sub) for s, sub in enumerate(req.first_available))
                    entries.append(subs)
                    lower_bound += min(rd.need for rd in subs)
                elif req.exactly is not None:
                    rd = self._validate(c, j, None, req, req.exactly)
                    entries.append(rd)
                    lower_bound += rd.need
                else:
                    raise AllocationError(f"resource claim {ref}, request {req.name}: unknown request type")
            if lower_bound > MAX_DEVICES:
                raise AllocationError(f"claim {ref}: number of requested devices {lower_bound} "
                                      f"exceeds the claim limit of {MAX_DEVICES}")
            constraints: list[Constraint] = []
            for i, con in enumerate(claim.constraints):
                if con.match_attribute is not None:
                    constraints.append(MatchAttributeConstraint(con.requests, con.match_attribute,
                                                                f.list_type_attributes))
                elif con.distinct_attribute is not None and self.variant != STABLE:
                    constraints.append(DistinctAttributeConstraint(con.requests, con.distinct_attribute,
                                                                   f.list_type_attributes,
                                                                   self.compat.distinct_all_devices))
                else:
                    raise AllocationError(f"claim {ref}, constraint #{i}: empty constraint "
                                          "(unsupported constraint type?)")
            self.claim_reqs.append(entries)
            self.constraints.append(constraints)
        # One recursion level per device, request and claim (plus a margin for the caller).
        depth = sum(2 + 2 * len(c.requests) + MAX_DEVICES for c in self.claims) + 400
        if sys.getrecursionlimit() < depth:
            sys.setrecursionlimit(depth)

    def _validate(self, c: int, j: int, s: int | None, parent: DeviceRequest, request) -> RequestData:
        ref = self.claims[c].ref
        name = request.name if s is not None else parent.name
        for i, sel in enumerate(request.selectors):
            if sel.cel_expression is None:
                raise AllocationError(f"claim {ref}, request {name}, selector #{i}: "
                                      "CEL expression empty (unsupported selector type?)")
        if not self.f.admin_access and request.admin_access is not None:
            raise AllocationError(f"claim {ref}, request {name}: admin access is requested, but the feature is disabled")
        if not request.device_class_name:
            raise AllocationError(f"claim {ref}, request {name}: missing device class name "
                                  "(unsupported request type?)")
        cls = self.get_class(request.device_class_name)
        if cls is None:
            raise AllocationError(f"claim {ref}, request {name}: could not retrieve device class "
                                  f"{request.device_class_name}: deviceclass.resource.k8s.io "
                                  f"\"{request.device_class_name}\" not found")
        rd = RequestData(c, j, s, parent, request, cls)
        rd.class_selectors = tuple(sel.cel_expression for sel in cls.selectors)
        key = (rd.class_selectors, rd.selectors)
        cache = self.selector_caches.get(key)
        if cache is None:
            cache = self.selector_caches[key] = {}
        rd.cel_cache = cache
        if rd.mode == ALLOCATION_MODE_EXACT_COUNT:
            rd.need = request.count
        elif rd.mode == ALLOCATION_MODE_ALL:
            self._where = (c, rd)
            rd.all_devices = self._all_devices(rd)
            rd.need = len(rd.all_devices)
        else:
            raise AllocationError(f"claim {ref}, request {name}: unsupported count mode {rd.mode}")
        return rd

    def _all_devices(self, rd: RequestData) -> list[Candidate]:
        ref = self.claims[rd.c].ref
        for pool in self.np.pools:
            if pool.incomplete:
                raise AllocationError(f"claim {ref}, request {rd.name}: asks for all devices, "
                                      f"but resource pool {pool.id_str} is currently being updated")
            if pool.invalid:
                raise AllocationError(f"claim {ref}, request {rd.name}: asks for all devices, "
                                      f"but resource pool {pool.id_str} is currently invalid")
        out = []
        cc = self.f.consumable_capacity
        for cand in self.cands:
            self._check_deadline()
            if not self.selectable(rd, cand):
                continue
            if cc and not capacity_fits(rd.cap_requests, cand.device, self.state.committed_capacity(cand.id), None):
                continue
            out.append(cand)
        return out

    # -- selection (§3.2) -------------------------------------------------------------------------
    def selectable(self, rd: RequestData, cand: Candidate) -> bool:
        dev = cand.device
        if dev.binding_conditions and not self.f.device_binding_and_status:
            return False
        cache = rd.cel_cache
        ok = cache.get(dev)
        if ok is None:
            ok = (self._selectors_match(rd.class_selectors, dev, f"class {rd.cls.name}")
                  and self._selectors_match(rd.selectors, dev, f"claim {self.claims[rd.c].ref}"))
            cache[dev] = ok
        if ok and cand.per_device_node_selection:
            on_node = self.np.device_on_node
            ok = on_node.get(dev)
            if ok is None:
                ok = on_node[dev] = self._device_on_node(dev)
        return ok

    def _nothing_to_evaluate(self, c: int, rd: RequestData, start: int) -> bool:
        """True when scanning candidates[start:] for `rd` could have no effect besides failing:
        every device there is either skipped as in use before any check, or has its selectors and
        node match cached (so no CEL or node-selector error can surface), and none of them can
        leave state behind (counter consumption, in-flight shares). Pruning such a scan when too
        few devices remain never changes the outcome, it only avoids exponential backtracking."""
        if self.np.first_stateful[start] < len(self.cands):
            return False
        allocated = self.state.is_allocated
        allocating = self.allocating
        cache = rd.cel_cache
        on_node = self.np.device_on_node
        binding = self.f.device_binding_and_status
        for cand in self.cands[start:]:
            did = cand.id
            users = allocating.get(did)
            if rd.admin:
                if users and c in users:
                    continue
            elif users or allocated(did):
                continue
            dev = cand.device
            if dev.binding_conditions and not binding:
                continue
            ok = cache.get(dev)
            if ok is None:
                return False
            if ok and cand.per_device_node_selection and dev not in on_node:
                return False
        return True

    def _selectors_match(self, expressions, dev, owner: str) -> bool:
        if not expressions:
            return True
        matches = self.engine.matches
        for i, expr in enumerate(expressions):
            if expr is None:
                raise AllocationError(f"{owner}: selector #{i}: CEL expression empty (unsupported selector type?)")
            try:
                ok = matches(expr, dev)
            except Exception as exc:
                err = selector_error(exc, owner, i, dev)
                if err is None:
                    raise
                raise err from None
            if not ok:
                return False
        return True

    def _device_on_node(self, dev) -> bool:
        try:
            return node_matches(self.node, dev.node_name, dev.all_nodes, dev.node_selector)
        except NodeSelectorError as exc:
            raise AllocationError(str(exc)) from None

    # -- the search (§10.3) -----------------------------------------------------------------------
    def one(self, c: int, j: int, s: int, k: int, in_sub: bool, start: int) -> bool:
        self.steps += 1
        if self.deadline is not None and not (self.steps & 31):
            self._check_deadline()
        if c == len(self.claim_reqs):
            return True
        reqs = self.claim_reqs[c]
        if j == len(reqs):
            try:
                return self.one(c + 1, 0, 0, 0, False, 0)
            except MaxSizeExceeded:
                return False
        entry = reqs[j]
        if not in_sub and type(entry) is tuple:
            all_exceeded = True
            for s2 in range(len(entry)):
                try:
                    ok = self.one(c, j, s2, 0, True, 0)
                except MaxSizeExceeded:
                    continue
                all_exceeded = False
                if ok:
                    self.chosen[(c, j)] = s2
                    return True
            if all_exceeded:
                raise MaxSizeExceeded()
            return False
        rd = entry[s] if in_sub else entry
        self._where = (c, rd)
        all_mode = rd.all_devices is not None
        if all_mode and not rd.all_devices:
            return False
        if k >= rd.need:
            return self.one(c, j + 1, 0, 0, False, 0)
        if len(self.results[c]) + rd.need - k > MAX_DEVICES:
            raise MaxSizeExceeded()
        rec = self.rec
        if all_mode:
            cand = rd.all_devices[k]
            undo = self.allocate_device(c, rd, cand, True)
            if type(undo) is str:
                if rec is not None:
                    rec(rd, cand, undo)
                return False
            if rec is not None:
                rec(rd, cand, None)
            try:
                done = self.one(c, j, s, k + 1, in_sub, 0)
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done

        cands = self.cands
        n = len(cands)
        if n - start < rd.need - k and self._nothing_to_evaluate(c, rd, start):
            return False
        allocated = self.state.is_allocated
        allocating = self.allocating
        cc = self.f.consumable_capacity
        admin = rd.admin
        i = start
        while i < n:
            cand = cands[i]
            i += 1
            did = cand.id
            if admin:
                users = allocating.get(did)
                if users and c in users:
                    if rec is not None:
                        rec(rd, cand, R.ALLOCATING)
                    continue
            else:
                if allocated(did):
                    if rec is not None:
                        rec(rd, cand, R.IN_USE)
                    continue
                if allocating.get(did):
                    if rec is not None:
                        rec(rd, cand, R.ALLOCATING)
                    continue
            if not self.selectable(rd, cand):
                if rec is not None:
                    rec(rd, cand, R.NOT_SELECTABLE)
                continue
            if cc and not capacity_fits(rd.cap_requests, cand.device, self.state.committed_capacity(did),
                                        self.inflight.get(did)):
                if rec is not None:
                    rec(rd, cand, R.CAPACITY)
                continue
            undo = self.allocate_device(c, rd, cand, False)
            if type(undo) is str:
                if rec is not None:
                    rec(rd, cand, undo)
                continue
            if rec is not None:
                rec(rd, cand, None)
            try:
                done = self.one(c, j, s, k + 1, in_sub, i)
            except BaseException:
                undo()
                raise
            if done:
                return True
            undo()
        return False

    # -- allocate_device (§10.5) ------------------------------------------------------------------
    def allocate_device(self, c: int, rd: RequestData, cand: Candidate, must: bool):
        """Tentatively allocate; returns an undo callable, or a reason code (str) on rejection."""
        f = self.f
        dev = cand.device
        did = cand.id
        multi = f.consumable_capacity and dev.allow_multiple_allocations
        if rd.admin:
            if not multi:
                users = self.allocating.get(did)
                if users and c in users:
                    return R.ALLOCATING
        else:
            if self.state.is_allocated(did):
                return R.IN_USE
            if self.allocating.get(did):
                return R.ALLOCATING
        consumes = bool(dev.consumes_counters)
        if consumes and not f.partitionable_devices:
            return R.COUNTERS_DISABLED
        took_counters = False
        if consumes:
            if not (multi and (self.state.committed_capacity(did) is not None or did in self.inflight)):
                if not self._take_counters(cand):
                    return R.COUNTERS
                took_counters = True
        release = self.compat.release_reserved_state
        if f.device_taints and dev.taints and untolerated_taint(dev.taints, rd.tolerations) is not None:
            if release and took_counters:
                self._release_counters(cand)
            return R.TAINTED
        base, sub = rd.base, rd.sub
        constraints = self.constraints[c]
        for i, con in enumerate(constraints):
            if not con.add(base, sub, dev):
                if must:
                    raise AllocationError(f"claim {self.claims[c].ref}, request {rd.name}: cannot add device "
                                          f"{dev.id_str} because a claim constraint would not be satisfied")
                for e in range(i):
                    constraints[e].remove(base, sub, dev)
                if release and took_counters:
                    self._release_counters(cand)
                return R.CONSTRAINT
        if not multi:
            users = self.allocating.get(did)
            if users is None:
                users = self.allocating[did] = set()
            users.add(c)
        share_id = None
        consumed = None
        if f.consumable_capacity:
            if not capacity_fits(rd.cap_requests, dev, self.state.committed_capacity(did), self.inflight.get(did)):
                # Snapshot: constraints and counters stay reserved on this path (fixed upstream later).
                if release:
                    for con in constraints:
                        con.remove(base, sub, dev)
                    if took_counters:
                        self._release_counters(cand)
                    if not multi:
                        self.allocating[did].discard(c)
                return R.CAPACITY
            if multi:
                amounts = consumed_capacity(rd.cap_requests, dev)
                share_id = self.new_share_id()
                entry = self.inflight.setdefault(did, {})
                for name, q in amounts.items():
                    entry[name] = entry.get(name, 0) + q.value
                consumed = amounts or None
        results = self.results[c]
        results.append(InternalResult(rd, cand, share_id, consumed))
        n_before = len(results) - 1

        def undo() -> None:
            for con in constraints:
                con.remove(base, sub, dev)
            users = self.allocating.get(did)
            if users is not None:
                users.discard(c)
            if multi:
                if consumed:
                    entry = self.inflight.get(did)
                    if entry is not None:
                        for name, q in consumed.items():
                            if name in entry:
                                entry[name] -= q.value
                        if all(v == 0 for v in entry.values()):
                            del self.inflight[did]
                if release and took_counters:
                    self._release_counters(cand)
            elif took_counters:
                self._release_counters(cand)
            del results[n_before:]

        return undo

    # -- counters (§6) ----------------------------------------------------------------------------
    def _availability(self, pool: Pool) -> dict:
        avail = self.counter_cache.get(pool.name)
        if avail is None:
            avail = {name: {cn: q.value for cn, q in cs.counters.items()} for name, cs in pool.counter_sets.items()}
            counts = self.state.counts_for_counters
            for dev in pool.counter_consumers():
                if not counts(dev.id):
                    continue
                for cc in dev.consumes_counters:
                    s = avail.get(cc.counter_set)
                    if s is None:
                        continue
                    for cn, q in cc.counters.items():
                        if cn in s:
                            s[cn] -= q.value
            self.counter_cache[pool.name] = avail
        return avail

    def _take_counters(self, cand: Candidate) -> bool:
        pool = cand.pool
        avail = self._availability(pool)
        consumed = self.consumed_counters.setdefault(pool.name, {})
        for cc in cand.device.consumes_counters:
            s = consumed.setdefault(cc.counter_set, {})
            for cn, q in cc.counters.items():
                s[cn] = s.get(cn, 0) + q.value
        # Every counter of the pool is checked, not only the device's: an over-committed counter
        # (negative availability) blocks all counter-consuming devices of the pool.
        for set_name, counters in avail.items():
            used = consumed.get(set_name) or {}
            for cn, available in counters.items():
                if available < used.get(cn, 0):
                    self._release_counters(cand)
                    return False
        return True

    def _release_counters(self, cand: Candidate) -> None:
        consumed = self.consumed_counters.get(cand.pool.name, {})
        for cc in cand.device.consumes_counters:
            s = consumed.get(cc.counter_set)
            if s is None:
                continue
            for cn, q in cc.counters.items():
                if cn in s:
                    s[cn] -= q.value
