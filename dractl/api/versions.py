"""Kubernetes versions dractl knows, and the feature gates that change what it accepts or decides.

Defaults come from the upstream feature-gate lists (see docs/api-and-scheduling.md, section 1.2).
A gate that does not exist in a version is simply absent from that version's table; asking for it
returns False. A name that is in no table at all is a programming error (a typo would otherwise turn a
gate off silently): `FeatureGates.enabled` raises `UnknownGateError` for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

KUBE_VERSIONS: tuple[str, ...] = ("1.34", "1.35", "1.36", "1.37")
DEFAULT_KUBE_VERSION = KUBE_VERSIONS[-1]

# gate -> default per version; missing version = gate does not exist there.
# "locked" gates are GA and cannot be turned off.
_GATE_DEFAULTS: dict[str, dict[str, bool]] = {
    "DynamicResourceAllocation": {"1.34": True, "1.35": True, "1.36": True, "1.37": True},
    "DRAPrioritizedList": {"1.34": True, "1.35": True, "1.36": True, "1.37": True},
    "DRAAdminAccess": {"1.34": True, "1.35": True, "1.36": True, "1.37": True},
    "DRADeviceTaints": {"1.34": False, "1.35": False, "1.36": True, "1.37": True},
    "DRADeviceTaintRules": {"1.35": False, "1.36": False, "1.37": True},
    "DRAPartitionableDevices": {"1.34": False, "1.35": False, "1.36": True, "1.37": True},
    "DRAConsumableCapacity": {"1.34": False, "1.35": False, "1.36": True, "1.37": True},
    "DRADeviceBindingConditions": {"1.34": False, "1.35": False, "1.36": True, "1.37": True},
    "DRAResourceClaimDeviceStatus": {"1.34": True, "1.35": True, "1.36": True, "1.37": True},
    "DRAExtendedResource": {"1.34": False, "1.35": False, "1.36": True, "1.37": True},
    "DRASchedulerFilterTimeout": {"1.34": True, "1.35": True, "1.36": True, "1.37": True},
    "DRAListTypeAttributes": {"1.36": False, "1.37": False},
    "DRANodeAllocatableResources": {"1.36": False, "1.37": False},
    "DRAWorkloadResourceClaims": {"1.36": False, "1.37": False},
    "GenericWorkload": {"1.35": False, "1.36": False, "1.37": False},
    "GangScheduling": {"1.35": False, "1.36": False},
    "WorkloadAwarePreemption": {"1.36": False},
    "TopologyAwareWorkloadScheduling": {"1.36": False, "1.37": False},
    "CompositePodGroup": {"1.37": False},
    "PodGroupPreemptionPolicy": {"1.37": False},
    "DRAFractionalCapacityRange": {"1.37": True},
    "DRAOptionalNodeOperations": {"1.37": False},
    "PodLevelResources": {"1.34": True, "1.35": True, "1.36": True, "1.37": True},
}

# GA gates that cannot be disabled, per version.
_LOCKED: dict[str, set[str]] = {
    "1.34": set(),
    "1.35": {"DynamicResourceAllocation"},
    "1.36": {"DynamicResourceAllocation", "DRAAdminAccess", "DRAPrioritizedList"},
    "1.37": {"DynamicResourceAllocation", "DRAAdminAccess", "DRAPrioritizedList",
             "DRAExtendedResource"},
}

# Gates the allocator conformance corpus toggles; a case sets all of them explicitly.
ALLOCATOR_GATES: tuple[str, ...] = (
    "DRAAdminAccess", "DRAConsumableCapacity", "DRADeviceBindingConditions", "DRADeviceTaints",
    "DRAListTypeAttributes", "DRAPartitionableDevices", "DRAPrioritizedList",
)


class GateError(ValueError):
    """A --feature-gates value that a Kubernetes component would reject."""


class UnknownGateError(Exception):
    """Code asked for a feature gate that no Kubernetes version dractl knows has (a typo, or a
    gate missing from `_GATE_DEFAULTS`). Never caused by user input: `parse_feature_gates` turns
    unknown names on the command line into a `GateError`."""


def _require_known(gate: str) -> dict[str, bool]:
    defaults = _GATE_DEFAULTS.get(gate)
    if defaults is None:
        raise UnknownGateError(f"unknown feature gate {gate!r}: not in dractl.api.versions._GATE_DEFAULTS")
    return defaults


@dataclass(frozen=True)
class FeatureGates:
    """Effective feature gates: version defaults plus explicit overrides."""

    version: str = DEFAULT_KUBE_VERSION
    overrides: Mapping[str, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for gate in self.overrides:
            _require_known(gate)

    def enabled(self, gate: str) -> bool:
        """The gate's effective value; False for a known gate that this version does not have.
        Raises UnknownGateError for a name no version has."""
        defaults = _GATE_DEFAULTS.get(gate)
        if defaults is None:
            _require_known(gate)  # raises
        overrides = self.overrides
        if gate in overrides:
            return overrides[gate]
        return defaults.get(self.version, False)

    __call__ = enabled

    def with_overrides(self, **gates: bool) -> "FeatureGates":
        merged = dict(self.overrides)
        merged.update(gates)
        return FeatureGates(self.version, merged)

    def as_dict(self) -> dict[str, bool]:
        names = set(self.overrides) | {g for g, v in _GATE_DEFAULTS.items() if self.version in v}
        return {g: self.enabled(g) for g in sorted(names)}

    def key(self) -> tuple:
        """Hashable identity, for caches keyed by environment."""
        return (self.version, tuple(sorted(self.as_dict().items())))


def known_gates(version: str | None = None) -> list[str]:
    if version is None:
        return sorted(_GATE_DEFAULTS)
    return sorted(g for g, v in _GATE_DEFAULTS.items() if version in v)


def parse_feature_gates(text: str, version: str = DEFAULT_KUBE_VERSION) -> FeatureGates:
    """Parse `Name=true,Other=false` like a Kubernetes component's --feature-gates flag."""
    overrides: dict[str, bool] = {}
    for part in (p.strip() for p in (text or "").split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        name, value = name.strip(), value.strip().lower()
        if not sep or value not in ("true", "false"):
            raise GateError(f"invalid feature gate {part!r}: expected Name=true or Name=false")
        if name not in _GATE_DEFAULTS:
            raise GateError(f"unrecognized feature gate: {name} (known: {', '.join(known_gates())})")
        if version not in _GATE_DEFAULTS[name]:
            raise GateError(f"feature gate {name} does not exist in Kubernetes {version}")
        enabled = value == "true"
        if not enabled and name in _LOCKED.get(version, set()):
            raise GateError(f"cannot set feature gate {name} to false, feature is locked to true")
        overrides[name] = enabled
    return FeatureGates(version, overrides)
