"""What holds each device: the allocation results of every allocated claim, folded per device.

KEP-5677's accounting rules (the pool-status controller, resourcepoolstatusrequest): a device with
any number of non-admin-access results counts once as in use; admin-access results are observers
and count nowhere; consumed capacity is summed over the non-admin results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from dractl.api.quantity import Quantity
from dractl.api.resource import AllocationResult

DeviceID = tuple  # (driver, pool, device)


@dataclass
class DeviceUse:
    claims: list[str] = field(default_factory=list)        # "namespace/name" of non-admin holders
    admin_claims: list[str] = field(default_factory=list)  # admin-access observers
    consumed: dict[str, Quantity] = field(default_factory=dict)

    @property
    def in_use(self) -> bool:
        return bool(self.claims)


def device_usage(allocations: Iterable[tuple[str, AllocationResult]]) -> dict[DeviceID, DeviceUse]:
    """`allocations`: (claim reference, allocation) pairs, in the order the claims were given."""
    usage: dict[DeviceID, DeviceUse] = {}
    for claim_ref, allocation in allocations:
        for result in allocation.devices:
            use = usage.setdefault(result.device_id, DeviceUse())
            if result.admin_access:
                if claim_ref not in use.admin_claims:
                    use.admin_claims.append(claim_ref)
                continue
            if claim_ref not in use.claims:
                use.claims.append(claim_ref)
            for name, amount in (result.consumed_capacity or {}).items():
                use.consumed[name] = use.consumed.get(name, Quantity(0)) + amount
    return usage
