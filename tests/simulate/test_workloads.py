"""PodGroups sharing claims (KEP-5729), gangs (KEP-4671), native resources (KEP-5517),
extended resources backed by DRA (KEP-5004)."""

from __future__ import annotations

WORKLOAD_GATES = "GenericWorkload=true,DRAWorkloadResourceClaims=true"

ONE_GPU_TEMPLATE = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
"""

SHARED_CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
"""


# One node whose kubelet runs up to 2,000 pods (the kind nodes of builtin:example-gpu run 110,
# and NodeResourcesFit counts pods), with 16 GPUs of the example driver.
BIG_NODE = """apiVersion: v1
kind: Node
metadata: {name: big, labels: {kubernetes.io/hostname: big}}
status:
  allocatable: {cpu: "256", memory: 2Ti, pods: "2000"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: big-gpus}
spec:
  driver: gpu.example.com
  nodeName: big
  pool: {name: big, generation: 1, resourceSliceCount: 1}
  devices:
""" + "".join(f"  - name: gpu-{i}\n" for i in range(16))


def job(name: str, pods: int, claim: str, group: str | None = None) -> str:
    scheduling = f"      schedulingGroup: {{podGroupName: {group}}}\n" if group else ""
    return f"""apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: default}}
spec:
  parallelism: {pods}
  completions: {pods}
  template:
    spec:
{scheduling}      restartPolicy: Never
      resourceClaims:
      - {claim}
      containers:
      - name: worker
        image: busybox
        resources: {{claims: [{{name: gpu}}]}}
"""


def podgroup(name: str, policy: str = "basic: {}", claims: str = "") -> str:
    return f"""apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {{name: {name}, namespace: default}}
spec:
  schedulingPolicy:
    {policy}
{claims}"""


def statuses(plan):
    from collections import Counter
    return Counter(p.status for p in plan.pods)


def test_thousand_pods_in_one_podgroup_share_one_claim(dry_run):
    claims = "  resourceClaims:\n  - {name: gpu, resourceClaimName: shared}\n"
    text = "---\n".join([BIG_NODE, SHARED_CLAIM, podgroup("trainers", claims=claims),
                         job("train", 1000, "{name: gpu, resourceClaimName: shared}", "trainers")])
    plan = dry_run(text, inventory=None, gates=WORKLOAD_GATES)
    assert not plan.validation_errors
    assert statuses(plan) == {"Scheduled": 1000}
    shared = next(c for c in plan.claims if c.name == "shared")
    assert shared.reserved_for == [{"apiGroup": "scheduling.k8s.io", "resource": "podgroups",
                                    "name": "trainers", "uid": shared.reserved_for[0]["uid"]}]
    assert all(ref.reserved_for == "podgroup" for p in plan.pods for ref in p.claims)


def test_thousand_pods_without_podgroup_stop_at_256(dry_run):
    text = "---\n".join([BIG_NODE, SHARED_CLAIM,
                         job("train", 1000, "{name: gpu, resourceClaimName: shared}")])
    plan = dry_run(text, inventory=None)
    assert statuses(plan) == {"Scheduled": 256, "Unschedulable": 744}
    shared = next(c for c in plan.claims if c.name == "shared")
    assert len(shared.reserved_for) == 256
    failed = next(p for p in plan.pods if p.status == "Unschedulable")
    reason = failed.reasons[-1]
    assert reason.code == "DRA5012"
    assert "status.reservedFor: Too many: 257: must have at most 256 items" in reason.message
    assert "PodGroup" in reason.details[0]  # says how to fix it


def test_kubelet_pod_capacity_is_respected(dry_run):
    # The example driver's kind workers run at most 110 pods each (NodeResourcesFit).
    text = "---\n".join([SHARED_CLAIM, job("train", 120, "{name: gpu, resourceClaimName: shared}")])
    plan = dry_run(text)
    assert statuses(plan) == {"Scheduled": 110, "Unschedulable": 10}
    assert "Too many pods" in next(p for p in plan.pods if p.status != "Scheduled").reasons[-1].message


