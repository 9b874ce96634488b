"""Allocated state: which devices are in use, by exclusive allocation, by shares, and how much of
their consumable capacity is consumed (docs/spec/allocator.md#allocated-state).

Kept incrementally: the dry-run scheduler commits one allocation after another (`add`) and may
release a claim again (`remove`); nothing is ever rebuilt from all claims.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Iterable, Mapping

from dractl.api.resource import AllocationResult, ResourceClaim

DeviceID = tuple  # (driver, pool, device)


class AllocatedState:
    def __init__(self, consumable_capacity: bool):
        self.consumable_capacity = consumable_capacity
        self._exclusive: Counter = Counter()            # DeviceID -> number of results
        # The live set-like view behind `is_allocated`, as an attribute for the search, which reads
        # it once per call (exclusive_ids() is the same object).
        self.in_use = self._exclusive
        self._shared: Counter = Counter()                # (DeviceID, shareID) -> number of results
        self._shared_devices: Counter = Counter()        # DeviceID -> number of shares
        self._capacity: dict[DeviceID, dict[str, Fraction]] = {}
        self.capacity_in_use = self._capacity              # live, read only: committed_capacity() without a call
        self._capacity_refs: Counter = Counter()         # DeviceID -> number of results with consumedCapacity
        self._claims: dict[str, AllocationResult] = {}
        # Bumped on every change; caches derived from the state compare against it.
        self.version = 0

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def from_claims(cls, claims: Iterable[ResourceClaim], consumable_capacity: bool) -> "AllocatedState":
        state = cls(consumable_capacity)
        for claim in claims:
            if claim.allocation is not None:
                state.add(claim_key(claim), claim.allocation)
        return state

    def add(self, key: str, allocation: AllocationResult) -> None:
        """Record an allocated claim. Adding the same key again replaces the previous allocation."""
        if key in self._claims:
            self.remove(key)
        self._claims[key] = allocation
        self._apply(allocation, +1)

    def remove(self, key: str) -> None:
        allocation = self._claims.pop(key, None)
        if allocation is not None:
            self._apply(allocation, -1)

    def _apply(self, allocation: AllocationResult, sign: int) -> None:
        self.version += 1
        for r in allocation.devices:
            if r.admin_access:
                continue
            did = (r.driver, r.pool, r.device)
            if self.consumable_capacity and r.share_id:
                self._shared[(did, r.share_id)] += sign
                self._shared_devices[did] += sign
                if r.consumed_capacity is not None:
                    agg = self._capacity.setdefault(did, {})
                    for name, q in r.consumed_capacity.items():
                        agg[name] = agg.get(name, Fraction(0)) + sign * q.value
                    self._capacity_refs[did] += sign
                    if self._capacity_refs[did] <= 0:
                        del self._capacity_refs[did]
                        self._capacity.pop(did, None)
                if self._shared[(did, r.share_id)] <= 0:
                    del self._shared[(did, r.share_id)]
                if self._shared_devices[did] <= 0:
                    del self._shared_devices[did]
            else:
                self._exclusive[did] += sign
                if self._exclusive[did] <= 0:
                    del self._exclusive[did]

    # -- queries ----------------------------------------------------------------------------
    def is_allocated(self, device_id: DeviceID) -> bool:
        """In `AllocatedDevices` (exclusively allocated)."""
        return device_id in self._exclusive

    def exclusive_ids(self):
        """The live set-like view behind `is_allocated` (`device_id in view`), for hot loops that
        cannot afford a call per device. Read only; it follows later changes."""
        return self._exclusive

    def counts_for_counters(self, device_id: DeviceID) -> bool:
        """Allocated in any way that consumes counters: exclusive, a share, or consumed capacity."""
        return device_id in self._exclusive or device_id in self._shared_devices or device_id in self._capacity

    def shared_ids(self):
        """The live set-like view of devices with at least one committed share (shareID) or
        committed consumed capacity: `deviceCapacityInUse` for committed state (upstream #140437,
        #140798). Read only; it follows later changes."""
        return _SharedView(self._shared_devices, self._capacity)

    def committed_capacity(self, device_id: DeviceID) -> Mapping[str, Fraction] | None:
        """`AggregatedCapacity[device]`, or None when the device has no entry."""
        return self._capacity.get(device_id)

    def allocated_devices(self) -> frozenset:
        return frozenset(self._exclusive)

    def claim_keys(self) -> frozenset:
        return frozenset(self._claims)

    def allocation_of(self, key: str) -> AllocationResult | None:
        return self._claims.get(key)


def claim_key(claim: ResourceClaim) -> str:
    """Identity of a claim in the allocated state: uid if set, else namespace/name."""
    return claim.uid or claim.ref


class _SharedView:
    """`device_id in view`: the device has a committed share or committed consumed capacity."""

    __slots__ = ("_shares", "_capacity")

    def __init__(self, shares, capacity):
        self._shares, self._capacity = shares, capacity

    def __contains__(self, device_id) -> bool:
        return device_id in self._shares or device_id in self._capacity
