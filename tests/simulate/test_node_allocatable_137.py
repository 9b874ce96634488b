"""KEP-5517 second alpha (1.37): `nodeAllocatableResources` with mapping and overhead, sharing
only blocked by mapped devices, overhead charged per pod, node declared features; the 1.36
shape (`nodeAllocatableResourceMappings`) stays 1.36's."""

from __future__ import annotations

import pytest

GATE = "DRANodeAllocatableResources=true"


def node(name: str = "n1", cpu: str = "8", features: str | None = None) -> str:
    status = f"\n  declaredFeatures: [{features}]" if features is not None else ""
    return f"""apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
status:
  allocatable: {{cpu: "{cpu}", memory: 16Gi, pods: "20"}}{status}
"""


CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cpus}
spec:
  selectors:
  - cel: {expression: 'device.driver == "dra.cpu"'}
"""


def slice_(node_name: str, devices: str) -> str:
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {node_name}-cpus}}
spec:
  driver: dra.cpu
  nodeName: {node_name}
  pool: {{name: {node_name}, generation: 1, resourceSliceCount: 1}}
  devices:
{devices}"""


MAPPED = """  - name: core-0
    nodeAllocatableResources:
      cpu: {mapping: {deviceMultiplier: "4"}}
  - name: core-1
    nodeAllocatableResources:
      cpu: {mapping: {deviceMultiplier: "4"}}
"""
OVERHEAD = """  - name: nic-0
    nodeAllocatableResources:
      cpu: {overhead: {perPod: "1", perContainer: "500m"}}
"""
OLD_SHAPE = """  - name: core-0
    nodeAllocatableResourceMappings:
      cpu: {allocationMultiplier: "4"}
  - name: core-1
    nodeAllocatableResourceMappings:
      cpu: {allocationMultiplier: "4"}
"""

TEMPLATE = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: core, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: cpu
        exactly: {deviceClassName: cpus}
"""
SHARED_CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec:
  devices:
    requests:
    - name: cpu
      exactly: {deviceClassName: cpus}
"""


def pod(name: str, cpu: str = "1", source: str = "resourceClaimTemplateName: core",
        containers: int = 1, extra: str = "") -> str:
    body = "".join(f"""  - name: c{i}
    image: busybox
    resources: {{requests: {{cpu: "{cpu}"}}, claims: [{{name: cpu}}]}}
""" for i in range(containers))
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  resourceClaims: [{{name: cpu, {source}}}]{extra}
  containers:
{body}"""


def run(dry_run, parts, version="1.37", gates=GATE):
    return dry_run("---\n".join(parts), inventory=None, version=version, gates=gates)


def test_137_device_multiplier_adds_to_pod_requests(dry_run):
    plan = run(dry_run, [node(), CLASS, slice_("n1", MAPPED), TEMPLATE, pod("p1"), pod("p2")])
    assert not plan.validation_errors, plan.validation_errors
    # p1 = 1 requested + 4 mapped = 5 of 8; p2 needs 5 more
    assert [p.status for p in plan.pods] == ["Scheduled", "Unschedulable"]
    assert "1 Insufficient cpu" in plan.pods[1].reasons[-1].message


def test_137_ignores_the_136_shape_and_136_ignores_the_137_shape(dry_run):
    # In 1.37 the old field is tombstoned: the slice fails validation (unknown field) and the
    # dry run leaves it out, so there is no device at all.
    old = run(dry_run, [node(), CLASS, slice_("n1", OLD_SHAPE), TEMPLATE, pod("p1")])
    assert any("nodeAllocatableResourceMappings" in f.message for f in old.validation_errors)
    assert [p.status for p in old.pods] == ["Unschedulable"]
    new_in_136 = run(dry_run, [node(), CLASS, slice_("n1", MAPPED), TEMPLATE, pod("p1")],
                     version="1.36")
    assert any("nodeAllocatableResources" in f.message for f in new_in_136.validation_errors)
    assert [p.status for p in new_in_136.pods] == ["Unschedulable"]
    old_in_136 = run(dry_run, [node(), CLASS, slice_("n1", OLD_SHAPE), TEMPLATE, pod("p1"), pod("p2")],
                     version="1.36")
    assert [p.status for p in old_in_136.pods] == ["Scheduled", "Unschedulable"]


def test_137_gate_off_charges_nothing(dry_run):
    plan = run(dry_run, [node(), CLASS, slice_("n1", MAPPED), TEMPLATE, pod("p1"), pod("p2")], gates="")
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled"]


def test_overhead_only_claim_is_shared_and_charged_per_pod(dry_run):
    # Each pod: 1 requested per container + perPod 1 + perContainer 500m per referencing container.
    # p1 (1 container): 1 + 1 + 0.5 = 2.5; p2 (2 containers): 2 + 1 + 1 = 4 -> 6.5 of 8.
    # p3 (1 container) needs 2.5 more: Insufficient cpu, although it shares the same claim.
    parts = [node(), CLASS, slice_("n1", OVERHEAD), SHARED_CLAIM,
             pod("p1", source="resourceClaimName: shared"),
             pod("p2", source="resourceClaimName: shared", containers=2),
             pod("p3", source="resourceClaimName: shared")]
    plan = run(dry_run, parts)
    assert not plan.validation_errors, plan.validation_errors
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled", "Unschedulable"]
    assert "1 Insufficient cpu" in plan.pods[2].reasons[-1].message


def test_overhead_only_claim_shared_by_pods_that_fit(dry_run):
    parts = [node(cpu="16"), CLASS, slice_("n1", OVERHEAD), SHARED_CLAIM,
             pod("p1", source="resourceClaimName: shared"),
             pod("p2", source="resourceClaimName: shared")]
    plan = run(dry_run, parts)
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled"]
    claim = next(c for c in plan.claims if c.name == "shared")
    assert len(claim.reserved_for) == 2


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_mapped_claim_cannot_be_shared_across_pods(dry_run, version):
    devices = OLD_SHAPE if version == "1.36" else MAPPED
    parts = [node(cpu="32"), CLASS, slice_("n1", devices), SHARED_CLAIM,
             pod("p1", source="resourceClaimName: shared"),
             pod("p2", source="resourceClaimName: shared")]
    plan = run(dry_run, parts, version=version)
    assert [p.status for p in plan.pods] == ["Scheduled", "Unschedulable"]
    assert ("node allocatable resource claim shared has a mapped device and cannot be shared "
            "across pods") in plan.pods[1].reasons[-1].message


def test_node_that_declares_features_without_the_feature_is_filtered(dry_run):
    parts = [node("n1", features="GuaranteedQoSPodCPUResize"),
             node("n2", features="DRANodeAllocatableResources"),
             CLASS, slice_("n1", MAPPED), slice_("n2", MAPPED), TEMPLATE, pod("p1"), pod("p2")]
    plan = run(dry_run, parts)
    # n1 declares features but not this one: every pod goes to n2 (p2 no longer fits there).
    assert [(p.status, p.node) for p in plan.pods] == [("Scheduled", "n2"), ("Unschedulable", "")]
    message = plan.pods[1].reasons[-1].message
    assert "1 node(s) didn't declare the DRANodeAllocatableResources feature" in message


def test_declared_features_not_checked_in_136(dry_run):
    parts = [node("n1", features="GuaranteedQoSPodCPUResize"), CLASS, slice_("n1", OLD_SHAPE),
             TEMPLATE, pod("p1")]
    plan = run(dry_run, parts, version="1.36")
    assert [(p.status, p.node) for p in plan.pods] == [("Scheduled", "n1")]


def test_capacity_key_without_consumed_capacity_is_an_error_in_137(dry_run):
    devices = """  - name: core-0
    capacity:
      cores: {value: "4"}
    nodeAllocatableResources:
      cpu: {mapping: {capacityKey: cores, capacityMultiplier: "1"}}
