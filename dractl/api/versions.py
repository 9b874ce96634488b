"""Kubernetes versions dractl knows, and the feature gates that change what it accepts or decides.

The gates come from `gates.json` beside this file: each gate's versioned specs as upstream declares
them (component-base `featuregate.VersionedSpecs`), with the source of each row. For a release,
the spec in force is the newest whose version is <= the release; a spec tied to a minimum
compatibility version applies only when `min_compat` >= that version (it defaults to the previous
minor, as in the components). A gate that a release does not know (not yet added, or removed)
reads False; a name that no release knows is a programming error and raises `UnknownGateError`
(a typo would otherwise turn a gate off silently).

`parse_feature_gates` answers like a component's `--feature-gates` flag, with component-base's
messages; dractl adds the closest gate name to an unknown one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from dractl.api.record import FrozenRecord
from dractl.api.releases import in_force, normalize, release_key

KUBE_VERSIONS: tuple[str, ...] = ("1.34", "1.35", "1.36", "1.37", "1.38")
DEFAULT_KUBE_VERSION = "1.37"
# Releases not yet published: modelled from their alpha changelogs (labelled as previews).
PREVIEW_VERSIONS: tuple[str, ...] = ("1.38",)
# Releases the gate table describes.
GATE_RELEASES: tuple[str, ...] = KUBE_VERSIONS

# Gates the allocator conformance corpus toggles; a case sets all of them explicitly.
ALLOCATOR_GATES: tuple[str, ...] = (
    "DRAAdminAccess", "DRAConsumableCapacity", "DRADeviceBindingConditions", "DRADeviceTaints",
    "DRAListTypeAttributes", "DRAPartitionableDevices", "DRAPrioritizedList",
)

# strconv.ParseBool's spellings, which component-base accepts for gate values.
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


class GateError(ValueError):
    """A --feature-gates value that a Kubernetes component would reject."""


class UnknownGateError(KeyError):
    """Code asked for a feature gate that no release in gates.json has. Never caused by user
    input: `parse_feature_gates` turns unknown names on the command line into a `GateError`."""


class GateSpec(FrozenRecord):
    """A gate as one release (and minimum compatibility version) sees it."""

    __slots__ = ("name", "stage", "default", "locked", "source", "min_compat")

    def __init__(self, name: str, stage: str, default: bool, locked: bool, source: str,
                 min_compat: str | None = None) -> None:
        # stage: alpha | beta | ga | deprecated; min_compat: the spec applies because
        # min-compatibility-version >= this. Set like a frozen dataclass's fields.
        for name_, value in zip(self.__slots__, (name, stage, default, locked, source, min_compat), strict=True):
            object.__setattr__(self, name_, value)


# The one version parser lives with the release table.
version_tuple = release_key


def previous_minor(version: str) -> str:
    major, minor = version_tuple(version)
    return f"{major}.{max(minor - 1, 0)}"


@lru_cache(maxsize=1)
def _table() -> dict[str, dict]:
    with open(Path(__file__).with_name("gates.json"), encoding="utf-8") as fh:
        return json.load(fh)["gates"]


def _resolve(name: str, version: str, min_compat: str | None) -> GateSpec | None:
    entry = _table()[name]
    release = version_tuple(version)
    removed = entry.get("removed")
    if removed and release >= version_tuple(removed):
        return None
    compat = version_tuple(min_compat or previous_minor(version))
    for spec in reversed(entry["specs"]):
        if version_tuple(spec["version"]) > release:
            continue
        needs = spec.get("minCompat")
        if needs and compat < version_tuple(needs):
            continue
        return GateSpec(name, spec["stage"], spec["default"], bool(spec.get("locked")), entry["source"], needs)
    return None


@lru_cache(maxsize=None)
def gate_specs(version: str, min_compat: str | None = None) -> dict[str, GateSpec]:
    """Every gate the release knows, by name (sorted)."""
    out = {}
    for name in sorted(_table()):
        spec = _resolve(name, version, min_compat)
        if spec is not None:
            out[name] = spec
    return out


def _require_known(gate: str) -> None:
    if gate not in _table():
        raise UnknownGateError(f"unknown feature gate {gate!r}: not in dractl/api/gates.json")


@dataclass(frozen=True)
class FeatureGates:
    """Effective feature gates: release defaults plus explicit overrides."""

    version: str = DEFAULT_KUBE_VERSION
    overrides: Mapping[str, bool] = field(default_factory=dict)
    min_compat: str | None = None     # --min-compatibility-version; None = previous minor
    # dractl's own opt-in extensions (--extension, dractl/extensions/): not Kubernetes gates, but
    # they travel with the gates because they change acceptance and the dry run alike.
    extensions: frozenset = frozenset()

    def __post_init__(self) -> None:
        for gate in self.overrides:
            _require_known(gate)

    def enabled(self, gate: str) -> bool:
        """The gate's effective value; False for a gate this release does not know."""
        if gate in self.overrides:
            return self.overrides[gate]
        spec = gate_specs(self.version, self.min_compat).get(gate)
        if spec is None:
            _require_known(gate)
            return False
        return spec.default

    __call__ = enabled

    def with_overrides(self, **gates: bool) -> "FeatureGates":
        merged = dict(self.overrides)
        merged.update(gates)
        return FeatureGates(self.version, merged, self.min_compat, self.extensions)

    def with_extensions(self, names) -> "FeatureGates":
        return FeatureGates(self.version, dict(self.overrides), self.min_compat, frozenset(names))

    def extension(self, name: str) -> bool:
        """True when dractl's extension `name` (dractl/extensions/) is switched on."""
        return name in self.extensions

    def as_dict(self) -> dict[str, bool]:
        names = set(self.overrides) | set(gate_specs(self.version, self.min_compat))
        return {g: self.enabled(g) for g in sorted(names)}

    def key(self) -> tuple:
        """Hashable identity, for caches keyed by environment."""
        key = (self.version, tuple(sorted(self.as_dict().items())))
        return key + (tuple(sorted(self.extensions)),) if self.extensions else key