def test_two_podgroups_from_one_template_get_distinct_devices(dry_run):
    claims = "  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: one-gpu}\n"
    text = "---\n".join([ONE_GPU_TEMPLATE, podgroup("g1", claims=claims), podgroup("g2", claims=claims),
                         job("a", 3, "{name: gpu, resourceClaimTemplateName: one-gpu}", "g1"),
                         job("b", 3, "{name: gpu, resourceClaimTemplateName: one-gpu}", "g2")])
    plan = dry_run(text, gates=WORKLOAD_GATES)
    assert statuses(plan) == {"Scheduled": 6}
    generated = [c for c in plan.claims if c.generated]
    assert len(generated) == 2
    devices = {c.name: [r.device for r in c.allocation.devices] for c in generated}
    assert len({tuple(d) for d in devices.values()}) == 2
    for g in plan.groups:
        assert list(g.claim_statuses) == ["gpu"]
    for p in plan.pods:
        assert p.pod.status["resourceClaimStatuses"][0]["resourceClaimName"] == \
            plan.groups[0 if p.pod.owner == "Job/a" else 1].claim_statuses["gpu"]


def test_non_matching_pod_claim_stays_per_pod(dry_run):
    # Same template, different pod-local name: not the group's claim (KEP-5729 matching rule).
    claims = "  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: one-gpu}\n"
    text = "---\n".join([ONE_GPU_TEMPLATE, podgroup("g1", claims=claims),
                         job("a", 2, "{name: accel, resourceClaimTemplateName: one-gpu}", "g1")
                         .replace("claims: [{name: gpu}]", "claims: [{name: accel}]")])
    plan = dry_run(text, gates=WORKLOAD_GATES)
    assert statuses(plan) == {"Scheduled": 2}
    assert len([c for c in plan.claims if c.generated]) == 2
    assert all(ref.reserved_for == "pod" for p in plan.pods for ref in p.claims)


TWO_GPU_TEMPLATE = ONE_GPU_TEMPLATE.replace("one-gpu", "two-gpus").replace(
    "deviceClassName: gpu.example.com}", "deviceClassName: gpu.example.com, count: 2}")


def test_gang_of_eight_fits(dry_run):
    text = "---\n".join([TWO_GPU_TEMPLATE, podgroup("gang", "gang: {minCount: 8}"),
                         job("g", 8, "{name: gpu, resourceClaimTemplateName: two-gpus}", "gang")])
    plan = dry_run(text, gates=WORKLOAD_GATES)
    assert statuses(plan) == {"Scheduled": 8}  # 2 workers x 8 GPUs = 8 pods x 2 GPUs


def test_gang_of_nine_places_nothing_and_names_the_breaker(dry_run):
    text = "---\n".join([TWO_GPU_TEMPLATE, podgroup("gang", "gang: {minCount: 9}"),
                         job("g", 9, "{name: gpu, resourceClaimTemplateName: two-gpus}", "gang")])
    plan = dry_run(text, gates=WORKLOAD_GATES)
    assert statuses(plan) == {"Unschedulable": 9}
    assert all(c.allocation is None for c in plan.claims)        # everything rolled back
    assert not any(c.generated for c in plan.claims)
    verdict = plan.pods[0].reasons[-1]
    assert verdict.code == "DRA5021"
    assert "only 8 of 9" in verdict.message
    assert f"{plan.pods[8].namespace}/{plan.pods[8].name} broke it" in verdict.message


def test_gang_rollback_leaves_devices_for_later_pods(dry_run):
    text = "---\n".join([TWO_GPU_TEMPLATE, podgroup("gang", "gang: {minCount: 9}"),
                         job("g", 9, "{name: gpu, resourceClaimTemplateName: two-gpus}", "gang"),
                         job("after", 8, "{name: gpu, resourceClaimTemplateName: two-gpus}")])
    plan = dry_run(text, gates=WORKLOAD_GATES)
    after = [p for p in plan.pods if p.pod.owner == "Job/after"]
    assert {p.status for p in after} == {"Scheduled"}


