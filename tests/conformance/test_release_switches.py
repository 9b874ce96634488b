"""Every switch of the release table (dractl/api/releases.py) observed on both sides of its release.

For each switch a probe runs real dractl code (the allocator on a conformance case, the dry run,
the API-server rules, the CEL engine, the metadata helper, the --feature-gates parser) under a
release and reports whether the switch's new behaviour showed. It must show exactly in the
releases the table says ship the switch, and not show in the others. A switch that every release
dractl models ships (a fix cherry-picked into every branch) is also run with the switch off, as
the 3d03671 snapshot had it. `test_every_switch_has_a_probe` keeps the table and the probes in
step.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conformance_releases import home_context
from test_allocator_conformance import ROOT, _load, mismatch, run_case

from dractl.api.releases import ALLOCATOR, CHANGES, change, in_force
from dractl.api.versions import KUBE_VERSIONS, GateError, gate_specs, parse_feature_gates

# -- helpers ---------------------------------------------------------------------------------------


def settable(version: str, *gates: str) -> str:
    """--feature-gates turning on each gate the release has and lets be set."""
    specs = gate_specs(version)
    return ",".join(f"{g}=true" for g in gates if g in specs and not specs[g].locked)


def validate(tmp_path: Path, text: str, version: str, gates: str = "") -> list:
    from dractl.load.loader import load_paths
    from dractl.validate.pipeline import validate_documents

    path = tmp_path / f"in-{version}.yaml"
    path.write_text(text)
    return validate_documents(load_paths([str(path)]), parse_feature_gates(gates, version)).findings


def codes(tmp_path: Path, text: str, version: str, gates: str = "") -> set[str]:
    return {f.code for f in validate(tmp_path, text, version, gates)}


def dry_run(tmp_path: Path, text: str, version: str, gates: str = ""):
    from dractl.load.loader import load_paths
    from dractl.simulate.scheduler import Options, simulate
    from dractl.validate.pipeline import validate_documents

    path = tmp_path / f"run-{version}.yaml"
    path.write_text(text)
    fg = parse_feature_gates(gates, version)
    validated = validate_documents(load_paths([str(path)]), fg)
    return simulate(validated.documents, fg, Options(), validated.invalid)


# -- the allocator: each switch flips a conformance case that names its PR --------------------------

ALLOCATOR_CASES = {
    "release_reserved_state": "v137/compat-1.36-counters-released-after-taint-rejection.yaml",
    "distinct_all_devices": "v137/compat-1.37-distinct-attribute-every-device.yaml",
    "claim_limit_overflow_safe": "v138/claim-limit-sum-wraps-negative-after-141307.yaml",
    "shared_device_not_exclusive": "v138/shared-device-exclusive-after-140798.yaml",
    "qualified_capacity_names": "v138/capacity-qualified-request-after-142202.yaml",
}


def allocator_probe(name: str, value: bool | None, version: str) -> bool:
    """The case's expectation (which needs the fix) holds with the switch as `version` ships it
    (or as `value` forces it)."""
    from dractl.allocator import Compat

    case = _load(ROOT / ALLOCATOR_CASES[name])
    home = home_context(case)
    shipped = getattr(Compat.for_release(version), name) if value is None else value
    ctx = replace(home, compat=replace(home.compat, **{name: shipped}))
    return mismatch(case, run_case(case, ctx)) is None


# -- kube-scheduler plugins, the claim controller, the inventory ------------------------------------

def nodes_and_slices(models: dict[str, str], slice_count: int = 1) -> str:
    parts = []
    for name, model in models.items():
        count = slice_count if name == "n1" else 1
        parts.append(f"""apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}-devs}}
spec:
  driver: gpu.example.com
  nodeName: {name}
  pool: {{name: {name}, generation: 1, resourceSliceCount: {count}}}
  devices:
  - name: dev-0
    attributes:
      model: {{string: {model}}}
""")
    parts.append("""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
