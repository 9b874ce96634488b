"""One allocation attempt for one node: depth-first search with backtracking over the devices of
the node, applying the device checks of `checks.DEVICE_CHECKS` in their order
(docs/spec/allocator.md#device-matching, #search). The pre-pass is in `prepass.py`, counter
bookkeeping in `counters.py`.

A `Search` lives for one `Allocator.allocate` call. Everything it changes is either local to the
call or a cache derived from immutable inputs. With `shortcuts=False` it uses none of those caches:
the straightforward path the differential tests compare the fast one with. Pruning of hopeless
scans (`_nothing_to_evaluate`) is part of the search itself, decided from the inputs alone; the
tests compare it with `Search.prune = False` too.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Callable

from dractl.allocator import reasons as R
from dractl.allocator.capacity import capacity_fits, consumed_capacity
from dractl.allocator.checks import (
    UNSELECTABLE,
    FactCache,
    fact_verdict,
    fact_verdict_in_order,
    on_node,
)
from dractl.allocator.compatgroups import GroupBook
from dractl.allocator.constraints import Constraint
from dractl.allocator.counters import CounterBook
from dractl.allocator.derived import derived_values
from dractl.allocator.errors import AllocationError, MaxSizeExceeded, SearchHopeless, SearchTimeout
from dractl.allocator.features import AllocatorFeatures, Compat
from dractl.allocator.hopeless import (
    ALONE_AFTER_STEPS,
    all_set_doomed,
    claim_alone_unsatisfiable,
    search_doomed,
)
from dractl.allocator.inventory import Inventory
from dractl.allocator.nodes import NodeInfo
from dractl.allocator.pools import Candidate, NodePools
from dractl.allocator.prepass import MAX_DEVICES, RequestData, RequestIndex, go_int, prepare
from dractl.allocator.results import FRESH_SHARE_ID
from dractl.api.resource import ResourceClaim

__all__ = ["RequestData", "RequestIndex", "Search", "MAX_DEVICES"]


# A picked device of a claim, in `Search.results[claim]`: a plain tuple (one is made per tentative
# pick, and a tuple costs no call), read by results.py at these positions.
RESULT_RD, RESULT_CAND, RESULT_SHARE_ID, RESULT_CONSUMED = range(4)


class Search:
    prune = True    # class-wide switch for the differential tests; see _nothing_to_evaluate
    # (claim) -> extra Constraint objects for it, or None: dractl's podgroup-constraints hook
    extra_constraints = None

    def __init__(self, *, features: AllocatorFeatures, compat: Compat, variant: str, node: NodeInfo,
                 node_pools: NodePools, inventory: Inventory, claims: list[ResourceClaim], engine,
                 counter_cache: dict, new_share_id: Callable[[], str] | None, facts: FactCache | None = None,
                 fact_table: dict | None = None, shortcuts: bool = True, deadline: float | None = None,
                 recorder=None):
        self.f = features
        self.compat = compat
        self.variant = variant
        self.node = node
        self.np = node_pools
        self.cands = node_pools.candidates
        self.inventory = inventory
        self.state = inventory.state
        self.claims = claims
        self.engine = engine
        self.shortcuts = shortcuts
        self.facts = facts if facts is not None else FactCache()
        # request shape -> {Device: fact verdict}, for this engine and these features.
        self.fact_table = fact_table if fact_table is not None else self.facts.table((engine, features))
        # Counter bookkeeping only where some device of the node consumes counters.
        self.counters = CounterBook(self.state, counter_cache if shortcuts else {}) \
            if node_pools.has_counter_consumers else None
        # Compatibility groups (1.37) only where some device of the node's pools declares them.
        self.groups = GroupBook(self.state) \
            if features.compatibility_groups and node_pools.has_compatibility_groups else None
        self.in_use = self.state.in_use            # live view: device ID -> allocated exclusively
        # 1.38 (#140798): a live committed share also keeps a device that no longer allows
        # multiple allocations from being allocated exclusively. None = not checked.
        self.shared = self.state.shared_ids() \
            if compat.shared_device_not_exclusive and features.consumable_capacity else None
        self.qualified_names = compat.qualified_capacity_names   # 1.38 (#142202)
        self.new_share_id = new_share_id     # None: IDs drawn when results are built (FRESH_SHARE_ID)
        self.deadline = deadline
        self.rec = recorder
        self.steps = 0
        self.claim_reqs: list[list] = []          # per claim: RequestData or tuple of RequestData
        self.constraints: list[list[Constraint]] = []
        self.results: list[list[tuple]] = []      # per claim, filled by prepare: see RESULT_RD
        self.class_config: set[int] = set()       # filled by prepare: claims some class has config for
        self.all_requests = False                 # set by prepare: some request has allocationMode All
        self.chosen: dict[tuple[int, int], int] = {}      # (claim, request) -> chosen subrequest
        self.allocating: dict[tuple, set] = {}
        self.inflight: dict[tuple, dict[str, Fraction]] = {}
        self.where = (0, None)                    # (claim index, RequestData) for timeout messages
        self.derived_cache: dict = {}             # (derived definitions, Device) -> values (derived.py)
        self.doomed_all_sets: dict[RequestData, bool] = {}   # see hopeless.all_set_doomed
        self.consumed_cache: dict[tuple, dict] = {}   # (RequestData, Device) -> amounts, see _consumed
        self.alone_verdicts: dict[int, bool] = {}     # see hopeless.claim_alone_unsatisfiable

    # -- public entry ---------------------------------------------------------------------------
    def run(self) -> bool:
        """True = solution in self.results; False = unsatisfiable. Raises AllocationError."""
        try:
            prepare(self)
            if self.extra_constraints is not None:
                self._add_extra_constraints()
            try:
                # = self.search(), without its call (the common path is one short claim)
                if not self.claim_reqs:
                    return True
                if self.all_requests and search_doomed(self):
                    return False
                first = self.claim_reqs[0]
                if first and type(first[0]) is not tuple:
                    return self._devices(first[0], 0, 0)     # what _next(0, 0) does with it
                return self._next(0, 0)
            except MaxSizeExceeded:
                raise AllocationError("allocation max size exceeded") from None
            except SearchHopeless:
                return False
        except SearchTimeout:
            c, rd = self.where
            where = f"claim {self.claims[c].ref}" if c < len(self.claims) else "claims"
            if rd is not None:
                where += f", request {rd.result_name}"
            raise AllocationError(f"filter operation aborted: timed out while allocating {where}",
                                  timed_out=True) from None

    def _add_extra_constraints(self) -> None:
        for c, claim in enumerate(self.claims):
            more = self.extra_constraints(claim)
            if more:
                self.constraints[c] = self.constraints[c] + list(more)

    def prepare(self) -> None:
        prepare(self)
        if self.extra_constraints is not None:
            self._add_extra_constraints()

    def search(self) -> bool:
        """The search proper, after `prepare`. May raise MaxSizeExceeded or SearchTimeout."""
        if not self.claim_reqs:
            return True
        if self.all_requests and search_doomed(self):
            return False
        try:
            return self._next(0, 0)
        except SearchHopeless:
            return False

    def check_deadline(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchTimeout()

    # -- fact checks, cached per request shape (checks.FactCache) -------------------------------
    def verdict(self, rd: RequestData, cand: Candidate) -> str:
        """checks.fact_verdict, computed once per (device, request shape) with shortcuts on."""
        dev = cand.device
        v = rd.verdicts.get(dev)
        if v is None:
            if self.shortcuts:
                v = fact_verdict(self, rd, cand)
                self.facts.store(rd.verdicts, dev, v)
            else:
                v = fact_verdict_in_order(self, rd, cand)
        return v

    def selectable(self, rd: RequestData, cand: Candidate) -> bool:
        """Passes every check before CAPACITY in checks.DEVICE_CHECKS except the state ones."""
        if self.verdict(rd, cand) in UNSELECTABLE:
            return False
        return not cand.per_device_node_selection or self._on_node(rd, cand)

    def _on_node(self, rd: RequestData, cand: Candidate) -> bool:
        if not self.shortcuts:
            return on_node(self, rd, cand)
        cache = self.np.device_on_node
        ok = cache.get(cand.device)
        if ok is None:
            ok = cache[cand.device] = on_node(self, rd, cand)
        return ok

    def capacity_alone(self, rd: RequestData, cand: Candidate) -> bool:
        return not self.f.consumable_capacity or capacity_fits(
            rd.cap_requests, cand.device, self.state.committed_capacity(cand.id), None,
            self.f.fractional_capacity_range, self.capacity_driver(cand))

    def capacity_driver(self, cand: Candidate) -> str | None:
        """The driver that qualifies the device's capacity names (1.38, #142202), or None where
        capacity names are compared literally."""
        return cand.id[0] if self.qualified_names else None

    def _nothing_to_evaluate(self, c: int, rd: RequestData, start: int) -> bool:
        """True when scanning candidates[start:] for `rd` could have no effect besides failing:
        no device there can leave state behind (counter consumption, in-flight shares), and every
        device not skipped as in use evaluates its fact checks and node match without an error
        (so the scan could not surface one). Pruning such a scan when too few devices remain
        never changes the outcome, it only avoids exponential backtracking.

        The decision depends only on the inputs, never on what a cache happens to hold, so that
        explanations (which record what the scans saw) are the same however warm the caches are."""
        if not self.prune or self.np.first_stateful[start] < len(self.cands):
            return False
        if rd.derived and self.constraints[c]:
            return False   # a picked device evaluates derived attributes, which may fail
        in_use = self.in_use
        allocating = self.allocating
        for cand in self.cands[start:]:
            did = cand.id
            users = allocating.get(did)
            if rd.admin:
                if users and c in users:
                    continue
            elif users or did in in_use:
                continue
            try:
                self.selectable(rd, cand)
            except Exception:  # noqa: BLE001 - the scan must run and report it
                return False
        return True

    # -- the search (docs/spec/allocator.md#search-pseudocode)
    # -----------------------------------------------------------------------
    def _next(self, c: int, j: int) -> bool:
        """Allocate request `j` of claim `c` and everything after it."""
        reqs = self.claim_reqs[c]
        if j == len(reqs):
            if c + 1 == len(self.claim_reqs):
                return True
            if self.steps > ALONE_AFTER_STEPS and claim_alone_unsatisfiable(self, c + 1):
                raise SearchHopeless()
            try:
                return self._next(c + 1, 0)
            except MaxSizeExceeded:
                return False
        entry = reqs[j]
        if type(entry) is not tuple:
            return self._devices(entry, 0, 0)
        all_exceeded = True
        for rd in entry:
            try:
                ok = self._devices(rd, 0, 0)
            except MaxSizeExceeded:
                continue
            all_exceeded = False
            if ok:
                self.chosen[(c, j)] = rd.at.subrequest
                return True
        if all_exceeded:
            raise MaxSizeExceeded()
        return False

    def _devices(self, rd: RequestData, k: int, start: int) -> bool:
        """Pick device `k` of `rd` (the first `k` are picked), scanning candidates from `start`."""
        self.steps += 1
        if self.deadline is not None and not (self.steps & 31):
            self.check_deadline()
        c = rd.at.claim
        self.where = (c, rd)
        all_mode = rd.all_devices is not None
        if all_mode and not rd.all_devices:
            return False
        if k >= rd.need:
            return self._next(c, rd.at.request + 1)
        if rd.may_exceed and rd.need - k > MAX_DEVICES - len(self.results[c]) and self._over_claim_limit(c, rd, k):
            raise MaxSizeExceeded()
        if all_mode:
            return self._all_mode_device(rd, k)
        cands = self.cands
        n = len(cands)
        if n - start < rd.need - k and self._nothing_to_evaluate(c, rd, start):
            return False
        rec = self.rec
        in_use = self.in_use
        allocating = self.allocating
        verdicts = rd.verdicts
        finishes = rd.last and k + 1 == rd.need and self.shortcuts   # this pick completes the search
        # Without capacity requests or capacities the capacity check is trivially true.
        skip_capacity = not rd.cap_requests and self.shortcuts
        cc = self.f.consumable_capacity
        committed, inflight = self.state.capacity_in_use, self.inflight   # .get() without the calls
        fractional = self.f.fractional_capacity_range
        admin = rd.admin
        i = start
        while i < n:
            cand = cands[i]
            i += 1
            did = cand.id
            # IN_USE, ALLOCATING (admin access may share a device, only not within its claim)
            # (`in` and a subscript, not .get: no call per candidate)
            if admin:
                taken = R.ALLOCATING if did in allocating and c in allocating[did] else None
            else:
                taken = R.IN_USE if did in in_use else R.ALLOCATING if did in allocating and allocating[did] else None
            if taken is not None:
                if rec is not None:
                    rec(rd, cand, taken)
                continue
            # BINDING_CONDITIONS .. NODE_MISMATCH
            dev = cand.device
            verdict = verdicts[dev] if dev in verdicts else self.verdict(rd, cand)
            if verdict in UNSELECTABLE or (cand.per_device_node_selection and not self._on_node(rd, cand)):
                if rec is not None:
                    rec(rd, cand, R.NOT_SELECTABLE)
                continue
            # CAPACITY
            if cc and not (skip_capacity and not dev.capacities) and not capacity_fits(
                    rd.cap_requests, dev, committed[did] if did in committed else None, inflight[did]
                    if did in inflight else None, fractional, did[0] if self.qualified_names else None):
                if rec is not None:
                    rec(rd, cand, R.CAPACITY)
                continue
            # COUNTERS_DISABLED .. CONSTRAINT
            undo = self.allocate_device(c, rd, cand, False, verdict)
            if type(undo) is str:
                if rec is not None:
                    rec(rd, cand, undo)
                continue
            if rec is not None:
                rec(rd, cand, None)
            if finishes:
                self.steps += 1
                return True
            try:
                done = self._devices(rd, k + 1, i)
            except BaseException:
                undo()
                raise
            if done:
                return True
            undo()
        return False

    def _over_claim_limit(self, c: int, rd: RequestData, k: int) -> bool:
        """Whether the remaining devices of `rd` take claim `c` over the limit, as the release
        computes it (called only when they do in exact arithmetic). Before #141307 the total is a
        Go int: an alternative within 32 of the int range, behind devices the claim already has,
        wraps negative and is searched instead of pruned."""
        if self.compat.claim_limit_overflow_safe:
            return True
        return go_int(go_int(len(self.results[c]) + rd.need) - k) > MAX_DEVICES

    def _all_mode_device(self, rd: RequestData, k: int) -> bool:
        """allocationMode All: device `k` of the request's fixed set, or fail."""
        if k == 0 and all_set_doomed(self, rd):
            return False
        cand = rd.all_devices[k]
        rec = self.rec
        verdicts = rd.verdicts
        dev = cand.device
        undo = self.allocate_device(rd.at.claim, rd, cand, True,
                                    verdicts[dev] if dev in verdicts else self.verdict(rd, cand))
        if type(undo) is str:
            if rec is not None:
                rec(rd, cand, undo)
            return False
        if rec is not None:
            rec(rd, cand, None)
        try:
            done = self._devices(rd, k + 1, 0)
        except BaseException:
            undo()
            raise
        if not done:
            undo()
        return done

    # -- allocate_device (docs/spec/allocator.md#allocate-device)
    # ------------------------------------------------------------------
    def allocate_device(self, c: int, rd: RequestData, cand: Candidate, must: bool, verdict: str):
        """Tentatively allocate a selectable device whose fact verdict is `verdict`: the checks
        from COUNTERS_DISABLED on, in the order of checks.DEVICE_CHECKS. Returns an undo callable,
        or a reason code (str) on rejection."""
        f = self.f
        dev = cand.device
        did = cand.id
        multi = f.consumable_capacity and dev.allow_multiple_allocations
        allocating = self.allocating
        if rd.admin:
            if not multi and did in allocating and c in allocating[did]:
                return R.ALLOCATING
        else:
            if did in self.in_use:
                return R.IN_USE
            if did in allocating and allocating[did]:
                return R.ALLOCATING
            if not multi and self.shared is not None and did in self.shared:
                return R.IN_USE
        if verdict == R.COUNTERS_DISABLED:
            return R.COUNTERS_DISABLED
        took_counters = False
        groups = None
        if dev.consumes_counters:
            if not (multi and (self.state.committed_capacity(did) is not None or did in self.inflight)):
                if not self.counters.take(cand):
                    return R.COUNTERS
                took_counters = True
            if self.groups is not None:
                groups = self.groups.take(cand)
                if groups is None:
                    if took_counters:
                        self.counters.release(cand)
                    return R.COMPATIBILITY_GROUPS
        release = self.compat.release_reserved_state
        if verdict == R.TAINTED:
            # Snapshot: the counters stay taken for the rest of the call (fixed upstream later).
            # Group state is always restored: it only exists in releases that have the fix.
            if groups is not None:
                self.groups.restore(groups)
            if release and took_counters:
                self.counters.release(cand)
            return R.TAINTED
        if verdict:  # pragma: no cover - only selectable devices get here
            raise AssertionError(f"fact verdict {verdict!r} reached allocate_device")
        undo = self._reserve(c, rd, cand, must, multi, took_counters)
        if groups is None:
            return undo
        if type(undo) is str:
            self.groups.restore(groups)
            return undo
        restore = self.groups.restore

        def undo_with_groups() -> None:
            undo()
            restore(groups)

        return undo_with_groups

    def _consumed(self, rd: RequestData, cand: Candidate) -> dict:
        """consumed_capacity for `rd` on the device: a function of the request and the device only,
        computed once per call for each pair (an exhaustive search picks the same shared device
        for the same request again and again). The dicts are never changed."""
        key = (rd, cand.device)
        cache = self.consumed_cache
        if key in cache:
            return cache[key]
        amounts = consumed_capacity(rd.cap_requests, cand.device, self.f.fractional_capacity_range,
                                    self.capacity_driver(cand))
        if self.shortcuts:
            cache[key] = amounts
        return amounts

    def _reserve(self, c: int, rd: RequestData, cand: Candidate, must: bool, multi: bool, took_counters: bool):
        """CONSTRAINT, the capacity re-check, then the device is picked; returns its undo."""
        dev = cand.device
        did = cand.id
        release = self.compat.release_reserved_state
        base, sub = rd.base, rd.sub
        constraints = self.constraints[c]
        # Derived attributes are evaluated only when a constraint may read them (dractl's lazy
        # choice, derived.py); an evaluation error aborts the allocation.
        derived = derived_values(self, rd, dev) if rd.derived and constraints else None
        for i, con in enumerate(constraints) if constraints else ():
            if not con.add(base, sub, dev, derived):
                if must:
                    raise AllocationError(f"claim {self.claims[c].ref}, request {rd.name}: cannot add device "
                                          f"{dev.id_str} because a claim constraint would not be satisfied")
                for e in range(i):
                    constraints[e].remove(base, sub, dev)
                if release and took_counters:
                    self.counters.release(cand)
                return R.CONSTRAINT
        allocating, inflight = self.allocating, self.inflight
        if not multi:
            if did in allocating:
                allocating[did].add(c)
            else:
                allocating[did] = {c}
        share_id = consumed = None
        # The re-check matters in "must" mode (All): a device picked by the scan of _devices passed
        # the same check a moment ago, against the same state (nothing since changes capacity).
        if self.f.consumable_capacity and (must or not self.shortcuts) and \
                (rd.cap_requests or dev.capacities or not self.shortcuts):
            committed = self.state.capacity_in_use
            if not capacity_fits(rd.cap_requests, dev, committed[did] if did in committed else None,
                                 inflight[did] if did in inflight else None, self.f.fractional_capacity_range,
                                 did[0] if self.qualified_names else None):
                # Snapshot: constraints and counters stay reserved on this path (fixed upstream later).
                if release:
                    for con in constraints:
                        con.remove(base, sub, dev)
                    if took_counters:
                        self.counters.release(cand)
                    if not multi:
                        allocating[did].discard(c)
                return R.CAPACITY
        if multi:
            amounts = self._consumed(rd, cand)
            share_id = FRESH_SHARE_ID if self.new_share_id is None else self.new_share_id()
            entry = inflight.setdefault(did, {})
            for name, q in amounts.items():
                entry[name] = entry.get(name, 0) + q.value
            consumed = amounts or None
        results = self.results[c]
        n_before = len(results)
        results.append((rd, cand, share_id, consumed))
        counters = self.counters if took_counters and (release or not multi) else None

        def undo() -> None:
            for con in constraints:
                con.remove(base, sub, dev)
            if did in allocating:
                allocating[did].discard(c)
            if consumed and did in inflight:
                entry = inflight[did]
                for name, q in consumed.items():
                    if name in entry:
                        entry[name] -= q.value
                if not any(entry.values()):      # every amount back to zero
                    del inflight[did]
            if counters is not None:
                counters.release(cand)
            del results[n_before:]

        return undo
