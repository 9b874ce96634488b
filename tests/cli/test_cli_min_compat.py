"""--min-compatibility-version on validate, allocate, env and capacity (not only `dractl gates`):
gate defaults that depend on it (component-base `featureSpecAtEmulationAndMinCompatVersion`) and
the components' range check (`effectiveVersion.Validate`)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run

# A 1.37 slice whose shareable capacity has a fractional validRange (KEP-5075 + the 1.37
# DRAFractionalCapacityRange gate, which defaults off at the default min compatibility 1.36).
FRACTIONAL_SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: cpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  nodeName: n1
  devices:
  - name: cpu0
    allowMultipleAllocations: true
    capacity:
      cores:
        value: "4"
        requestPolicy:
          default: "500m"
          validRange: {min: "500m", max: "4", step: "250m"}
"""

# Five pods of 750m each: with milli-unit range arithmetic 5 x 750m fit into 4 cores; with the
# gate off the range is whole units (min 1, step 1), every request rounds up to 1, and only 4 fit.
FIVE_PODS = """apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "cpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: cores, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: c
        exactly:
          deviceClassName: cpu
          capacity: {requests: {cores: "750m"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: w, namespace: default}
spec:
  replicas: 5
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      resourceClaims: [{name: c, resourceClaimTemplateName: cores}]
      containers: [{name: x, image: x, resources: {claims: [{name: c}]}}]
"""


@pytest.fixture
def files(tmp_path):
    slice_file = tmp_path / "slice.yaml"
    slice_file.write_text(FRACTIONAL_SLICE)
    pods = tmp_path / "pods.yaml"
    pods.write_text(FIVE_PODS)
    return str(slice_file), str(pods)


def test_validate_follows_min_compatibility_version(files):
    slice_file, _ = files
    default = run("validate", "--no-config", "-o", "json", slice_file)
    assert default.code == 0 and "DRA1236" in default.out  # gate off: the fractional range warning
    newer = run("validate", "--no-config", "-o", "json", "--min-compatibility-version", "1.37", slice_file)
    assert newer.code == 0 and "DRA1236" not in newer.out
    # The 1.36 spec is what --min-compatibility-version 1.36 (the default) gives, spelled out.
    spelled = run("validate", "--no-config", "-o", "json", "--min-compatibility-version", "v1.36.4", slice_file)
    assert spelled.out == default.out


def test_allocate_follows_min_compatibility_version(files):
    default = run("allocate", "--no-config", "-o", "json", *files)
    summary = json.loads(default.out)["summary"]
    assert default.code == 1 and (summary["scheduled"], summary["unschedulable"]) == (4, 1)
    newer = run("allocate", "--no-config", "-o", "json", "--min-compatibility-version", "1.37", *files)
    summary = json.loads(newer.out)["summary"]
    assert newer.code == 0 and (summary["scheduled"], summary["unschedulable"]) == (5, 0)
    # The same through a config-free text run: each claim consumed 750m, not a whole core.
    text = run("allocate", "--no-config", "--min-compatibility-version", "1.37", *files)
    assert "cores=750m" in text.out and "cores=1\n" not in text.out


def test_gate_dependencies_follow_the_min_compatibility_default(files):
    slice_file, _ = files
    # At min compatibility 1.36 DRAFractionalCapacityRange is off, so turning off what it depends on
    # is fine; at 1.37 it is on, and the component refuses the combination.
    ok = run("validate", "--no-config", "--feature-gates", "DRAConsumableCapacity=false", slice_file)
    assert ok.code in (0, 1), ok.err
    refused = run("validate", "--no-config", "--feature-gates", "DRAConsumableCapacity=false",
                  "--min-compatibility-version", "1.37", slice_file)
    assert refused.code == 2
    assert ("DRAFractionalCapacityRange is enabled, but depends on features that are disabled: "
            "[DRAConsumableCapacity]") in refused.err


@pytest.mark.parametrize("args, message", [
    (["--min-compatibility-version", "1.38"],
     "minCompatibilityVersion version 1.38 is not between [1.34.0, 1.37]"),
    (["--min-compatibility-version", "1.33"],
     "minCompatibilityVersion version 1.33 is not between [1.34.0, 1.37]"),
    (["--kube-version", "1.36", "--min-compatibility-version", "1.37"],
     "minCompatibilityVersion version 1.37 is not between [1.33.0, 1.36]"),
    (["--min-compatibility-version", "latest"], "not a Kubernetes version"),
])
def test_out_of_range_is_the_components_error(files, args, message):
    for command in ("validate", "allocate", "env", "capacity"):
        r = run(command, "--no-config", *args, files[0])
        assert r.code == 2 and message in r.err, (command, r.err)


def test_upgrade_check_checks_every_release(files):
    r = run("validate", "--no-config", "--kube-version", "1.36,1.37", "--min-compatibility-version", "1.37",
            files[0])
    assert r.code == 2 and "[1.33.0, 1.36]" in r.err
    both = run("validate", "--no-config", "--kube-version", "1.37,1.38", "--min-compatibility-version", "1.37",
               "-o", "json", files[0])
    assert both.code == 0, both.err
