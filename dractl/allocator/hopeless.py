"""Searches that cannot succeed, recognised before they are walked (dractl's own pruning; upstream
walks them to the end). Every decision here depends only on the inputs of the call, never on what
the search has taken so far or on what a cache happens to hold, and is made only where walking
the search could end in nothing but "unsatisfiable": no hard error, no state left behind, no
share ID drawn from the caller's generator. The outcome is then the same, only the work
(`steps`) differs. With a recorder (explanations record what the scans saw) nothing is pruned.

The case that needs it: an allocationMode All request whose "all" set holds a device already in use.
The set is fixed in the pre-pass and taken in order in "must" mode
(docs/spec/allocator.md#all-mode), so it fails at that device whatever else was picked, and an
exhaustive search (random2-01456: two claims before it with 241,536 ways to place them) tries every
combination first.
"""

from __future__ import annotations

import time

from dractl.allocator import reasons as R
from dractl.allocator.constraints import DistinctAttributeConstraint, MatchAttributeConstraint
from dractl.allocator.pools import Candidate
from dractl.allocator.prepass import MAX_DEVICES, RequestData

# Constraint types whose `add` reads nothing of a request they do not apply to, and whose only
# failure is a rejection (dractl's podgroup hook may add other kinds: Search.extra_constraints).
_BUILTIN_CONSTRAINTS = (MatchAttributeConstraint, DistinctAttributeConstraint)


def _may_prune(search) -> bool:
    return search.prune and search.shortcuts and search.rec is None


def all_set_doomed(search, rd: RequestData) -> bool:
    """Whether taking the "all" set of `rd` must fail, whatever the search has taken, with nothing
    else happening on the way (decided once per request and call).

    It must when some device of the set is rejected by allocate_device for a reason fixed for the
    whole call (docs/spec/allocator.md#allocate-device: committed exclusively; a committed share of
    a device that no longer allows several allocations; partitionable devices disabled; an
    untolerated taint of a device that consumes no counters), and no device before it could raise or
    leave state behind when picked: none consumes counters (the counter leaks of
    docs/spec/allocator.md#counter-leaks), none needs a share ID from the caller's generator, and no
    constraint of the claim reads them (a rejection would be a hard error; derived attributes might
    fail to evaluate). Each pick up to that device is undone again and the request fails, so
    skipping the walk changes nothing but the work done. The device-count check before the first
    pick stays where it is: along the walk the count of devices still needed plus those the claim
    has is constant, so it cannot fire later."""
    known = search.doomed_all_sets.get(rd)
    if known is None:
        known = search.doomed_all_sets[rd] = _find_doomed_all_set(search, rd)
    return known


def _find_doomed_all_set(search, rd: RequestData) -> bool:
    if not _may_prune(search) or rd.all_devices is None:
        return False
    constraints = search.constraints[rd.at.claim]
    if rd.derived and constraints:
        return False
    for con in constraints:
        if type(con) not in _BUILTIN_CONSTRAINTS or con.applies(rd.base, rd.sub):
            return False
    eager_share_ids = search.new_share_id is not None and search.f.consumable_capacity
    for cand in rd.all_devices:
        if _fixed_rejection(search, rd, cand):
            return True
        dev = cand.device
        if dev.consumes_counters or (eager_share_ids and dev.allow_multiple_allocations):
            return False
    return False


def _fixed_rejection(search, rd: RequestData, cand: Candidate) -> bool:
    """allocate_device rejects the device for `rd`, before it changes any state, for a reason
    that holds for the whole call (the allocated state does not change during a search)."""
    did = cand.id
    multi = search.f.consumable_capacity and cand.device.allow_multiple_allocations
    if not rd.admin:
        if did in search.in_use:
            return True
        if not multi and search.shared is not None and did in search.shared:
            return True
    verdict = search.verdict(rd, cand)   # computed by the pre-pass for every device of the set
    return verdict == R.COUNTERS_DISABLED or (verdict == R.TAINTED and not cand.device.consumes_counters)


def search_doomed(search) -> bool:
    """Whether the whole search must end "unsatisfiable": some request (not a firstAvailable one)
    fails whatever was taken before it, being an All request with an empty or doomed set, and
    nothing the search does before reaching it could end otherwise or draw a share ID. The search fails at that
    request on every path, so it can only end differently by an exception on the way there: a
    selector or node-selector error of a device some earlier request evaluates, a derived
    attribute or a constraint failing in "must" mode, or a claim going over the device limit
    (at the first claim that is a hard error). Each of these is ruled out from the inputs:
    every (request, device) pair before it is evaluated here, as the search might (the results
    are facts, cached as the search caches them; an error only stops the pruning), and the
    claims' device counts are bounded. Timeouts are the one exception left, and stopping
    sooner cannot cause one."""
    if not _may_prune(search) or _draws_share_ids(search):
        return False
    for c, entries in enumerate(search.claim_reqs):
        for j, entry in enumerate(entries):
            if type(entry) is tuple or entry.all_devices is None:
                continue
            if not entry.all_devices or all_set_doomed(search, entry):
                return _prefix_cannot_raise(search, c, j)
    return False


