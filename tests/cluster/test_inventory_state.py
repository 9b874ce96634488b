"""Inventory is cluster state (docs/decisions/0003-inventory-is-cluster-state.md). Objects given
with -i (or with a status) are validated and reported, but only findings on what the allocator reads
leave them out of the dry run; findings on -i objects are warnings unless --strict-inventory."""

from __future__ import annotations

import json
from pathlib import Path

from realworld_corpus import REALWORLD, require_realworld
from typer.testing import CliRunner

from dractl.cli.app import app
from dractl.findings import ERROR, Finding
from dractl.validate.pipeline import deduplicate, makes_unusable

REPO = Path(__file__).resolve().parents[2]
INVENTORIES = REPO / "tests" / "golden" / "inventories"
DUMP = str(INVENTORIES / "eks-a100-like.yaml")
CLAIM = str(INVENTORIES / "eks-a100-allocated-claim.yaml")

WORKLOAD = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: workers}
spec:
  replicas: REPLICAS
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      containers:
      - name: c
        image: x
        resources: {claims: [{name: g}]}
      resourceClaims:
      - {name: g, resourceClaimTemplateName: one-gpu}
"""


def run(args: list[str], tmp_path: Path, replicas: int = 7):
    workload = tmp_path / "workload.yaml"
    workload.write_text(WORKLOAD.replace("REPLICAS", str(replicas)))
    result = CliRunner().invoke(app, args + ["--no-config", "-o", "json", str(workload)])
    return result.exit_code, json.loads(result.stdout)


def devices(report: dict, status: str = "Allocated") -> list[str]:
    out = []
    for claim in report["claims"]:
        if claim["status"] == status:
            out += [r["device"] for r in claim["allocation"]["devices"]["results"]]
    return out


def test_trimmed_dump_and_allocated_claim_are_used(tmp_path):
    code, report = run(["allocate", "-i", DUMP, "-i", CLAIM], tmp_path)
    assert code == 0
    assert {p["status"] for p in report["pods"]} == {"Scheduled"}
    # gpu-6 is held by the allocated claim of the inventory: the 7 new pods get the other 7.
    assert sorted(devices(report)) == ["gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-7"]
    findings = report["findings"]
    assert findings and all(f["severity"] == "warning" for f in findings)
    fields = sorted(f["field"] for f in findings if f["code"] != "DRA0106")
    # Each missing uid or lastTransitionTime once, by one code.
    assert fields == ["metadata.ownerReferences[0].uid", "metadata.ownerReferences[0].uid",
                      "status.devices[0].conditions[0].lastTransitionTime",
                      "status.reservedFor[0].uid"]
    held = [c for c in report["claims"] if c["status"] == "AlreadyAllocated"]
    assert [c["reasons"] for c in held] == [[]]
    assert devices(report, "AlreadyAllocated") == ["gpu-6"]


def test_eighth_pod_is_unschedulable_because_the_claim_holds_gpu_6(tmp_path):
    code, report = run(["allocate", "-i", DUMP, "-i", CLAIM], tmp_path, replicas=8)
    assert code == 1
    assert [p["status"] for p in report["pods"]].count("Scheduled") == 7


def test_strict_inventory_keeps_errors_errors(tmp_path):
    code, report = run(["allocate", "--strict-inventory", "-i", DUMP, "-i", CLAIM], tmp_path)
    assert code == 1  # validation errors count, although every pod is placed
    assert {p["status"] for p in report["pods"]} == {"Scheduled"}
    assert any(f["severity"] == "error" for f in report["findings"])


def test_unusable_inventory_object_is_reported_once_with_its_place(tmp_path):
    trimmed = require_realworld(REALWORLD / "k8s-gpu-dra-driver" / "docs" / "demo.md.L72-L108.yaml")
    code, report = run(["allocate", "-i", str(trimmed), "-i", DUMP, "-i", CLAIM], tmp_path,
                       replicas=1)
    assert code == 0
    left = [r for r in report["reasons"] if r["code"] == "DRA7001"]
    assert len(left) == 1
    assert f"{trimmed}:1 was left out: invalid (DRA0103, DRA1205)" in left[0]["message"]
    assert "1 device(s) are not counted" in left[0]["message"]
    driver = [f for f in report["findings"] if f["field"] == "spec.driver"]
    assert len(driver) == 1 and "Required value" in driver[0]["message"]


def finding(path, code="DRA0103", message="Required value"):
    return Finding(ERROR, code, f"{'.'.join(map(str, path))}: {message}", tuple(path))


def test_makes_unusable_for_inventory_objects():
    meta = finding(("metadata", "ownerReferences", 0, "uid"))
    reserved = finding(("status", "reservedFor", 0, "uid"))
    allocation = finding(("status", "allocation", "devices", "results", 0, "pool"))
    spec = finding(("spec", "driver"))
    unknown = finding(("spec", "devices", 0, "basic"), code="DRA0101", message="unknown field")
    assert makes_unusable(meta) and makes_unusable(spec)          # a manifest: every error
    assert not makes_unusable(meta, inventory=True, kind="ResourceSlice")
    assert not makes_unusable(reserved, inventory=True, kind="ResourceClaim")
    assert not makes_unusable(unknown, inventory=True, kind="ResourceSlice")
    assert makes_unusable(allocation, inventory=True, kind="ResourceClaim")
    assert makes_unusable(spec, inventory=True, kind="ResourceSlice")


def test_same_field_reported_once():
    found = [finding(("spec", "pool")), finding(("spec", "pool", "name"), "DRA1202"),
             finding(("spec", "pool", "resourceSliceCount"), "DRA1203", "Invalid value: 0"),
             finding(("spec", "driver"), "DRA1201", 'Invalid value: ""'),
             finding(("spec", "driver"), "DRA1201"),
             finding(("spec",), "DRA1205", "Required value: exactly one of ..."),
             finding(("spec", "devices", 0, "attributes", "a"), "DRA1216", "exactly one value"),
             finding(("spec", "devices", 0, "attributes", "a", "strings"), "DRA1910", "gate")]
    kept = [(f.code, f.path) for f in deduplicate(found)]
    assert kept == [("DRA0103", ("spec", "pool")), ("DRA1201", ("spec", "driver")),
                    ("DRA1205", ("spec",)),
                    ("DRA1910", ("spec", "devices", 0, "attributes", "a", "strings"))]
