"""Runs every case of the allocator conformance corpus (testdata/conformance/FORMAT.md) through dractl's allocator.

The corpus lives in the repository (`testdata/conformance/`, first copied from the project's shared
corpus; new cases are added there), so a fresh clone runs every case. DRACTL_CONFORMANCE points the
suite at another copy instead (for example a newer shared corpus before it is copied in).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from dractl.allocator import Allocator, Compat
from dractl.api.quantity import Quantity
from dractl.api.resource import DeviceClass, ResourceClaim, ResourceSlice, DeviceTaintRule
from dractl.api.versions import ALLOCATOR_GATES, FeatureGates

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("allocator", "random", "random2", "v137")
# Least sizes of each folder (the corpus as first copied in); a run that finds fewer cases is
# broken, not green. Cases are added to the folders, never removed.
EXPECTED_COUNTS = {"allocator": 161, "random": 100, "random2": 1001, "v137": 28}
# Kubernetes 1.37 gates a case of v137/ may set as well (see v137/README.md); like the others,
# every one a case does not name is set OFF.
GATES_1_37 = ("DRADerivedAttributes", "DRADeviceCompatibilityGroups", "DRAOptionalNodeOperations",
              "DRAFractionalCapacityRange")


def _corpus_root() -> Path:
    if os.environ.get("DRACTL_CONFORMANCE"):
        return Path(os.environ["DRACTL_CONFORMANCE"])
    return REPO / "testdata" / "conformance"


ROOT = _corpus_root()
_yaml = YAML(typ="safe", pure=True)


def _case_files() -> list[Path]:
    return [p for folder in FOLDERS for p in sorted((ROOT / folder).glob("*.yaml"))]


CASES = _case_files()


def test_corpus_present_and_complete():
    for folder, expected in EXPECTED_COUNTS.items():
        assert (ROOT / folder).is_dir(), f"conformance corpus folder missing: {ROOT / folder}"
        found = len(list((ROOT / folder).glob("*.yaml")))
        assert found >= expected, f"{folder}/: expected at least {expected} cases, found {found}"


def _load(path: Path) -> dict:
    with path.open() as fh:
        return _yaml.load(fh)


def _gates(case: dict) -> FeatureGates:
    given = case.get("features") or {}
    allowed = ALLOCATOR_GATES + GATES_1_37
    unknown = set(given) - set(allowed)
    assert not unknown, f"case uses gates outside {allowed}: {sorted(unknown)}"
    return FeatureGates(overrides={g: bool(given.get(g, False)) for g in allowed})


def _compat(case: dict) -> Compat:
    """The corpus describes the 3d03671 snapshot (compat switches off); a v137/ case that names a
    `kubeVersion` describes that release, with the fixes it ships (features.Compat.for_release)."""
    version = case.get("kubeVersion")
    return Compat.for_release(str(version)) if version else Compat()


def run_case(case: dict):
    gates = _gates(case)
    classes, slices, claims, rules = [], [], [], []
    for doc in case.get("objects") or []:
        kind = doc.get("kind")
        if kind == "DeviceClass":
            classes.append(DeviceClass.from_dict(doc))
        elif kind == "ResourceSlice":
            slices.append(ResourceSlice.from_dict(doc))
        elif kind == "ResourceClaim":
            claims.append(ResourceClaim.from_dict(doc))
        elif kind == "DeviceTaintRule":
            rules.append(DeviceTaintRule.from_dict(doc))
        else:
            raise AssertionError(f"unexpected object kind {kind!r}")
    by_name = {(c.namespace or "default", c.name): c for c in claims}
    to_allocate = [by_name[("default", name)] for name in case.get("allocate") or []]
    allocated = [c for c in claims if c.allocation is not None]
    allocator = Allocator(gates, classes, slices, allocated, rules, compat=_compat(case))
    return allocator.allocate(case["node"], to_allocate)


def _norm_result(entry: dict) -> dict:
    out = dict(entry)
    if "shareID" in out:
        out["shareID"] = "<present>"
    if "consumedCapacity" in out:
        out["consumedCapacity"] = {k: Quantity.parse(v).canonical() for k, v in out["consumedCapacity"].items()}
    if "tolerations" in out:
        out["tolerations"] = [{k: v for k, v in t.items()} for t in out["tolerations"]]
        for t in out["tolerations"]:
            t.setdefault("operator", "Equal")
    return out


def _norm_config(entry: dict) -> dict:
    out = dict(entry)
    if not out.get("requests"):
        out.pop("requests", None)
    return out


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_case(path: Path):
    case = _plain(_load(path))
    expect = case["expect"]
    outcome = run_case(case)
    detail = f"got {outcome.status}" + (f": {outcome.error}" if outcome.error else "")
    assert outcome.status == expect["outcome"], f"{path.name}: expected {expect['outcome']}, {detail}"

    if expect["outcome"] == "error":
        fragment = expect.get("errorContains")
        if fragment:
            assert fragment in outcome.error, f"error {outcome.error!r} does not contain {fragment!r}"
        return
    if expect["outcome"] != "allocated":
        return

    allocations = expect.get("allocations") or []
    assert [a["claim"] for a in allocations] == [c.name for c in outcome.claims]
    for want, got, claim in zip(allocations, outcome.results, outcome.claims):
        got_dict = got.to_dict()
        got_devices = [_norm_result(r) for r in got_dict["devices"]["results"]]
        want_devices = [_norm_result(r) for r in want.get("devices") or []]
        assert got_devices == want_devices, f"claim {claim.name}: device results differ"
        assert got_dict.get("nodeSelector") == want.get("nodeSelector"), f"claim {claim.name}: nodeSelector differs"
        got_config = [_norm_config(c) for c in got_dict["devices"].get("config", [])]
        want_config = [_norm_config(c) for c in want.get("config") or []]
        assert got_config == want_config, f"claim {claim.name}: config differs"
