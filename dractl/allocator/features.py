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
    claim_limit_overflow_safe: upstream PR 141307 — the per-claim device limit is checked against
        the room left in the claim, request by request, so counts that add up past the int range
        are rejected (naming the request) and an oversized firstAvailable alternative is pruned.
        Off: the snapshot's int64 sums, which wrap (a negative total crashes kube-scheduler).
    shared_device_not_exclusive: upstream PR 140798 — a device that has a live shared allocation
        (a committed shareID) cannot be allocated exclusively, after its slice stopped allowing
        multiple allocations. Off: only exclusive allocations make a device "in use".
    qualified_capacity_names: upstream PR 142202 — capacity requests and a device's capacities are
        compared by fully-qualified name (an unqualified name belongs to the device's driver), so
        `<driver>/memory` and `memory` are the same capacity; where both spellings are given, the
        fully-qualified one wins. Off: names are compared literally.
    """

    release_reserved_state: bool = False
    distinct_all_devices: bool = False
    claim_limit_overflow_safe: bool = False
    shared_device_not_exclusive: bool = False
    qualified_capacity_names: bool = False

    @classmethod
    def for_release(cls, version: str | None) -> "Compat":
        """The switches as a release's latest patch ships them (upstream-1.37-verified C.4, C.6):
        #140431 is in 1.37.0 and was cherry-picked to release-1.36 (#140663); #140600 is in 1.37.0
        (no 1.36 cherry-pick found); #141307 merged for 1.38 and was cherry-picked to release-1.34
        to release-1.37 (#141922-#141925, September 2026); #140798 and #142202 are 1.38 changes
        (1.38 changelog, no cherry-pick found). Older releases, and an unknown version, get the
        snapshot behaviour."""
        try:
            minor = tuple(int(part) for part in str(version).split(".")[:2])
        except ValueError:
            return cls()
        if len(minor) != 2:
            return cls()
        return cls(release_reserved_state=minor >= (1, 36), distinct_all_devices=minor >= (1, 37),
                   claim_limit_overflow_safe=minor >= (1, 34),
                   shared_device_not_exclusive=minor >= (1, 38), qualified_capacity_names=minor >= (1, 38))


# The upstream pull request behind each switch, as conformance cases name them (`upstreamFixes`).
FIX_SWITCHES: dict[int, str] = {
    140431: "release_reserved_state",
    140600: "distinct_all_devices",
    141307: "claim_limit_overflow_safe",
    140798: "shared_device_not_exclusive",
    142202: "qualified_capacity_names",
}


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
            device_taint_rules=_taint_rules_gate(gates),
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


def _taint_rules_gate(gates) -> bool:
    """DeviceTaintRules are applied under DRADeviceTaintRules from 1.35; in 1.34 the rules were part
    of DRADeviceTaints (the gate DRADeviceTaintRules did not exist yet)."""
    version = getattr(gates, "version", None)
    if version is not None:
        from dractl.api.versions import gate_specs, version_tuple
        if version_tuple(version) < (1, 35) and "DRADeviceTaintRules" not in gate_specs(version):
            return gates.enabled("DRADeviceTaints")
    return gates.enabled("DRADeviceTaintRules")
