"""1.37 workload changes in the dry run: PodGroup `spec.workloadRef` (v1alpha3/v1beta1) vs 1.36's
`spec.podGroupTemplateRef.workload` (v1alpha2), the 1.37 resourceclaim controller with
DRAWorkloadResourceClaims off, PodGroup claims undone when the group fails, and the scheduler
fixes #139017 and #139418 (dractl behaves as fixed)."""

from __future__ import annotations

import pytest

from dractl.simulate.groups import GroupIndex
from tests.simulate.test_workloads import (
    ONE_GPU_TEMPLATE,
    SHARED_CLAIM,
    TWO_GPU_TEMPLATE,
    job,
    podgroup,
    statuses,
)

GATES_ON = "GenericWorkload=true,DRAWorkloadResourceClaims=true"
GROUP_CLAIM = "  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: one-gpu}\n"


class _Doc:
    def __init__(self, kind: str, api_version: str, name: str, spec: dict):
        self.kind, self.api_version, self.name = kind, api_version, name
        self.namespace = "default"
        self.metadata = {"name": name}
        self.data = {"apiVersion": api_version, "kind": kind, "metadata": self.metadata, "spec": spec}


WORKLOAD_SPEC = {"podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 3}}}]}


@pytest.mark.parametrize("api_version, spec, policy", [
    ("scheduling.k8s.io/v1alpha2",
     {"podGroupTemplateRef": {"workload": {"workloadName": "wl", "podGroupTemplateName": "workers"}}},
     ("gang", 3)),
    ("scheduling.k8s.io/v1alpha3", {"workloadRef": {"workloadName": "wl", "templateName": "workers"}},
     ("gang", 3)),
    ("scheduling.k8s.io/v1beta1", {"workloadRef": {"workloadName": "wl", "templateName": "workers"}},
     ("gang", 3)),
    # Each version reads only its own shape (the other is an unknown field there).
    ("scheduling.k8s.io/v1alpha3",
     {"podGroupTemplateRef": {"workload": {"workloadName": "wl", "podGroupTemplateName": "workers"}}},
     ("basic", 0)),
    ("scheduling.k8s.io/v1alpha2", {"workloadRef": {"workloadName": "wl", "templateName": "workers"}},
     ("basic", 0)),
])
def test_podgroup_reference_to_its_workload_template(api_version, spec, policy):
    index = GroupIndex()
    index.add(_Doc("Workload", api_version, "wl", WORKLOAD_SPEC))
    index.add(_Doc("PodGroup", api_version, "pg", spec))
    group = index.pod_groups[("default", "pg")]
    assert (group.policy, group.min_count) == policy


def stored_podgroup_run(tmp_path, text: str, version: str, gates: str = "GenericWorkload=true"):
    """The dry run with the PodGroups taken as stored: with DRAWorkloadResourceClaims off the API
    server forbids spec.resourceClaims on create, so a PodGroup that has them was stored while
    the gate was on (or by an API server with the gate on): the finding does not remove it."""
    from dractl.api.versions import parse_feature_gates
    from dractl.inventories import inventory_path
    from dractl.load.loader import load_paths
    from dractl.simulate.scheduler import Options, simulate
    from dractl.validate.pipeline import validate_documents

    path = tmp_path / "input.yaml"
    path.write_text(text)
    fg = parse_feature_gates(gates, version)
    validated = validate_documents(load_paths([str(inventory_path("example-gpu")), str(path)]), fg)
    groups = {id(d) for d in validated.documents if d.kind == "PodGroup"}
    return simulate(validated.documents, fg, Options(), set(validated.invalid) - groups)


def test_137_controller_creates_no_per_pod_claim_matching_the_podgroup_claim(tmp_path):
    text = "---\n".join([ONE_GPU_TEMPLATE, podgroup("g1", claims=GROUP_CLAIM),
                         job("a", 2, "{name: gpu, resourceClaimTemplateName: one-gpu}", "g1")])
    plan = stored_podgroup_run(tmp_path, text, "1.37")
    assert statuses(plan) == {"Unschedulable": 2}
    reason = plan.pods[0].reasons[-1]
    assert reason.code == "DRA5006"
    assert reason.message.endswith("ResourceClaim not created yet")
    assert "matches an entry of PodGroup g1's spec.resourceClaims" in reason.details[0]
    assert not [c for c in plan.claims if c.generated]


def test_136_controller_creates_per_pod_claims_when_the_gate_is_off(tmp_path):
    text = "---\n".join([ONE_GPU_TEMPLATE, podgroup("g1", claims=GROUP_CLAIM),
                         job("a", 2, "{name: gpu, resourceClaimTemplateName: one-gpu}", "g1")])
    plan = stored_podgroup_run(tmp_path, text.replace("v1alpha3", "v1alpha2"), "1.36")
    assert statuses(plan) == {"Scheduled": 2}
    assert len([c for c in plan.claims if c.generated]) == 2


def test_137_non_matching_pod_claim_still_gets_its_claim_with_the_gate_off(tmp_path):
    text = "---\n".join([ONE_GPU_TEMPLATE, podgroup("g1", claims=GROUP_CLAIM),
                         job("a", 2, "{name: accel, resourceClaimTemplateName: one-gpu}", "g1")
                         .replace("claims: [{name: gpu}]", "claims: [{name: accel}]")])
    plan = stored_podgroup_run(tmp_path, text, "1.37")
    assert statuses(plan) == {"Scheduled": 2}
    assert len([c for c in plan.claims if c.generated]) == 2


def test_137_gate_on_shares_one_group_claim(dry_run):
    text = "---\n".join([ONE_GPU_TEMPLATE, podgroup("g1", claims=GROUP_CLAIM),
                         job("a", 3, "{name: gpu, resourceClaimTemplateName: one-gpu}", "g1")])
    plan = dry_run(text, gates=GATES_ON, version="1.37")
    assert statuses(plan) == {"Scheduled": 3}
    assert len([c for c in plan.claims if c.generated]) == 1


def test_failed_gang_leaves_its_podgroup_claim_unallocated(dry_run):
    # The PodGroup's claim is allocated for the first member; the gang cannot reach minCount
    # (each member also needs 8 GPUs of its own on one node: only 2 nodes), so the whole cycle is
    # undone: upstream deallocates PodGroup claims in Unreserve and in the PodGroup PostFilter.
    eight = TWO_GPU_TEMPLATE.replace("two-gpus", "eight").replace("count: 2", "count: 8")
    claims = GROUP_CLAIM
    group = podgroup("g1", policy="gang: {minCount: 3}", claims=claims)
    pods = job("a", 3, "{name: gpu, resourceClaimTemplateName: one-gpu}\n      - "
               "{name: own, resourceClaimTemplateName: eight}", "g1")
    pods = pods.replace("claims: [{name: gpu}]", "claims: [{name: gpu}, {name: own}]")
    plan = dry_run("---\n".join([ONE_GPU_TEMPLATE, eight, group, pods]), gates=GATES_ON, version="1.37")
    assert not plan.validation_errors, plan.validation_errors
    assert statuses(plan) == {"Unschedulable": 3}
    group_claims = [c for c in plan.claims if c.generated and c.name.startswith("g1-")]
    assert all(c.allocation is None and not c.reserved_for for c in group_claims)
    assert all(c.allocation is None for c in plan.claims)


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_139418_podgroup_pods_sharing_one_claim_schedule(dry_run, version):
    # #139418 (fixed in 1.37.0): with GenericWorkload on, pods of one PodGroup sharing the same
    # ResourceClaim could fail to schedule. dractl places them all (as fixed), gang or not.
    api = "v1alpha2" if version == "1.36" else "v1alpha3"
    for policy in ("basic: {}", "gang: {minCount: 4}"):
        text = "---\n".join([SHARED_CLAIM, podgroup("g1", policy=policy).replace("v1alpha3", api),
                             job("a", 4, "{name: gpu, resourceClaimName: shared}", "g1")])
        plan = dry_run(text, gates="GenericWorkload=true", version=version)
        assert not plan.validation_errors, plan.validation_errors
        assert statuses(plan) == {"Scheduled": 4}, policy
        shared = next(c for c in plan.claims if c.name == "shared")
        assert len(shared.reserved_for) == 4   # per pod: DRAWorkloadResourceClaims is off


MULTI_NODE = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: fabric}
spec:
  selectors:
  - cel: {expression: 'device.driver == "fabric.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: fabric}
spec:
  driver: fabric.example.com
  pool: {name: fabric, generation: 1, resourceSliceCount: 1}
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions:
      - {key: kubernetes.io/hostname, operator: In, values: [dra-example-driver-cluster-worker,
         dra-example-driver-cluster-worker2]}
  devices:
  - name: link-0
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: fabric, namespace: default}
spec:
  devices:
    requests:
    - name: link
      exactly: {deviceClassName: fabric}
