"""Feature gates: the data file (dractl/api/gates.json), `dractl gates`, and --feature-gates
answering like a Kubernetes component (component-base featuregate messages)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

from dractl.api.versions import GATE_RELEASES, GateError, parse_feature_gates

GATES_JSON = Path(__file__).resolve().parents[2] / "dractl" / "api" / "gates.json"


def _vt(v: str) -> tuple:
    return tuple(int(x) for x in v.split("."))


def _expected(version: str, min_compat: str) -> dict:
    """An independent reading of the data file: newest spec <= version, minCompat specs only when
    the min-compatibility version reaches them, nothing at/after `removed`."""
    out = {}
    for name, entry in json.loads(GATES_JSON.read_text())["gates"].items():
        assert entry["source"], f"{name}: every row names its source"
        if entry.get("removed") and _vt(version) >= _vt(entry["removed"]):
            continue
        usable = [s for s in entry["specs"] if _vt(s["version"]) <= _vt(version)
                  and (not s.get("minCompat") or _vt(min_compat) >= _vt(s["minCompat"]))]
        if usable:
            s = usable[-1]
            out[name] = (s["stage"], s["default"], bool(s.get("locked")))
    return out


@pytest.mark.parametrize("version", GATE_RELEASES)
def test_gates_json_output_is_the_data_file(version):
    r = run("gates", "--kube-version", version, "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    prev = f"1.{int(version.split('.')[1]) - 1}"
    assert doc["minCompatibilityVersion"] == prev
    assert doc["preview"] == (version == "1.38")
    got = {g["name"]: (g["stage"].lower(), g["default"], g["locked"]) for g in doc["gates"]}
    assert got == _expected(version, prev)


def test_release_facts_checked_upstream():
    def gate(version, name, *extra):
        doc = json.loads(run("gates", "--kube-version", version, "-o", "json", *extra).out)
        return {g["name"]: g for g in doc["gates"]}.get(name)
    assert gate("1.36", "DRAPrioritizedList")["locked"] is False          # GA, not locked in 1.36
    assert gate("1.37", "DRAPrioritizedList")["locked"] is True
    assert gate("1.37", "DRAResourceClaimDeviceStatus")["locked"] is True
    assert gate("1.37", "DRAFractionalCapacityRange")["default"] is False
    assert gate("1.37", "DRAFractionalCapacityRange", "--min-compatibility-version", "1.37")["default"] is True
    assert gate("1.36", "GangScheduling") is not None and gate("1.37", "GangScheduling") is None
    assert gate("1.38", "DynamicResourceAllocation") is None
    assert gate("1.38", "DRADeviceTaints")["locked"] is True


def test_version_forms_and_text_table():
    for form in ("1.37.2", "v1.37", "1.37.0-rc.1"):
        r = run("gates", "--kube-version", form)
        assert r.code == 0 and r.out.startswith("Kubernetes 1.37,"), (form, r.err)
    preview = run("gates", "--kube-version", "1.38")
    assert "preview" in preview.out.splitlines()[0]
    bad = run("gates", "--kube-version", "1.33")
    assert bad.code == 2 and "1.33" in bad.err


@pytest.mark.parametrize("text, message", [
    ("GangScheduling=true", "unrecognized feature gate: GangScheduling (removed in Kubernetes 1.37, merged into GenericWorkload)"),
    ("DRADerivedAttribute=true", "unrecognized feature gate: DRADerivedAttribute (did you mean DRADerivedAttributes?)"),
    ("dradevicetaints=true", "(did you mean DRADeviceTaints?)"),
    ("DRAPrioritizedList=false", "cannot set feature gate DRAPrioritizedList to false, feature is locked to true"),
    ("DRAWorkloadResourceClaims=true",
     "DRAWorkloadResourceClaims is enabled, but depends on features that are disabled: [GenericWorkload]"),
    ("DRAAdminAccess", "missing bool value for DRAAdminAccess"),
    ("DRAAdminAccess=yes", 'invalid value of DRAAdminAccess=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'),
])
def test_feature_gate_errors_in_1_37(text, message):
    with pytest.raises(GateError) as caught:
        parse_feature_gates(text, "1.37")
    assert message in str(caught.value)


def test_feature_gates_accepted_forms():
    gates = parse_feature_gates("DRADerivedAttributes=True, GenericWorkload=1,DRAWorkloadResourceClaims=t", "1.37")
    assert gates.enabled("DRADerivedAttributes") and gates.enabled("DRAWorkloadResourceClaims")
    # GA and not locked in 1.36: turning it off is accepted there.
    assert not parse_feature_gates("DRAPrioritizedList=false", "1.36").enabled("DRAPrioritizedList")
    # The CLI reports the component's message as a usage error.
    r = run("validate", "--feature-gates", "DRADerivedAttribute=true", str(GATES_JSON.parent / "gates.json"))
    assert r.code == 2 and "did you mean DRADerivedAttributes?" in r.err