def test_gang_quorum_missing_members(dry_run):
    text = "---\n".join([ONE_GPU_TEMPLATE, podgroup("gang", "gang: {minCount: 4}"),
                         job("g", 3, "{name: gpu, resourceClaimTemplateName: one-gpu}", "gang")])
    plan = dry_run(text, gates=WORKLOAD_GATES)
    assert statuses(plan) == {"Unschedulable": 3}
    reason = plan.pods[0].reasons[-1]
    assert reason.message == "waiting for minCount pods from a gang to appear in scheduling queue"
    assert "1 more needed" in reason.details[0]


def test_missing_podgroup_is_not_enqueued(dry_run):
    text = "---\n".join([ONE_GPU_TEMPLATE,
                         job("g", 1, "{name: gpu, resourceClaimTemplateName: one-gpu}", "nowhere")])
    plan = dry_run(text, gates=WORKLOAD_GATES)
    assert plan.pods[0].status == "Unschedulable"
    assert plan.pods[0].reasons[-1].code == "DRA5020"


def test_workload_1_35_shape_gang(dry_run):
    workload = """apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: wl, namespace: default}
spec:
  podGroups:
  - name: workers
    policy:
      gang: {minCount: 3}
"""
    pods = "---\n".join(f"""apiVersion: v1
kind: Pod
metadata: {{name: w-{i}, namespace: default}}
spec:
  workloadRef: {{name: wl, podGroup: workers}}
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: two-gpus}}]
  containers:
  - name: c
    image: busybox
    resources: {{claims: [{{name: gpu}}]}}
""" for i in range(3))
    plan = dry_run("---\n".join([TWO_GPU_TEMPLATE, workload, pods]), version="1.35",
                   gates="GenericWorkload=true")
    assert not plan.validation_errors, plan.validation_errors
    assert statuses(plan) == {"Scheduled": 3}
    assert plan.groups[0].policy == "gang" and plan.groups[0].min_count == 3


NATIVE = """apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status:
  allocatable: {cpu: "8", memory: 16Gi}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cpus}
spec:
  selectors:
  - cel: {expression: 'device.driver == "dra.cpu"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-cpus}
spec:
  driver: dra.cpu
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: core-0
    nodeAllocatableResourceMappings:
      cpu: {allocationMultiplier: "4"}
  - name: core-1
    nodeAllocatableResourceMappings:
      cpu: {allocationMultiplier: "4"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: core, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: cpu
        exactly: {deviceClassName: cpus}
"""


def native_pod(name: str, cpu: str) -> str:
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  resourceClaims: [{{name: cpu, resourceClaimTemplateName: core}}]
  containers:
  - name: c
    image: busybox
    resources: {{requests: {{cpu: "{cpu}"}}, claims: [{{name: cpu}}]}}
"""


def test_native_resources_add_to_pod_requests(dry_run):
    text = "---\n".join([NATIVE, native_pod("p1", "1"), native_pod("p2", "1")])
    plan = dry_run(text, inventory=None, version="1.36", gates="DRANodeAllocatableResources=true")
    assert [p.status for p in plan.pods] == ["Scheduled", "Unschedulable"]
    # p1 = 1 + 4 mapped CPUs = 5 of 8; p2 would need 5 more
    assert plan.pods[1].reasons[-1].message.startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_native_mappings_ignored_when_gate_off(dry_run):
    text = "---\n".join([NATIVE, native_pod("p1", "1"), native_pod("p2", "1")])
    plan = dry_run(text, inventory=None, version="1.36")
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled"]


def test_node_allocatable_is_accounted_across_pods(dry_run):
    pods = "---\n".join(f"""apiVersion: v1
kind: Pod
metadata: {{name: p{i}, namespace: default}}
spec:
  containers:
  - name: c
    image: busybox
    resources: {{requests: {{memory: 6Gi}}}}
