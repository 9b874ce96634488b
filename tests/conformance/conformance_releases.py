"""Which Kubernetes releases a conformance case describes (FORMAT.md, "Releases a case runs under").

A case describes one *home* behaviour: the 3d03671 snapshot (`SNAPSHOT`), or the release named by
its `kubeVersion`. It is also run under every other release in dractl's KUBE_VERSIONS whose
behaviour it describes, decided from the case's data alone:

1. gates: every gate the case sets ON exists in the release and can be switched on; every gate it
   leaves OFF can be switched off, or is locked on and the case uses nothing of its feature;
2. upstream fixes: every fix named in `upstreamFixes` is in the release exactly as the case says
   (`Compat.for_release`); a fix the case does not name must not change its outcome;
3. list-typed attributes reach CEL only from 1.37 (1.36 with DRAListTypeAttributes): a case with
   such attributes runs only where they do.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dractl.allocator import Compat
from dractl.allocator.features import FIX_SWITCHES
from dractl.api.versions import (
    ALLOCATOR_GATES,
    KUBE_VERSIONS,
    FeatureGates,
    gate_specs,
    version_tuple,
)

SNAPSHOT = "snapshot"
# Kubernetes 1.37 gates a case may set as well (v137/README.md); like the others, every one a case
# does not name is set OFF.
GATES_1_37 = ("DRADerivedAttributes", "DRADeviceCompatibilityGroups", "DRAOptionalNodeOperations",
              "DRAFractionalCapacityRange")
CASE_GATES = ALLOCATOR_GATES + GATES_1_37
# The gate table the snapshot context reads (the corpus was first run with it).
SNAPSHOT_TABLE = "1.37"
_LIST_KINDS = ("ints", "strings", "bools", "versions")


@dataclass(frozen=True)
class Context:
    """One run of a case: the gate table's release, the gates and the behaviour switches."""

    name: str            # SNAPSHOT or a release
    gates: FeatureGates
    compat: Compat


def wanted_gates(case: dict) -> dict[str, bool]:
    given = case.get("features") or {}
    unknown = set(given) - set(CASE_GATES)
    assert not unknown, f"case uses gates outside {CASE_GATES}: {sorted(unknown)}"
    return {g: bool(given.get(g, False)) for g in CASE_GATES}


def fixes(case: dict) -> dict[str, bool]:
    """`upstreamFixes` as Compat field -> value."""
    given = case.get("upstreamFixes") or {}
    unknown = set(given) - set(FIX_SWITCHES)
    assert not unknown, f"upstreamFixes names fixes dractl has no switch for: {sorted(unknown)}"
    return {FIX_SWITCHES[pr]: bool(value) for pr, value in given.items()}


def home(case: dict) -> str:
    return str(case["kubeVersion"]) if case.get("kubeVersion") else SNAPSHOT


def home_context(case: dict) -> Context:
    """The behaviour the case describes: snapshot switches (or its release's) plus its fixes."""
    name = home(case)
    base = Compat() if name == SNAPSHOT else Compat.for_release(name)
    table = SNAPSHOT_TABLE if name == SNAPSHOT else name
    return Context(name, FeatureGates(table, wanted_gates(case)), replace(base, **fixes(case)))


def release_context(case: dict, release: str) -> tuple[Context | None, str]:
    """The case under `release`, or (None, why it does not describe that release)."""
    overrides = {}
    specs = gate_specs(release)
    for gate, want in wanted_gates(case).items():
        spec = specs.get(gate)
        if spec is None:
            if want:
                return None, f"{gate} does not exist in {release}"
            continue
        if spec.locked and spec.default != want:
            if want:
                return None, f"{gate} is locked off in {release}"
            if uses_feature(case, gate):
                return None, f"{gate} is locked on in {release} and the case uses it"
            continue            # locked on, but nothing in the case reads it
        overrides[gate] = want
    # DeviceTaintRules apply with the taint feature (in 1.34 they were part of DRADeviceTaints).
    rules = specs.get("DRADeviceTaintRules")
    if rules is not None and not rules.locked:
        overrides["DRADeviceTaintRules"] = True
    compat = Compat.for_release(release)
    for switch, value in fixes(case).items():
        if getattr(compat, switch) != value:
            pr = next(pr for pr, name in FIX_SWITCHES.items() if name == switch)
            return None, f"{release} {'lacks' if value else 'has'} upstream #{pr}"
    gates = FeatureGates(release, overrides)
    if has_list_attributes(case) and not _lists_reach_cel(gates):
        return None, f"list-typed attributes do not reach CEL in {release}"
    return Context(release, gates, compat), ""


def contexts(case: dict) -> list[Context]:
    """The home context first, then every other release the case describes."""
    out = [home_context(case)]
    for release in KUBE_VERSIONS:
        if release != out[0].name:
            found, _ = release_context(case, release)
            if found is not None:
                out.append(found)
    return out


def _lists_reach_cel(gates: FeatureGates) -> bool:
    from dractl.cel.device import list_attributes_exposed
    return list_attributes_exposed(gates)


def _objects(case: dict, kind: str) -> list[dict]:
    return [o for o in case.get("objects") or [] if o.get("kind") == kind]


def _requests(case: dict):
    """Every request and subrequest of the claims the case allocates."""
    names = set(case.get("allocate") or [])
    for claim in _objects(case, "ResourceClaim"):
        if (claim.get("metadata") or {}).get("name") not in names:
            continue
        for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
            yield req
            if req.get("exactly"):
                yield req["exactly"]
            yield from req.get("firstAvailable") or []


def _devices(case: dict):
    for sl in _objects(case, "ResourceSlice"):
        yield from (sl.get("spec") or {}).get("devices") or []


def uses_feature(case: dict, gate: str) -> bool:
    """Whether anything in the case reads the feature behind `gate` (True when unsure)."""
    if gate == "DRAAdminAccess":
        return any(r.get("adminAccess") is not None for r in _requests(case))
    if gate == "DRAPrioritizedList":
        return any(r.get("firstAvailable") for r in _requests(case))
    if gate == "DRADeviceTaints":
        return bool(_objects(case, "DeviceTaintRule")) or any(d.get("taints") for d in _devices(case)) \
            or any(r.get("tolerations") for r in _requests(case))
    return True


def has_list_attributes(case: dict) -> bool:
    return any(isinstance(v, dict) and any(k in v for k in _LIST_KINDS)
               for d in _devices(case) for v in (d.get("attributes") or {}).values())


def sort_key(name: str) -> tuple:
    return (0, (0, 0)) if name == SNAPSHOT else (1, version_tuple(name))
