"""Shared counters of partitionable devices (docs/spec/allocator.md#counters): what the allocated
state leaves available per pool, and what one allocation attempt consumes on top of it."""

from __future__ import annotations

from dractl.allocator.pools import Candidate, Pool
from dractl.allocator.state import AllocatedState


class CounterBook:
    """Counter bookkeeping of one allocation attempt.

    `available` caches, per pool *name* (upstream keys it by name only,
    docs/spec/allocator.md#counters-by-pool-name), the counters left by the allocated state; the
    cache is shared by the calls that see the same state version. `consumed` is what this attempt
    has taken so far, also per pool name."""

    __slots__ = ("state", "available", "consumed")

    def __init__(self, state: AllocatedState, available: dict):
        self.state = state
        self.available = available
        self.consumed: dict[str, dict[str, dict]] = {}

    def availability(self, pool: Pool) -> dict:
        avail = self.available.get(pool.name)
        if avail is None:
            avail = {name: {cn: q.value for cn, q in cs.counters.items()} for name, cs in pool.counter_sets.items()}
            counts = self.state.counts_for_counters
            for dev in pool.counter_consumers():
                if counts(dev.id):
                    _subtract(avail, dev)
            self.available[pool.name] = avail
        return avail

    def take(self, cand: Candidate) -> bool:
        """Consume the device's counters; False (and nothing consumed) when some counter of the
        pool would go below zero."""
        avail = self.availability(cand.pool)
        consumed = self.consumed.setdefault(cand.pool.name, {})
        _add(consumed, cand.device)
        if _overdrawn(avail, consumed):
            self.release(cand)
            return False
        return True

    def release(self, cand: Candidate) -> None:
        _subtract(self.consumed.get(cand.pool.name, {}), cand.device)

    def fits_alone(self, cand: Candidate) -> bool:
        """Whether the device's counters fit what the allocated state leaves, ignoring this
        attempt (for explanations)."""
        own: dict[str, dict] = {}
        _add(own, cand.device)
        return not _overdrawn(self.availability(cand.pool), own)


def _add(by_set: dict, device) -> None:
    """Add what `device` consumes to `by_set` (counter set -> counter -> amount)."""
    for cc in device.consumes_counters:
        s = by_set.setdefault(cc.counter_set, {})
        for cn, q in cc.counters.items():
            s[cn] = s.get(cn, 0) + q.value


def _subtract(by_set: dict, device) -> None:
    """Subtract what `device` consumes from `by_set`, for the sets and counters it has."""
    for cc in device.consumes_counters:
        s = by_set.get(cc.counter_set)
        if s is None:
            continue
        for cn, q in cc.counters.items():
            if cn in s:
                s[cn] -= q.value


def _overdrawn(avail: dict, used_by_set: dict) -> bool:
    # Every counter of the pool is checked, not only the device's: an over-committed counter
    # (negative availability) blocks all counter-consuming devices of the pool.
    for set_name, counters in avail.items():
        used = used_by_set.get(set_name) or {}
        for cn, available in counters.items():
            if available < used.get(cn, 0):
                return True
    return False