""" for i in range(3))
    plan = dry_run("---\n".join([NATIVE, pods]), inventory=None, version="1.36")
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled", "Unschedulable"]
    assert "Insufficient memory" in plan.pods[2].reasons[-1].message


def test_extended_resource_pod_gets_the_special_claim(dry_run):
    text = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: example-gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
  extendedResourceName: example.com/gpu
---
apiVersion: v1
kind: Pod
metadata: {name: legacy, namespace: default}
spec:
  containers:
  - name: main
    image: busybox
    resources:
      limits: {cpu: "1", example.com/gpu: 2}
"""
    plan = dry_run(text)
    pod = plan.pods[0]
    assert pod.status == "Scheduled"
    special = next(c for c in plan.claims if c.generated)
    assert special.name.startswith("legacy-extended-resources-")
    assert special.manifest["metadata"]["annotations"] == {
        "resource.kubernetes.io/extended-resource-claim": "true"}
    assert [r.request for r in special.allocation.devices] == ["container-0-request-1"] * 2
    assert pod.pod.status["extendedResourceClaimStatus"]["requestMappings"] == [
        {"containerName": "main", "resourceName": "example.com/gpu",
         "requestName": "container-0-request-1"}]


def test_unknown_extended_resource_is_insufficient(dry_run):
    # No DeviceClass maps vendor.example/fpga and the nodes do not offer it: NodeResourcesFit
    # says so before DynamicResources runs (helper.ShouldDelegateResourceToDRA is false), and a
    # request above the node's whole allocatable (0) is UnschedulableAndUnresolvable.
    text = """apiVersion: v1
kind: Pod
metadata: {name: legacy, namespace: default}
spec:
  containers:
  - name: main
    image: busybox
    resources:
      limits: {vendor.example/fpga: 1}
"""
    plan = dry_run(text)
    assert plan.pods[0].reasons[-1].message == (
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), "
        "2 Insufficient vendor.example/fpga. no new claims to deallocate, preemption: 0/3 nodes are "
        "available: 3 Preemption is not helpful for scheduling.")


def test_unmapped_extended_resource_on_nodes_without_allocatable_cannot_fit(dry_run):
    # Nodes known only from slices report nothing allocatable: NodeResourcesFit has nothing to
    # check, DynamicResources' filterExtendedResources finds the unmapped resource neither offered
    # nor mapped ("cannot fit resource"), and dractl explains which resource it is.
    text = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: example-gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
  extendedResourceName: example.com/gpu
---
apiVersion: v1
kind: Pod
metadata: {name: legacy, namespace: default}
spec:
  containers:
  - name: main
    image: busybox
    resources:
      limits: {example.com/gpu: 1, vendor.example/fpga: 1}
"""
    reason = dry_run(text, inventory=None).pods[0].reasons[-1]
    assert reason.message.startswith("0/1 nodes are available: 1 cannot fit resource. still not schedulable")
    assert any("no DeviceClass maps the extended resource vendor.example/fpga" in d for d in reason.details)


def test_realworld_podgroup_demo(dry_run):
    from realworld_corpus import REALWORLD, require_realworld

    demo = require_realworld(REALWORLD / "dra-example-driver/demo/examples/"
                             "podgroup-resourceclaimtemplate/podgroup-resourceclaimtemplate.yaml")
    plan = dry_run(demo.read_text(), version="1.36",
                   gates="GenericWorkload=true,GangScheduling=true,DRAWorkloadResourceClaims=true")
    assert statuses(plan) == {"Scheduled": 4}
    # README of the demo: the pods of group-1 share gpu-0, those of group-2 share gpu-1.
    by_group = {}
    for p in plan.pods:
        by_group.setdefault(p.pod.owner, set()).update(r.device for ref in p.claims
                                                       for r in ref.claim.allocation.devices)
    assert by_group == {"Deployment/group-1": {"gpu-0"}, "Deployment/group-2": {"gpu-1"}}