def known_gates(version: str | None = None) -> list[str]:
    if version is None:
        return sorted(_table())
    return list(gate_specs(version))


def _closest(name: str, version: str) -> str:
    from dractl.suggest import closest_match

    names = known_gates(version)
    lowered = {n.lower(): n for n in names}
    match = lowered.get(name.lower()) or closest_match(name, names, cutoff=0.6)
    return f" (did you mean {match}?)" if match else ""


def _removed_note(name: str, version: str) -> str:
    """dractl's own hint for a gate that an older release had."""
    entry = _table().get(name)
    if entry and entry.get("removed") and version_tuple(version) >= version_tuple(entry["removed"]):
        merged = f", merged into {entry['mergedInto']}" if entry.get("mergedInto") else ""
        return f" (removed in Kubernetes {entry['removed']}{merged})"
    if entry:
        first = entry["specs"][0]["version"]
        return f" (added in Kubernetes {first})"
    return ""


def parse_feature_gates(text: str, version: str = DEFAULT_KUBE_VERSION, *,
                        min_compat: str | None = None) -> FeatureGates:
    """Parse `Name=true,Other=false` like a Kubernetes component's --feature-gates flag."""
    overrides: dict[str, bool] = {}
    for part in (p.strip() for p in (text or "").split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not sep:
            raise GateError(f"missing bool value for {name}")
        if value not in _TRUE + _FALSE:
            raise GateError(f'invalid value of {name}={value}, err: strconv.ParseBool: parsing "{value}": '
                            "invalid syntax")
        overrides[name] = value in _TRUE
    specs = gate_specs(version, min_compat)
    for name in overrides:
        if name not in specs:
            hint = _removed_note(name, version) if name in _table() else _closest(name, version)
            raise GateError(f"unrecognized feature gate: {name}{hint}")
    locked = [f"cannot set feature gate {n} to {str(v).lower()}, feature is locked to {str(specs[n].default).lower()}"
              for n, v in overrides.items() if specs[n].locked and v != specs[n].default]
    if locked:
        raise GateError(locked[0] if len(locked) == 1 else "[" + ", ".join(locked) + "]")
    gates = FeatureGates(version, overrides, min_compat)
    _check_dependencies(gates, specs)
    return gates


def _check_dependencies(gates: FeatureGates, specs: Mapping[str, GateSpec]) -> None:
    if not in_force("gate_dependencies", gates.version):
        return
    problems = []
    for name in sorted(specs):
        if not gates.enabled(name):
            continue
        missing = [d for d in _table()[name].get("depends", ()) if d in specs and not gates.enabled(d)]
        if missing:
            problems.append(f"{name} is enabled, but depends on features that are disabled: [{' '.join(missing)}]")
    if problems:
        raise GateError(problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]")


# `1.37`, `v1.37`, `1.37.2`, `1.37.0-rc.1` -> `1.37`; None when the text is not a version.
normalize_kube_version = normalize
