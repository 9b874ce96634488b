"""kube-scheduler's own words, row by row from upstream's own expectations.

Each row names the upstream test it restates (file, test function, case name) and, where the
wording changed, the release. Upstream tests check one plugin or FitError.Error() in isolation;
the dry-run rows put the same situation in a cluster and compare the whole FailedScheduling
message, which also pins the status code (UnschedulableAndUnresolvable nodes are "Preemption is
not helpful", Unschedulable ones "No preemption victims found") and the PostFilter messages
(DynamicResources runs PostFilter for every pod, so pods without claims say "no new claims to
deallocate", as real 1.34+ clusters print). Upstream's dynamicresources_test.go compares error
statuses by substring (testContext.verify: assert.ErrorContains); the rows here compare whole
messages. The last rows are events copied from public issue threads, rebuilt as clusters.
Paths are relative to kubernetes/kubernetes pkg/scheduler/ (test/integration/dra: from the
repository root)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from dractl.allocator import Allocator
from dractl.allocator.results import ERROR, AllocationOutcome
from dractl.api.releases import in_force
from dractl.api.versions import KUBE_VERSIONS
from dractl.simulate.fiterror import fit_error
from dractl.simulate.framework import Code, Status
from dractl.simulate.plugins.defaultpreemption import DefaultPreemption
from dractl.simulate.reasons import SCHEDULER_ERRORS

# -- FitError.Error(): framework/types_test.go, TestFitError_Error ----------------------------------


def _statuses(*reasons: str) -> dict:
    return {f"node{i}": Status(Code.UNSCHEDULABLE, r, "Fake") for i, r in enumerate(reasons, 1)}


PRE = "Node(s) failed PreFilter plugin FalsePreFilter"
F1, F2 = "Node(s) failed Filter plugin FalseFilter-1", "Node(s) failed Filter plugin FalseFilter-2"
POST = "Error running PostFilter plugin FailedPostFilter"

FIT_ERROR_ROWS = [
    ("nodes failed Prefilter plugin", 3, PRE, _statuses(PRE, PRE, PRE), "",
     "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter."),
    ("nodes failed Prefilter plugin and the preemption also failed", 3, PRE, _statuses(PRE, PRE, PRE), POST,
     "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. "
     "Error running PostFilter plugin FailedPostFilter"),
    ("nodes failed one Filter plugin with an empty PostFilterMsg", 3, "", _statuses(F1, F1, F1), "",
     "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1."),
    ("nodes failed one Filter plugin with a non-empty PostFilterMsg", 3, "", _statuses(F1, F1, F1), POST,
     "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. "
     "Error running PostFilter plugin FailedPostFilter"),
    ("nodes failed two Filter plugins with an empty PostFilterMsg", 3, "", _statuses(F1, F1, F2), "",
     "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, "
     "2 Node(s) failed Filter plugin FalseFilter-1."),
    ("nodes failed two Filter plugins with a non-empty PostFilterMsg", 3, "", _statuses(F1, F1, F2), POST,
     "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, "
     "2 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter"),
    ("failed to Permit on node", 1, "", _statuses("Node failed Permit plugin Permit-1"), "",
     "0/1 nodes are available: 1 Node failed Permit plugin Permit-1."),
    ("failed to Reserve on node", 1, "", _statuses("Node failed Reserve plugin Reserve-1"), "",
     "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1."),
]


@pytest.mark.parametrize("case, total, pre, statuses, post, want", FIT_ERROR_ROWS, ids=[r[0] for r in FIT_ERROR_ROWS])
def test_fit_error(case, total, pre, statuses, post, want):
    assert fit_error(total, statuses, pre_filter=pre, post_filter=post) == want


def test_fit_error_counts_every_reason_of_a_status_and_sorts_as_strings():
    """A status with two reasons (NodeResourcesFit's Insufficient cpu and memory) counts both;
    the "<n> <reason>" strings sort as strings (sort.Strings: "10 x" before "2 y")."""
    many = {f"n{i}": Status(Code.UNSCHEDULABLE, ("Insufficient cpu", "Insufficient memory"), "F")
            for i in range(10)}
    many.update({"a": Status(Code.UNSCHEDULABLE, "Too many pods", "F"),
                 "b": Status(Code.UNSCHEDULABLE, "Too many pods", "F")})
    assert fit_error(12, many) == \
        "0/12 nodes are available: 10 Insufficient cpu, 10 Insufficient memory, 2 Too many pods."


# -- DefaultPreemption's PostFilter: plugins/defaultpreemption/default_preemption_test.go ----------

def _preemption(statuses: dict, total: int, spec: dict | None = None) -> str:
    state = SimpleNamespace(pod=SimpleNamespace(spec=spec or {}))
    return DefaultPreemption(None).post_filter(state, statuses, total)


PREEMPTION_ROWS = [
    ("TestPostFilter", "pod with tied priority is still unschedulable",
     {"node1": Status(Code.UNSCHEDULABLE, "Insufficient cpu", "NodeResourcesFit")}, 1, None,
     "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."),
    ("TestPostFilter", "preemption should respect filteredNodesStatuses",
     {"node1": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "x", "Fake")}, 1, None,
     "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    ("TestPostFilter", "preemption should respect absent NodeToStatusReader entry meaning "
     "UnschedulableAndUnresolvable", {}, 1, None,
     "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    ("PodEligibleToPreemptOthers", "preemptionPolicy Never",
     {"node1": Status(Code.UNSCHEDULABLE, "Insufficient cpu", "NodeResourcesFit")}, 1,
     {"preemptionPolicy": "Never"}, "preemption: not eligible due to preemptionPolicy=Never."),
]


@pytest.mark.parametrize("test, case, statuses, total, spec, want", PREEMPTION_ROWS,
                         ids=[r[1] for r in PREEMPTION_ROWS])
def test_default_preemption(test, case, statuses, total, spec, want):
    assert _preemption(statuses, total, spec) == want


# -- manifests for the dry-run rows --------------------------------------------------------------

DRIVER = "some-driver"
CLASS = "my-resource-class"


def _docs(*objects) -> str:
    return "".join(f"---\n{json.dumps(o)}\n" for o in objects)


def node(name: str, *, alloc: dict | None = None, labels: dict | None = None, taints=None,
         unschedulable: bool = False, devices: int = 0) -> str:
    """A Node (and, with `devices`, a ResourceSlice of that many devices of some-driver)."""
    obj: dict = {"apiVersion": "v1", "kind": "Node",
                 "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
                 "status": {"allocatable": alloc or {"cpu": "8", "memory": "8Gi", "pods": "110"}}}
    spec = {**({"taints": taints} if taints else {}), **({"unschedulable": True} if unschedulable else {})}
    if spec:
        obj["spec"] = spec
    out = [obj]
    if devices:
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                    "metadata": {"name": f"{name}-slice"},
                    "spec": {"driver": DRIVER, "nodeName": name,
                             "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                             "devices": [{"name": f"instance-{i}"} for i in range(1, devices + 1)]}})
    return _docs(*out)


def device_class(name: str = CLASS) -> str:
    return _docs({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
                  "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})


def claim(name: str, *, count: int = 1, class_name: str = CLASS, selector: str = "",
          allocated_on: str | None = None) -> str:
    body: dict = {"deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}
    if selector:
        body["selectors"] = [{"cel": {"expression": selector}}]
    obj: dict = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                 "metadata": {"name": name, "namespace": "default"},
                 "spec": {"devices": {"requests": [{"name": "req-1", "exactly": body}]}}}
    if allocated_on:
        obj["status"] = {"allocation": {
            "devices": {"results": [{"driver": DRIVER, "pool": allocated_on, "device": "instance-1",
                                     "request": "req-1"}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [allocated_on]}]}]}}}
    return _docs(obj)


def pod(name: str, *, requests: dict | None = None, ports=(), sidecar_ports=(), claim_name: str = "",
        node_selector: dict | None = None, on_node: str = "", never: bool = False) -> str:
    container: dict = {"name": "c", "image": "pause"}
    if requests:
        container["resources"] = {"requests": requests}
    if ports:
        container["ports"] = [{"containerPort": p, "hostPort": p} for p in ports]
    spec: dict = {"containers": [container]}
    if sidecar_ports:
        spec["initContainers"] = [{"name": "sidecar", "image": "pause", "restartPolicy": "Always",
                                   "ports": [{"containerPort": p, "hostPort": p} for p in sidecar_ports]}]
    if claim_name:
        spec["resourceClaims"] = [{"name": "my-resource", "resourceClaimName": claim_name}]
    if node_selector:
        spec["nodeSelector"] = node_selector
    if on_node:  # a DaemonSet pod's affinity (the controller pins each pod to its node)
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [on_node]}]}]}}}
    if never:
        spec["preemptionPolicy"] = "Never"
    return _docs({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                  "spec": spec})


def _not_helpful(n: int) -> str:
    return f"preemption: 0/{n} nodes are available: {n} Preemption is not helpful for scheduling."


def _no_victims(n: int) -> str:
    return f"preemption: 0/{n} nodes are available: {n} No preemption victims found for incoming pod."


NO_CLAIMS = "no new claims to deallocate, "
SMALL = {"cpu": "10m", "memory": "20", "pods": "32", "ephemeral-storage": "20", "example.com/aaa": "5"}
CONTROL_PLANE_TAINT = [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]

# (upstream test file :: function, case name, manifests; the last pod's message)
PLUGIN_ROWS = [
    ("plugins/noderesources/fit_test.go::TestEnoughRequests", "too many resources fails",
     node("n1", alloc=SMALL) + pod("existing", requests={"cpu": "10m", "memory": "20"})
     + pod("p", requests={"cpu": "1m", "memory": "1"}),
     "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. " + NO_CLAIMS + _no_victims(1)),
    ("plugins/noderesources/fit_test.go::TestEnoughRequests", "one resource memory fits",
     node("n1", alloc=SMALL) + pod("existing", requests={"cpu": "9m", "memory": "19"})
     + pod("p", requests={"cpu": "2m", "memory": "1"}),
     "0/1 nodes are available: 1 Insufficient cpu. " + NO_CLAIMS + _no_victims(1)),
    ("plugins/noderesources/fit_test.go::TestEnoughRequests", "extended resource capacity enforced",
     node("n1", alloc=SMALL) + pod("p", requests={"example.com/aaa": "10"}),
     "0/1 nodes are available: 1 Insufficient example.com/aaa. " + NO_CLAIMS + _not_helpful(1)),
    ("plugins/noderesources/fit_test.go::TestEnoughRequests", "extended resource allocatable enforced",
     node("n1", alloc=SMALL) + pod("existing", requests={"example.com/aaa": "5"})
     + pod("p", requests={"example.com/aaa": "1"}),
     "0/1 nodes are available: 1 Insufficient example.com/aaa. " + NO_CLAIMS + _no_victims(1)),
    ("plugins/noderesources/fit_test.go::TestEnoughRequests",
     "extended resource allocatable enforced for unknown resource",
     node("n1", alloc=SMALL) + pod("p", requests={"example.com/bbb": "1"}),
     "0/1 nodes are available: 1 Insufficient example.com/bbb. " + NO_CLAIMS + _not_helpful(1)),
    ("plugins/noderesources/fit_test.go::TestNotEnoughRequests",
     "even without specified resources, predicate fails when there's no space for additional pod",
     node("n1", alloc={"cpu": "10m", "memory": "20", "pods": "1"}) + pod("existing") + pod("p"),
     "0/1 nodes are available: 1 Too many pods. " + NO_CLAIMS + _no_victims(1)),
    ("plugins/noderesources/fit_test.go::TestStorageRequests",
     "storage ephemeral local storage request exceeds allocatable",
     node("n1", alloc=SMALL) + pod("p", requests={"ephemeral-storage": "25"}),
     "0/1 nodes are available: 1 Insufficient ephemeral-storage. " + NO_CLAIMS + _not_helpful(1)),
    ("plugins/nodeunschedulable/node_unschedulable_test.go::TestNodeUnschedulable",
     "Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
     node("n1", unschedulable=True) + pod("p"),
     "0/1 nodes are available: 1 node(s) were unschedulable. " + NO_CLAIMS + _not_helpful(1)),
    ("plugins/tainttoleration/taint_toleration_test.go::TestTaintTolerationFilter",
     "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
     node("n1", taints=[{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}]) + pod("p"),
     "0/1 nodes are available: 1 node(s) had untolerated taint(s). " + NO_CLAIMS + _not_helpful(1)),
    ("plugins/nodeaffinity/node_affinity_test.go::TestNodeAffinity", "node labels are subset",
     node("n1", labels={"bar": "foo"}) + pod("p", node_selector={"foo": "bar"}),
     "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. " + NO_CLAIMS
     + _not_helpful(1)),
    # PreFilterResult: the nodes it leaves out carry the absent-nodes status (schedule_one.go,
    # findNodesThatFitPod); a DaemonSet pod's other nodes read like this in real clusters.
    ("plugins/nodeaffinity/node_affinity_test.go::TestNodeAffinity",
     "Pod with matchFields using In operator that matches the existing node",
     node("n1") + node("n2", alloc={"cpu": "1", "memory": "8Gi", "pods": "110"}) + node("n3")
     + pod("existing", requests={"cpu": "950m"}, on_node="n2") + pod("p", requests={"cpu": "100m"}, on_node="n2"),
     "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
     + NO_CLAIMS + "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
     "2 Preemption is not helpful for scheduling."),
    ("plugins/nodeports/node_ports_test.go::TestNodePorts", "same tcp port",
     node("n1") + pod("existing", ports=[8080]) + pod("p", ports=[8080]),
     "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. " + NO_CLAIMS
     + _no_victims(1)),
    ("plugins/nodeports/node_ports_test.go::TestNodePorts", "TCP hostPort conflict from sidecar initContainer",
     node("n1") + pod("existing", sidecar_ports=[8080]) + pod("p", ports=[8080]),
     "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. " + NO_CLAIMS
     + _no_victims(1)),
    ("plugins/defaultpreemption/default_preemption.go::PodEligibleToPreemptOthers", "preemptionPolicy Never",
     node("n1", alloc=SMALL) + pod("p", requests={"cpu": "1"}, never=True),
     "0/1 nodes are available: 1 Insufficient cpu. " + NO_CLAIMS
     + "preemption: not eligible due to preemptionPolicy=Never."),
    ("plugins/dynamicresources/dynamicresources_test.go::TestPlugin", "missing-class",
     node("n1", devices=1) + claim("my-pod-my-resource", class_name="does-not-exist")
     + pod("my-pod", claim_name="my-pod-my-resource"),
     "0/1 nodes are available: request req-1: device class does-not-exist does not exist. "
     "no new claims to deallocate, " + _not_helpful(1)),
    ("plugins/dynamicresources/dynamicresources_test.go::TestPlugin", "wrong-topology",
     node("worker", devices=1) + device_class() + claim("my-pod-my-resource", allocated_on="worker-2")
     + pod("my-pod", claim_name="my-pod-my-resource"),
     "0/1 nodes are available: 1 resourceclaim not available on the node. "
     "deallocation of ResourceClaim completed, " + _not_helpful(1)),
    ("plugins/dynamicresources/dynamicresources_test.go::TestPlugin", "structured-ignore-allocated-claim",
     node("worker", devices=1) + device_class() + claim("my-pod-my-resource", count=2)
     + pod("my-pod", claim_name="my-pod-my-resource"),
     "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, " + _not_helpful(1)),
]


@pytest.mark.parametrize("source, case, text, want", PLUGIN_ROWS, ids=[r[1] for r in PLUGIN_ROWS])
def test_plugin_words_in_the_failed_scheduling_message(dry_run, source, case, text, want):
    last = dry_run(text, inventory=None).pods[-1]
    assert (last.status, last.reasons[-1].message) == ("Unschedulable", want)


def test_untolerated_taint_is_named_in_dractl_explanation_only(dry_run):
    """Since kubernetes/kubernetes#134740 the status names no taint; dractl's per-node line does."""
    plan = dry_run(node("n1", taints=CONTROL_PLANE_TAINT) + pod("p"), inventory=None)
    assert plan.pods[0].node_failures == {"n1": "node(s) had untolerated taint(s)"}
    assert plan.pods[0].node_explanations["n1"] == ["untolerated taint node-role.kubernetes.io/control-plane:NoSchedule"]


# -- errors: the attempt fails with the plugin's error, wrapped by the framework ------------------

def test_filter_error_is_wrapped_with_the_plugin_name(dry_run):
    """runtime/framework.go RunFilterPlugins: `running %q filter plugin: %w`; the allocator's CEL
    runtime error is dynamicresources_test.go "claim-parameters-CEL-runtime-error"."""
    text = (node("worker", devices=1) + device_class()
            + claim("my-pod-my-resource", selector=f'device.attributes["{DRIVER}"].healthy')
            + pod("my-pod", claim_name="my-pod-my-resource"))
    reason = dry_run(text, inventory=None).pods[-1].reasons[-1]
    assert reason.code == "DRA5011"
    assert reason.message.startswith('running "DynamicResources" filter plugin: '
                                     "claim default/my-pod-my-resource: selector #0")
    assert "CEL runtime error: no such key: healthy" in reason.message


def test_pre_bind_error_is_wrapped_with_the_plugin_name(dry_run):
    """schedule_one_test.go TestSchedulerWithVolumeBinding "bind error": the event reads
    `running PreBind plugin "<plugin>": <error>`; DynamicResources' error is the API server's
    refusal of a 257th reservedFor entry (bindClaim)."""
    pods = "".join(pod(f"p{i:03}", claim_name="shared") for i in range(257))
    text = node("n1", alloc={"cpu": "8", "memory": "8Gi", "pods": "300"}, devices=1) + device_class() \
        + claim("shared") + pods
    reason = dry_run(text, inventory=None).pods[-1].reasons[-1]
    assert reason.code in SCHEDULER_ERRORS
    assert reason.message == (
        'running PreBind plugin "DynamicResources": add reservation to claim default/shared: '
        'ResourceClaim.resource.k8s.io "shared" is invalid: status.reservedFor: Too many: 257: '
        "must have at most 256 items")


def _time_out_on(monkeypatch, node_name: str) -> None:
    """The allocator times out (DRASchedulerFilterTimeout) on one node and runs as usual elsewhere."""
    real = Allocator.allocate

    def allocate(self, node, claims, **kwargs):
        name = node if isinstance(node, str) else getattr(node, "name", None) or node["metadata"]["name"]
        if name == node_name:
            return AllocationOutcome(ERROR, tuple(claims), error="filter operation aborted: timed out",
                                     timed_out=True)
        return real(self, node, claims, **kwargs)
    monkeypatch.setattr(Allocator, "allocate", allocate)


# kubernetes/kubernetes#133531 (a 1.34 cluster): four nodes, one tainted control plane, one node
# where allocation timed out, two where it found no devices. The thread's cluster printed the
# taint ({node-role.kubernetes.io/control-plane: }): it predates #134740, which 1.34.2 took.
ISSUE_133531 = (node("control-plane", taints=CONTROL_PLANE_TAINT, devices=1) + node("slow", devices=1)
                + node("w1", devices=1) + node("w2", devices=1) + device_class()
                + claim("gpus", count=2) + pod("p", claim_name="gpus"))


@pytest.mark.parametrize("version", KUBE_VERSIONS)
def test_timeout_per_release(dry_run, monkeypatch, version):
    """dynamicresources_test.go TestPlugin "timeout": UnschedulableAndUnresolvable `timed out
    trying to allocate devices` up to 1.35; from 1.36 (#137607) an Error naming the node, and
    test/integration/dra/core.go testFilterTimeout "enabled" expects the pod's PodScheduled
    reason SchedulerError (expectPodSchedulerError) instead of Unschedulable."""
    _time_out_on(monkeypatch, "slow")
    reason = dry_run(ISSUE_133531, inventory=None, version=version).pods[-1].reasons[-1]
    if in_force("filter_timeout_is_error", version):
        assert reason.code in SCHEDULER_ERRORS
        assert reason.message == \
            'running "DynamicResources" filter plugin: node slow: timed out trying to allocate devices'
    else:
        assert reason.code not in SCHEDULER_ERRORS
        assert reason.message == (
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 1 timed out trying to allocate "
            "devices, 2 cannot allocate all claims. still not schedulable, preemption: 0/4 nodes are "
            "available: 4 Preemption is not helpful for scheduling.")


# -- events from public issue threads, rebuilt -----------------------------------------------------
# The threads' clusters predate DynamicResources' PostFilter message for pods without claims
# (1.34 runs the plugin for every pod), so dractl's message has "no new claims to deallocate, "
# where theirs go straight to "preemption:"; everything else is byte for byte.

REAL_EVENTS = [
    ("hwameistor/hwameistor#1227",
     "0/3 nodes are available: 1 node(s) were unschedulable, 2 Too many pods. preemption: 0/3 nodes are "
     "available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
     node("cordoned", unschedulable=True) + node("a", alloc={"cpu": "8", "memory": "8Gi", "pods": "1"})
     + node("b", alloc={"cpu": "8", "memory": "8Gi", "pods": "1"}) + pod("x") + pod("y") + pod("p")),
    ("harvester/harvester#3136",
     "0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No "
     "preemption victims found for incoming pod.",
     node("n1", alloc={"cpu": "8", "memory": "8Gi", "pods": "110"}) + pod("vm", requests={"memory": "6Gi"})
     + pod("p", requests={"memory": "4Gi"})),
]


@pytest.mark.parametrize("thread, event, text", REAL_EVENTS, ids=[r[0] for r in REAL_EVENTS])
def test_real_events(dry_run, thread, event, text):
    message = dry_run(text, inventory=None).pods[-1].reasons[-1].message
    assert message == event.replace(". preemption:", ". " + NO_CLAIMS + "preemption:")
