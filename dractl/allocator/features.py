"""The allocator's own feature set, derived from Kubernetes feature gates
(docs/spec/allocator.md#features), and the compatibility switches for upstream fixes that landed
after the reference snapshot."""

from __future__ import annotations

from dataclasses import dataclass

STABLE = "stable"
INCUBATING = "incubating"
EXPERIMENTAL = "experimental"


@dataclass(frozen=True)
class Compat:
    """The allocator's release switches: one field per `allocator` row of the release table
    (dractl/api/releases.py, where each names its upstream PR, first release and cherry-picks).
    The defaults reproduce the reference snapshot (upstream 3d03671): every switch off.
    `for_release` sets them as a release's latest patch ships them; the conformance runner flips
    single switches to run a case on both sides of a fix."""

    release_reserved_state: bool = False
    distinct_all_devices: bool = False
    claim_limit_overflow_safe: bool = False
    shared_device_not_exclusive: bool = False
    qualified_capacity_names: bool = False

    @classmethod
    def for_release(cls, version: str | None) -> "Compat":
        """The switches as the release ships them; an unknown version gets the snapshot's."""
        from dractl.api.releases import changes_in_force

        try:
            shipped = changes_in_force(str(version))
        except ValueError:
            return cls()
        return cls(**{name: name in shipped for name in cls.__dataclass_fields__})


def _fix_switches() -> dict[int, str]:
    from dractl.api.releases import ALLOCATOR, CHANGES

    out = {}
    for change in CHANGES:
        number = change.upstream.partition("#")[2]
        if change.area == ALLOCATOR and number.isdigit():
            out[int(number)] = change.name
    return out


# The upstream pull request behind each switch, as conformance cases name them (`upstreamFixes`).
FIX_SWITCHES: dict[int, str] = _fix_switches()


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
        """Which upstream implementation NewAllocator would pick
        (docs/spec/allocator.md#variants)."""
        if self.list_type_attributes:
            return EXPERIMENTAL
        if self.consumable_capacity or self.device_binding_and_status:
            return INCUBATING
        return STABLE


def _taint_rules_gate(gates) -> bool:
    """DeviceTaintRules are applied under DRADeviceTaintRules where the release has that gate
    (1.35+, kubernetes/kubernetes#135068); before, the rules were part of DRADeviceTaints."""
    version = getattr(gates, "version", None)
    if version is not None:
        from dractl.api.versions import gate_specs
        if "DRADeviceTaintRules" not in gate_specs(version):
            return gates.enabled("DRADeviceTaints")
    return gates.enabled("DRADeviceTaintRules")