"""
    plan = run(dry_run, [node(), CLASS, slice_("n1", devices), TEMPLATE, pod("p1")])
    assert plan.pods[0].status == "Unschedulable"
    reason = plan.pods[0].reasons[-1]
    assert reason.code == "DRA5011"
    assert "ConsumedCapacity is nil, but Capacity key 'cores' is set" in reason.message


def test_pod_level_requests_must_cover_dra_amounts(dry_run):
    small = "\n  resources: {requests: {cpu: \"3\"}}"
    big = "\n  resources: {requests: {cpu: \"6\"}}"
    plan = run(dry_run, [node(), CLASS, slice_("n1", MAPPED), TEMPLATE,
                         pod("short", extra=small), pod("covered", extra=big)])
    # short: 1 (containers) + 4 (mapped) > 3 -> unresolvable; covered: the pod-level 6 is the
    # demand (DRA amounts are not added on top of pod-level requests).
    assert [p.status for p in plan.pods] == ["Unschedulable", "Scheduled"]
    assert ("pod level request for cpu is insufficient to cover the aggregated container and "
            "node-allocatable DRA requests") in plan.pods[0].reasons[-1].message


def test_device_entries_are_read_in_the_release_shape():
    from fractions import Fraction

    from dractl.simulate.plugins.nodeallocatable import NodeResource, device_node_resources

    device = {"name": "d",
              "nodeAllocatableResourceMappings": {"memory": {"capacityKey": "mem"}},
              "nodeAllocatableResources": {
                  "cpu": {"mapping": {"deviceMultiplier": "2"}, "overhead": {"perPod": "100m"}},
                  "memory": {"overhead": {"perContainer": "1Mi"}}}}
    assert device_node_resources(device, new_shape=False) == (
        NodeResource("memory", "mem", Fraction(1)),)
    new = device_node_resources(device, new_shape=True)
    assert new == (NodeResource("cpu", None, None, Fraction(2), Fraction(1, 10)),
                   NodeResource("memory", per_container=Fraction(1024 * 1024)))
    assert [e.mapped for e in new] == [True, False]


def test_137_pod_status_records_what_was_charged(dry_run):
    parts = [node(), CLASS, slice_("n1", MAPPED), TEMPLATE, pod("p1")]
    plan = run(dry_run, parts)
    assert plan.pods[0].status == "Scheduled"
    assert plan.pods[0].pod.status["nodeAllocatableResourceClaimStatuses"] == [
        {"resourceClaimName": plan.pods[0].claims[0].claim.name, "containers": ["c0"],
         "mapping": [{"name": "cpu", "quantity": "4"}]}]


def test_136_pod_status_has_no_node_allocatable_entries(dry_run):
    plan = run(dry_run, [node(), CLASS, slice_("n1", OLD_SHAPE), TEMPLATE, pod("p1")], version="1.36")
    assert plan.pods[0].status == "Scheduled"
    assert "nodeAllocatableResourceClaimStatuses" not in plan.pods[0].pod.status