""")
    return "---\n".join(parts)


def pod_with_claim(requests: str) -> str:
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: c, namespace: default}}
spec:
  devices:
    requests:
{requests}---
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  resourceClaims: [{{name: c, resourceClaimName: c}}]
  containers:
  - name: c
    image: busybox
    resources: {{claims: [{{name: c}}]}}
"""


EXACT = "    - name: gpu\n      exactly: {deviceClassName: gpu}\n"


def probe_prioritized_list_score(tmp_path, version):
    requests = """    - name: gpu
      firstAvailable:
      - {name: big, deviceClassName: gpu, selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "big"'}}]}
      - {name: small, deviceClassName: gpu, selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "small"'}}]}
"""
    text = nodes_and_slices({"n1": "small", "n2": "big"}) + "---\n" + pod_with_claim(requests)
    plan = dry_run(tmp_path, text, version, settable(version, "DRAPrioritizedList"))
    return plan.pods[0].node == "n2"     # scored: the node where the first choice fits


def probe_filter_timeout_is_error(tmp_path, version, monkeypatch):
    from dractl.allocator import Allocator
    from dractl.allocator.results import ERROR, AllocationOutcome

    def allocate(self, node, claims, *, timeout=None, **kwargs):
        return AllocationOutcome(ERROR, tuple(claims), error="filter operation aborted: timed out",
                                 timed_out=True)
    monkeypatch.setattr(Allocator, "allocate", allocate)
    text = nodes_and_slices({"n1": "big", "n2": "big"}) + "---\n" + pod_with_claim(EXACT)
    return dry_run(tmp_path, text, version).pods[0].reasons[-1].code == "DRA5011"


def probe_all_request_bad_pool_node_only(tmp_path, version):
    requests = "    - name: gpu\n      exactly: {deviceClassName: gpu, allocationMode: All}\n"
    text = nodes_and_slices({"n1": "big", "n2": "big"}, slice_count=2) + "---\n" + pod_with_claim(requests)
    pod = dry_run(tmp_path, text, version).pods[0]
    return (pod.status, pod.node) == ("Scheduled", "n2")


def probe_taint_rule_needs_selector(tmp_path, version):
    rule = """apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {name: maintenance}
spec:
  taint: {key: maintenance, value: "true", effect: NoSchedule}
"""
    text = nodes_and_slices({"n1": "big"}) + "---\n" + rule + "---\n" + pod_with_claim(EXACT)
    plan = dry_run(tmp_path, text, version, settable(version, "DRADeviceTaints", "DRADeviceTaintRules"))
    return plan.pods[0].status == "Scheduled"   # the rule without a selector taints nothing


def probe_node_allocatable_second_alpha(tmp_path, version):
    from dractl.load.loader import load_paths
    from dractl.simulate.plugins.nodeallocatable import slice_node_resources

    path = tmp_path / "slice.yaml"
    path.write_text("""apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: cpus}
spec:
  driver: dra.cpu
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: core-0
    nodeAllocatableResources:
      cpu: {mapping: {deviceMultiplier: "4"}}
""")
    docs = load_paths([str(path)]).documents
    return bool(slice_node_resources(docs, version))   # the plugin reads 1.37's field


def probe_podgroup_claims_withheld(tmp_path, version):
    from tests.simulate.test_workloads import ONE_GPU_TEMPLATE, job, podgroup
    from tests.simulate.test_workloads_137 import GROUP_CLAIM, stored_podgroup_run

    if "GenericWorkload" not in gate_specs(version):
        return False   # no PodGroups at all
    text = "---\n".join([ONE_GPU_TEMPLATE, podgroup("g1", claims=GROUP_CLAIM),
                         job("a", 1, "{name: gpu, resourceClaimTemplateName: one-gpu}", "g1")])
    text = text.replace("scheduling.k8s.io/v1alpha3", podgroup_api_version(version))
    plan = stored_podgroup_run(tmp_path, text, version)
    return any(r.message.endswith("ResourceClaim not created yet") for r in plan.pods[0].reasons)