"""


def test_139017_pods_sharing_a_multi_node_claim_with_per_node_claims_schedule(dry_run):
    # #139017 (fixed in 1.37.0): pods sharing a claim allocated from a pool several nodes see,
    # each also with a node-local claim, could stay Pending. Two pods, 8 GPUs each: the first
    # fills one worker, the second must go to the other worker, which the shared claim reaches.
    eight = TWO_GPU_TEMPLATE.replace("two-gpus", "eight").replace("count: 2", "count: 8")
    pods = "---\n".join(f"""apiVersion: v1
kind: Pod
metadata: {{name: p{i}, namespace: default}}
spec:
  resourceClaims:
  - {{name: fabric, resourceClaimName: fabric}}
  - {{name: gpus, resourceClaimTemplateName: eight}}
  containers:
  - name: c
    image: busybox
    resources: {{claims: [{{name: fabric}}, {{name: gpus}}]}}
""" for i in range(2))
    plan = dry_run("---\n".join([MULTI_NODE, eight, pods]), version="1.37")
    assert not plan.validation_errors, plan.validation_errors
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled"]
    assert len({p.node for p in plan.pods}) == 2
    fabric = next(c for c in plan.claims if c.name == "fabric")
    assert fabric.allocation.node_selector is not None
    assert len(fabric.reserved_for) == 2
