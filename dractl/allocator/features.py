"""The allocator's own feature set, derived from Kubernetes feature gates (allocator-semantics §1.4),
and the compatibility switches for upstream fixes that landed after the reference snapshot."""

from __future__ import annotations

from dataclasses import dataclass

STABLE = "stable"
INCUBATING = "incubating"
EXPERIMENTAL = "experimental"


@dataclass(frozen=True)
class Compat:
    """Behaviour switches. The defaults reproduce the reference snapshot (upstream 3d03671).

    release_reserved_state: upstream PR 140431 — release counters (and constraint state) on every
        rejection/backtracking path instead of leaking them for the rest of the call (§6.5, §10.6).
    distinct_all_devices: upstream PR 140600 — distinctAttribute compares a new device against every
        device already admitted, not only the latest one per request name (§5.5).
    """

    release_reserved_state: bool = False
    distinct_all_devices: bool = False


@dataclass(frozen=True)
class AllocatorFeatures:
    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = True
    device_taints: bool = True
    device_binding_and_status: bool = True
    consumable_capacity: bool = True
    list_type_attributes: bool = False
    # Not an allocator feature upstream: decides whether DeviceTaintRules are merged into slices.
    device_taint_rules: bool = True

    @classmethod
    def from_gates(cls, gates) -> "AllocatorFeatures":
        """`gates` is a `dractl.api.versions.FeatureGates` (or anything with `.enabled(name)`)."""
        on = gates.enabled
        return cls(
            admin_access=on("DRAAdminAccess"),
            prioritized_list=on("DRAPrioritizedList"),
            partitionable_devices=on("DRAPartitionableDevices"),
            device_taints=on("DRADeviceTaints"),
            device_binding_and_status=on("DRADeviceBindingConditions") and on("DRAResourceClaimDeviceStatus"),
            consumable_capacity=on("DRAConsumableCapacity"),
            list_type_attributes=on("DRAListTypeAttributes"),
            device_taint_rules=on("DRADeviceTaintRules"),
        )

    @property
    def variant(self) -> str:
        """Which upstream implementation NewAllocator would pick (§1.5)."""
        if self.list_type_attributes:
            return EXPERIMENTAL
        if self.consumable_capacity or self.device_binding_and_status:
            return INCUBATING
        return STABLE