def _draws_share_ids(search) -> bool:
    """Whether walking the search could call the caller's share-ID generator (its sequence shows
    in the dry run's output, so it must advance as it always did)."""
    return search.new_share_id is not None and search.f.consumable_capacity and \
        any(cand.device.allow_multiple_allocations for cand in search.cands)


def _prefix_cannot_raise(search, c: int, j: int) -> bool:
    """No exception can come out of the search before it reaches request `j` of claim `c`."""
    for c2 in range(c + 1):
        constraints = search.constraints[c2]
        if any(type(con) not in _BUILTIN_CONSTRAINTS for con in constraints):
            return False
        entries = search.claim_reqs[c2] if c2 < c else search.claim_reqs[c][:j + 1]
        most = 0
        for entry in entries:
            most += max(rd.need for rd in entry) if type(entry) is tuple else entry.need
        if most > MAX_DEVICES:
            return False
        for entry in (entries if c2 < c else entries[:j]):
            for rd in entry if type(entry) is tuple else (entry,):
                if not _scan_cannot_raise(search, constraints, rd):
                    return False
    return True


def _scan_cannot_raise(search, constraints: list, rd: RequestData) -> bool:
    if rd.derived and constraints:
        return False            # a picked device evaluates derived attributes
    if rd.all_devices is not None:
        # The set's devices were evaluated by the pre-pass; only a constraint could reject one,
        # which in "must" mode is a hard error.
        return not any(con.applies(rd.base, rd.sub) for con in constraints)
    search.check_deadline()
    for cand in search.cands:
        try:
            search.selectable(rd, cand)
        except Exception:  # noqa: BLE001 - the search must run and report it
            return False
    return True


# Searches shorter than this never ask whether a later claim is hopeless: a claim's own search
# is about as costly as the steps it may save, and nearly every search ends within a few steps.
ALONE_AFTER_STEPS = 256
# The most steps the search of one claim alone may take; past it, the question stays open.
ALONE_BUDGET = 20_000


def claim_alone_unsatisfiable(search, c: int) -> bool:
    """Whether claim `c` cannot be allocated even alone, against only the allocations committed
    before the call (decided once per claim and call), and nothing the search does before
    reaching it could end otherwise (hopeless.search_doomed's conditions).

    Every check a device passes for a claim can only fail more often when earlier claims of the
    call have taken devices (in use, consumed capacity and counters, compatibility groups);
    constraints and chosen subrequests belong to one claim. So if the claim's own search, with
    nothing taken, ends "unsatisfiable" without an error, it ends so on every path of the full
    search, which upstream walks to the end before it reports the same."""
    known = search.alone_verdicts.get(c)
    if known is None:
        known = search.alone_verdicts[c] = _alone_unsatisfiable(search, c)
    return known


def _alone_unsatisfiable(search, c: int) -> bool:
    if not _may_prune(search) or _draws_share_ids(search) or search.extra_constraints is not None:
        return False
    if not _prefix_cannot_raise(search, c, len(search.claim_reqs[c])):
        return False
    alone = _AloneSearch(
        features=search.f, compat=search.compat, variant=search.variant, node=search.node,
        node_pools=search.np, inventory=search.inventory, claims=[search.claims[c]],
        engine=search.engine, counter_cache={}, new_share_id=None, facts=search.facts,
        fact_table=search.fact_table, shortcuts=True, deadline=search.deadline)
    try:
        return alone.run() is False
    except Exception:  # noqa: BLE001 - an error, a timeout or the budget: the question stays open
        return False


def _alone_search_class():
    from dractl.allocator.search import Search

    class AloneSearch(Search):
        """One claim's search with a step budget (checked where the deadline is)."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.real_deadline, self.deadline = self.deadline, float("inf")

        def check_deadline(self) -> None:
            if self.steps > ALONE_BUDGET:
                raise _OverBudget()
            if self.real_deadline is not None and time.monotonic() > self.real_deadline:
                raise _OverBudget()

    return AloneSearch


class _OverBudget(Exception):
    pass


def _AloneSearch(**kwargs):  # noqa: N802 - the class, made on first use (search imports hopeless)
    global _AloneSearch
    cls = _alone_search_class()
    _AloneSearch = cls
    return cls(**kwargs)
