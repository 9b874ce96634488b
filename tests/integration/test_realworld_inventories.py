"""Every real inventory of the third-party corpus (tests/realworld_corpus.py) used as published (with
-i, findings and all) schedules the pods that INDEX.md says fit on the devices it names.

Not here: the cloud dumps of kubernetes-sigs/dranet (INV-AWS-A100, INV-AWS-EFA, AKS, OCI, GKE),
which INDEX.md lists but the shared corpus does not hold (its dranet/ directory is missing);
tests/cluster uses a dump shaped like INV-AWS-A100 instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from realworld_corpus import REALWORLD, require_realworld
from typer.testing import CliRunner

from dractl.cli.app import app

INTEL = "intel-resource-drivers-for-kubernetes/"
INTEL_GPU = [INTEL + "doc/gpu/USAGE.md.L93-L170.yaml", INTEL + "deployments/gpu/base/device-class.yaml"]
GAUDI = [INTEL + "doc/gaudi/USAGE.md.L85-L133.yaml", INTEL + "deployments/gaudi/base/device-class.yaml"]
CPU_CLASS = "dra-driver-cpu/manifests/base/deviceclass-dracpu.part.yaml"
CPU_GROUPED = ["dra-driver-cpu/docs/user/device-attributes.md.L84-L142.yaml", CPU_CLASS]
CPU_KIND = ["dra-driver-cpu/docs/user/feature-support.md.L127-L170.yaml", CPU_CLASS]
EXAMPLE = ["dra-example-driver/README.md.L189-L320.yaml",
           "website/content/en/examples/dra/driver-install/deviceclass.yaml"]
TPU = ["dra-driver-google-tpu/README.md.L66-L105.yaml"]
TPU_CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: tpu.google.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'tpu.google.com'"}
"""

# (inventory, workload, {request: [devices]} of the claims the workload's pods get) from INDEX.md
CASES = [
    (INTEL_GPU, INTEL + "deployments/gpu/examples/pod-inline-gpu.yaml", ["0000-00-02-0-0x7d67"]),
    (INTEL_GPU, INTEL + "deployments/gpu/tests/memory-selector/memory-selector-pod.yaml",
     ["0000-04-00-0-0xe211"]),
    (INTEL_GPU, INTEL + "deployments/gpu/tests/multi-gpu/multi-gpu-pod.yaml",
     ["0000-00-02-0-0x7d67", "0000-04-00-0-0xe211"]),
    (INTEL_GPU, INTEL + "deployments/gpu/tests/driver-selector/driver-selector-pod.yaml",
     ["0000-00-02-0-0x7d67"]),
    (INTEL_GPU, INTEL + "deployments/gpu/tests/sriov-check/sriov-check-pod.yaml",
     ["0000-00-02-0-0x7d67"]),
    # Both classes installed (the second alternative names the Gaudi class).
    (INTEL_GPU + GAUDI[1:], INTEL + "deployments/gpu/examples/pod-inline-first-available.yaml",
     ["0000-00-02-0-0x7d67"]),
    (GAUDI, INTEL + "deployments/gaudi/examples/pod-inline.yaml", ["0000-a0-00-0-0x1020"]),
    (CPU_GROUPED, "dra-driver-cpu/hack/examples/pod_with_resource_claim_grouped_mode.yaml",
     ["cpudevnuma000"]),
    (CPU_KIND, "dra-driver-cpu/hack/examples/pod_with_resource_claim_grouped_mode.yaml",
     ["cpudevnuma000"]),
    (EXAMPLE, "website/content/en/examples/dra/dra-device-metadata-pod.yaml", ["gpu-0"]),
    (TPU, "dra-driver-google-tpu/demo/specs/tpu-test.yaml", ["accel0", "accel1"]),
]


@pytest.mark.parametrize("inventory,workload,expected", CASES,
                         ids=[Path(c[1]).name + "@" + Path(c[0][0]).name for c in CASES])
def test_real_inventory_as_published(inventory, workload, expected, tmp_path):
    require_realworld()
    args = ["allocate", "--no-config", "-o", "json"]
    for path in inventory:
        args += ["-i", str(REALWORLD / path)]
    if inventory is TPU:
        (tmp_path / "class.yaml").write_text(TPU_CLASS)
        args += ["-i", str(tmp_path / "class.yaml")]
    result = CliRunner().invoke(app, args + [str(REALWORLD / workload)])
    report = json.loads(result.stdout)
    assert result.exit_code == 0, report
    assert {p["status"] for p in report["pods"]} == {"Scheduled"}
    got = [r["device"] for c in report["claims"] if c["status"] == "Allocated"
           for r in c["allocation"]["devices"]["results"]]
    assert sorted(got) == sorted(expected)
    # Inventory findings are reported, as warnings: the objects exist in the cluster.
    inventory_files = {str(REALWORLD / p) for p in inventory}
    assert all(f["severity"] == "warning" for f in report["findings"] if f["file"] in inventory_files)


def test_kep4815_counter_slice_is_left_out_once_and_said_so():
    require_realworld()
    dump = REALWORLD / "enhancements/keps/sig-scheduling/4815-dra-partitionable-devices/README.md.L682-L754.yaml"
    result = CliRunner().invoke(app, ["allocate", "--no-config", "-o", "json", "-i", str(dump)])
    report = json.loads(result.stdout)
    left = [r["message"] for r in report["reasons"] if r["code"] == "DRA7001"]
    assert left == [f"1 ResourceSlice of resource-driver.example.com at {dump}:1 was left out: "
                    "invalid (DRA1205); counter set(s) gpu-0-counter-set are missing from their "
                    "pool, so devices that consume them make the pool invalid"]