def podgroup_api_version(version: str) -> str:
    from dractl.validate.schema import SchemaSet

    served = SchemaSet.for_version(version).api_versions_for("PodGroup")
    return served[-1] if served else "scheduling.k8s.io/v1alpha3"


# -- CEL ---------------------------------------------------------------------------------------------

def list_attribute_matches(version: str, gate: bool) -> bool:
    from dractl.api.values import AttributeValue
    from dractl.api.versions import FeatureGates
    from dractl.cel.engine import SelectorEngine
    from dractl.cel.errors import CelRuntimeError

    class Dev:
        key = "l"
        driver = "d.example.com"
        attributes = {"names": AttributeValue("strings", ("a", "b"))}
        capacity: dict = {}
        allow_multiple_allocations = False

    overrides = {"DRAListTypeAttributes": gate} if "DRAListTypeAttributes" in gate_specs(version) else {}
    try:
        return SelectorEngine(FeatureGates(version, overrides)).matches(
            '"a" in device.attributes["d.example.com"].names', Dev())
    except CelRuntimeError:
        return False    # unsupported attribute value


# -- the API server's rules ---------------------------------------------------------------------------

SLICE_HEAD = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d.example.com
  nodeName: n1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
"""


def probe_shared_counters_split(tmp_path, version):
    text = SLICE_HEAD + """  sharedCounters:
  - name: set
    counters: {mem: {value: 1Gi}}
  devices:
  - name: d0
"""
    return "DRA1210" in codes(tmp_path, text, version, settable(version, "DRAPartitionableDevices"))


def probe_device_taints_135(tmp_path, version):
    text = SLICE_HEAD + """  devices:
  - name: d0
    taints: [{key: health, value: degraded, effect: None}]
"""
    return "DRA1224" not in codes(tmp_path, text, version, settable(version, "DRADeviceTaints"))


def probe_attribute_values_limit(tmp_path, version):
    values = ", ".join(f"v{i}" for i in range(49))
    text = SLICE_HEAD + f"""  devices:
  - name: d0
    attributes:
      names: {{strings: [{values}]}}
"""
    return "DRA1219" in codes(tmp_path, text, version, settable(version, "DRAListTypeAttributes"))


def probe_qualified_name_single_slash(tmp_path, version):
    text = SLICE_HEAD + """  devices:
  - name: d0
    attributes:
      a.example.com/b/c: {int: 1}
"""
    return "DRA1215" in codes(tmp_path, text, version)


POD = """apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
"""


def pod_field_kept(tmp_path, version: str, field: str, value: str) -> bool:
    """The release's API server keeps the Pod field: not unknown, not dropped as nonexistent."""
    findings = validate(tmp_path, POD + f"  {field}: {value}\n", version, settable(version, "GenericWorkload"))
    return not any(field in f.message and (f.code == "DRA0101" or "exist" in f.message) for f in findings)


def probe_pod_workload_ref_kept(tmp_path, version):
    return pod_field_kept(tmp_path, version, "workloadRef", "{name: wl, podGroup: workers}")


def probe_pod_scheduling_group(tmp_path, version):
    return pod_field_kept(tmp_path, version, "schedulingGroup", "{podGroupName: g1}")


def probe_podgroup_workload_ref(tmp_path, version):
    if "GenericWorkload" not in gate_specs(version):
        return False
    text = f"""apiVersion: {podgroup_api_version(version)}
kind: PodGroup
metadata: {{name: g1, namespace: default}}
spec:
  schedulingPolicy: {{basic: {{}}}}
  workloadRef: {{workloadName: "", templateName: workers}}
"""
    return "DRA1513" in codes(tmp_path, text, version, settable(version, "GenericWorkload"))


# -- the kubelet plugin helper, component-base -----------------------------------------------------------

def probe_metadata_files_alpha(tmp_path, version):
    from dractl.metadata import MetadataVersionError, parse_versions

    try:
        return bool(parse_versions(None, version))
    except MetadataVersionError:
        return False


