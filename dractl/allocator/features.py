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

    @classmethod
    def for_release(cls, version: str | None) -> "Compat":
        """The switches as a release ships them (upstream-1.37-verified C.4): #140431 is in 1.37.0
        and was cherry-picked to release-1.36 (#140663; dractl models 1.36's latest patch), #140600
        is in 1.37.0 (no 1.36 cherry-pick found). Older releases, and an unknown version, get the
        snapshot behaviour."""
        try:
            minor = tuple(int(part) for part in str(version).split(".")[:2])
        except ValueError:
            return cls()
        if len(minor) != 2:
            return cls()
        return cls(release_reserved_state=minor >= (1, 36), distinct_all_devices=minor >= (1, 37))


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
    # Kubernetes 1.37 alpha features (off unless their gates are on). They do not change which
    # variant is picked: dractl models them on top of whichever variant the other features select.
    derived_attributes: bool = False          # DRADerivedAttributes (KEP-6080)
    compatibility_groups: bool = False        # DRADeviceCompatibilityGroups (KEP-5963)
    optional_node_operations: bool = False    # DRAOptionalNodeOperations (KEP-5945)
    fractional_capacity_range: bool = False   # DRAFractionalCapacityRange

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
            derived_attributes=on("DRADerivedAttributes"),
            compatibility_groups=on("DRADeviceCompatibilityGroups"),
            optional_node_operations=on("DRAOptionalNodeOperations"),
            fractional_capacity_range=on("DRAFractionalCapacityRange"),
        )

    @property
    def variant(self) -> str:
        """Which upstream implementation NewAllocator would pick (§1.5)."""
        if self.list_type_attributes:
            return EXPERIMENTAL
        if self.consumable_capacity or self.device_binding_and_status:
            return INCUBATING
        return STABLE
