"""Every real-world manifest (../shared/realworld, see its INDEX.md) through the whole validate
pipeline: files that target a served apiVersion have no error unless they are known to be
invalid, and every known-invalid file is caught. Both directions are checked, so a rule that
starts rejecting good manifests fails here as much as one that stops catching bad ones."""

from __future__ import annotations

from pathlib import Path

from realworld_corpus import REALWORLD, require_realworld

from dractl.api.versions import parse_feature_gates
from dractl.load.loader import load_paths
from dractl.validate.pipeline import validate_documents

# Every gate that a manifest in the corpus may need, so that only real defects remain.
ALL_GATES = ("DRAListTypeAttributes=true,GenericWorkload=true,DRAWorkloadResourceClaims=true,"
             "DRANodeAllocatableResources=true,DRAConsumableCapacity=true,"
             "DRAPartitionableDevices=true,DRADeviceTaints=true,DRADeviceTaintRules=true,"
             "DRADeviceBindingConditions=true,DRAExtendedResource=true")

# Invalid on Kubernetes 1.37, each for the reason given (INDEX.md unless noted).
INVALID = {
    # All-fields round-trip fixtures: placeholder values, semantically invalid.
    "api/testdata/HEAD/resource.k8s.io.v1.DeviceClass.yaml": "fixture",
    "api/testdata/HEAD/resource.k8s.io.v1.ResourceClaim.yaml": "fixture",
    "api/testdata/HEAD/resource.k8s.io.v1.ResourceClaimTemplate.yaml": "fixture",
    "api/testdata/HEAD/resource.k8s.io.v1.ResourceSlice.yaml": "fixture",
    "api/testdata/HEAD/resource.k8s.io.v1beta1.ResourceSlice.yaml": "fixture",
    "api/testdata/HEAD/resource.k8s.io.v1beta2.ResourceSlice.yaml": "fixture",
    # INDEX.md calls the Pod schema-valid, but `resourceClaims[].source` left core/v1 in 1.31.
    "dra-driver-nvidia-gpu/demo/specs/selectors/pods.yaml": "removed field source",
    "dra-example-driver/demo/examples/device-taints-tolerations/device-taint-pod-noschedule/"
    "4-pod-not-scheduled.yaml": "no apiVersion",
    "enhancements/keps/sig-scheduling/4815-dra-partitionable-devices/README.md.L682-L754.yaml":
        "counter-only slice without node selection",
    "enhancements/keps/sig-scheduling/4815-dra-partitionable-devices/README.md.L791-L923.yaml":
        "duplicate names, IN operator, dangling counter sets",
    # (monitor-pod-inline.yaml's device tolerations `{effect: NoExecute}` are valid: the
    # "operator must be Exists when key is empty" rule is core's, for Pod tolerations only.)
    "intel-resource-drivers-for-kubernetes/deployments/gpu/examples/pod-inline-aligned-gpus.yaml":
        "lower-case keys (apiversion)",
    "k8s-gpu-dra-driver/docs/demo.md.L72-L108.yaml": "trimmed slice",
    "kubernetes/test/e2e/dra/test-driver/deploy/example/pod-external.yaml": "pre-1.28 Pod shape",
    "website/content/en/examples/dra/resourceclaim.yaml": "mis-indented expression",
    # A bats test spec: `__INDEX__` is replaced before it is applied (not a DNS subdomain).
    "dra-driver-nvidia-gpu/tests/bats/specs/pods-shared-gpu.yaml": "template",
    # Go templates of scheduler_perf: `{{.Index}}` is not a valid name until rendered.
    "kubernetes/test/integration/scheduler_perf/dra/templates/pod-in-podgroup-with-claim-template.yaml":
        "template",
    "kubernetes/test/integration/scheduler_perf/dra/templates/podgroup-with-claim-template.yaml": "template",
    "kubernetes/test/integration/scheduler_perf/dra/templates/resourceslice-compatibilitygroups-devices.yaml":
        "template",
    "kubernetes/test/integration/scheduler_perf/dra/templates/resourceslice-consumablecapacity.yaml":
        "template",
    "kubernetes/test/integration/scheduler_perf/dra/templates/resourceslice-partitionable-countersets.yaml":
        "template",
    "kubernetes/test/integration/scheduler_perf/dra/templates/resourceslice-partitionable-devices.yaml":
        "template",
}

# Only errors: an apiVersion or kind that 1.37 does not serve (classic DRA v1alpha2, v1alpha3
# claims and slices, the 1.36 PodGroup v1alpha2, the 1.26 ResourceClass); checked separately below.
NOT_SERVED_ONLY = {"DRA0105", "DRA0004"}


def _files():
    require_realworld()
    return sorted(p for p in REALWORLD.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))


def _errors(path: Path, version: str) -> set[str]:
    gates = parse_feature_gates(ALL_GATES, version)
    result = validate_documents(load_paths([str(path)]), gates)
    return {f.code for f in result.findings if f.severity == "error"}


def test_realworld_manifests_on_1_37():
    files = _files()
    assert len(files) > 100
    unexpected, missed = [], []
    for path in files:
        rel = path.relative_to(REALWORLD).as_posix()
        codes = _errors(path, "1.37")
        real = codes - NOT_SERVED_ONLY
        if rel in INVALID:
            if not real:
                missed.append(f"{rel}: expected an error ({INVALID[rel]})")
        elif real:
            unexpected.append(f"{rel}: {sorted(real)}")
    assert unexpected == []
    assert missed == []


def test_podgroup_demo_is_valid_on_1_36():
    path = REALWORLD / ("dra-example-driver/demo/examples/podgroup-resourceclaimtemplate/"
                        "podgroup-resourceclaimtemplate.yaml")
    if not path.exists():
        _files()
    assert _errors(path, "1.36") == set()
    assert _errors(path, "1.37") == {"DRA0105"}  # scheduling.k8s.io/v1alpha2 is gone in 1.37