def probe_metadata_files_beta(tmp_path, version):
    from dractl.metadata import MetadataVersionError, parse_versions

    try:
        parse_versions("v1alpha1,v9", version)   # an unknown configured version
    except MetadataVersionError as exc:
        return "no device metadata files" not in str(exc)   # fatal: the beta rules
    return False


def probe_gate_dependencies(tmp_path, version):
    for gate, dependency in (("DRAFractionalCapacityRange", "DRAConsumableCapacity"),
                             ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus")):
        specs = gate_specs(version)
        if all(g in specs and not specs[g].locked for g in (gate, dependency)):
            try:
                parse_feature_gates(f"{gate}=true,{dependency}=false", version)
            except GateError as exc:
                return "depends on features that are disabled" in str(exc)
            return False
    raise AssertionError(f"no settable dependent gate pair in {version}")


def _allocator(name):
    return lambda tmp_path, version: allocator_probe(name, None, version)


def _cel(gate: bool):
    return lambda tmp_path, version: list_attribute_matches(version, gate)


# switch -> probe(tmp_path, version[, monkeypatch]) -> whether the new behaviour showed
PROBES = {name: _allocator(name) for name in ALLOCATOR_CASES}
PROBES.update({
    "prioritized_list_score": probe_prioritized_list_score,
    "filter_timeout_is_error": probe_filter_timeout_is_error,
    "all_request_bad_pool_node_only": probe_all_request_bad_pool_node_only,
    "node_allocatable_second_alpha": probe_node_allocatable_second_alpha,
    "taint_rule_needs_selector": probe_taint_rule_needs_selector,
    "podgroup_claims_withheld": probe_podgroup_claims_withheld,
    "list_attribute_values": _cel(True),
    "list_attributes_ungated_in_cel": _cel(False),
    "shared_counters_split": probe_shared_counters_split,
    "device_taints_135": probe_device_taints_135,
    "attribute_values_limit": probe_attribute_values_limit,
    "qualified_name_single_slash": probe_qualified_name_single_slash,
    "pod_workload_ref": probe_pod_workload_ref_kept,
    "pod_scheduling_group": probe_pod_scheduling_group,
    "podgroup_workload_ref": probe_podgroup_workload_ref,
    "metadata_files_alpha": probe_metadata_files_alpha,
    "metadata_files_beta": probe_metadata_files_beta,
    "gate_dependencies": probe_gate_dependencies,
})

# What a probe shows where a later switch supersedes the one it observes (default: in_force).
EXPECTED = {
    # Pod spec.workloadRef only existed in 1.35: 1.36's schedulingGroup replaced it.
    "pod_workload_ref": lambda v: in_force("pod_workload_ref", v) and not in_force("pod_scheduling_group", v),
    # The list values reach CEL with the gate on from 1.36 (and without it from 1.37).
    "list_attribute_values": lambda v: in_force("list_attribute_values", v),
}


def test_every_switch_has_a_probe():
    assert set(PROBES) == {c.name for c in CHANGES}


@pytest.mark.parametrize("name", [c.name for c in CHANGES])
def test_switch_on_both_sides_of_its_release(name, tmp_path, monkeypatch):
    probe = PROBES[name]
    expected = EXPECTED.get(name, lambda v: in_force(name, v))
    seen = {}
    for version in KUBE_VERSIONS:
        args = (tmp_path, version, monkeypatch) if name == "filter_timeout_is_error" else (tmp_path, version)
        seen[version] = probe(*args)
    assert seen == {v: expected(v) for v in KUBE_VERSIONS}, f"{name}: shown per release"
    if len(set(seen.values())) == 1:
        # Every release dractl models ships it: the other side is the snapshot, switch off.
        assert change(name).area == ALLOCATOR, f"{name} is never off (or never on) in KUBE_VERSIONS"
        assert allocator_probe(name, False, KUBE_VERSIONS[-1]) is not seen[KUBE_VERSIONS[-1]]
