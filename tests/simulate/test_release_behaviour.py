"""Scheduler behaviour that depends on the release (--kube-version): prioritized-list scoring
from 1.35 (#134711), a filter timeout as an Error from 1.36 (#137607), and 1.38's `All`
request on a node with an incomplete pool (#141898)."""

from __future__ import annotations

import pytest

from dractl.allocator import Allocator
from dractl.allocator.results import ERROR, AllocationOutcome


def nodes_and_slices(devices_by_node: dict[str, list[str]], slice_count: int = 1) -> str:
    parts = []
    for name, models in devices_by_node.items():
        parts.append(f"""apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
""")
        devices = "".join(f"""  - name: dev-{i}
    attributes:
      model: {{string: {model}}}
""" for i, model in enumerate(models))
        parts.append(f"""apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}-devs}}
spec:
  driver: gpu.example.com
  nodeName: {name}
  pool: {{name: {name}, generation: 1, resourceSliceCount: {slice_count if name == "n1" else 1}}}
  devices:
{devices}""")
    parts.append("""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
""")
    return "---\n".join(parts)


def pod_with_claim(claim_spec: str) -> str:
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: c, namespace: default}}
spec:
  devices:
    requests:
{claim_spec}---
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


PRIORITIZED = """    - name: gpu
      firstAvailable:
      - name: big
        deviceClassName: gpu
        selectors:
        - cel: {expression: 'device.attributes["gpu.example.com"].model == "big"'}
      - name: small
        deviceClassName: gpu
        selectors:
        - cel: {expression: 'device.attributes["gpu.example.com"].model == "small"'}
"""


@pytest.mark.parametrize("version, node", [("1.34", "n1"), ("1.35", "n2"), ("1.36", "n2"),
                                           ("1.37", "n2"), ("1.38", "n2")])
def test_prioritized_list_scoring_from_135(dry_run, version, node):
    # n1 only has the second choice, n2 the first: 1.34 has no DRA score (first feasible node
    # in inventory order), 1.35+ prefers the node where the higher-ranked subrequest fits.
    inventory = nodes_and_slices({"n1": ["small"], "n2": ["big"]})
    plan = dry_run("---\n".join([inventory, pod_with_claim(PRIORITIZED)]), inventory=None,
                   version=version)
    assert not plan.validation_errors, plan.validation_errors
    assert [(p.status, p.node) for p in plan.pods] == [("Scheduled", node)]


def _time_out(monkeypatch):
    def allocate(self, node, claims, *, timeout=None, **kwargs):
        return AllocationOutcome(ERROR, tuple(claims), error="filter operation aborted: timed out",
                                 timed_out=True)
    monkeypatch.setattr(Allocator, "allocate", allocate)


EXACT = """    - name: gpu
      exactly: {deviceClassName: gpu}
"""


@pytest.mark.parametrize("version", ["1.34", "1.35"])
def test_timeout_before_136_is_unresolvable_per_node(dry_run, monkeypatch, version):
    _time_out(monkeypatch)
    inventory = nodes_and_slices({"n1": ["big"], "n2": ["big"]})
    plan = dry_run("---\n".join([inventory, pod_with_claim(EXACT)]), inventory=None, version=version)
    reason = plan.pods[0].reasons[-1]
    assert reason.code == "DRA5001"   # the FitError: every node was tried
    assert reason.message.startswith("0/2 nodes are available: 2 timed out trying to allocate devices. ")
    assert "Preemption is not helpful" in reason.message


@pytest.mark.parametrize("version", ["1.36", "1.37", "1.38"])
def test_timeout_from_136_is_an_error(dry_run, monkeypatch, version):
    _time_out(monkeypatch)
    inventory = nodes_and_slices({"n1": ["big"], "n2": ["big"]})
    plan = dry_run("---\n".join([inventory, pod_with_claim(EXACT)]), inventory=None, version=version)
    pod = plan.pods[0]
    assert pod.status == "Unschedulable"
    assert pod.reasons[-1].code == "DRA5011"   # the attempt fails (retried with back-off)
    # RunFilterPlugins wraps the plugin's error (1.36: "node <name>: ...", #137607)
    assert pod.reasons[-1].message == ('running "DynamicResources" filter plugin: node n1: '
                                       "timed out trying to allocate devices")
    assert list(pod.node_failures) == []        # aborted at the first node


ALL = """    - name: gpu
      exactly: {deviceClassName: gpu, allocationMode: All}
"""


@pytest.mark.parametrize("version, outcome", [("1.37", ("Unschedulable", "")), ("1.38", ("Scheduled", "n2"))])
def test_all_request_with_incomplete_pool_on_one_node(dry_run, version, outcome):
    # n1's pool says 2 slices, the input has 1: incomplete. 1.37: an allocator error that aborts
    # the attempt; 1.38 (#141898): n1 is unsuitable, n2 is tried.
    inventory = nodes_and_slices({"n1": ["big"], "n2": ["big"]}, slice_count=2)
    plan = dry_run("---\n".join([inventory, pod_with_claim(ALL)]), inventory=None, version=version)
    pod = plan.pods[0]
    assert (pod.status, pod.node) == outcome
    if version == "1.37":
        assert pod.reasons[-1].code == "DRA5011"
        assert "asks for all devices, but resource pool" in pod.reasons[-1].message
    else:
        assert "asks for all devices, but resource pool" in pod.node_failures["n1"]


def taint_rule(selector: str) -> str:
    return f"""apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {{name: maintenance}}
spec:{selector}
  taint: {{key: maintenance, value: "true", effect: NoSchedule}}
"""


@pytest.mark.parametrize("version, selector, status", [
    ("1.37", "", "Unschedulable"),                     # no selector: every device (1.37.0 bug)
    ("1.38", "", "Scheduled"),                         # #141648: no selector matches no device
    ("1.37", "\n  deviceSelector: {}", "Unschedulable"),  # the empty selector matches all
    ("1.38", "\n  deviceSelector: {}", "Unschedulable"),
])
def test_device_taint_rule_without_selector(dry_run, version, selector, status):
    inventory = nodes_and_slices({"n1": ["big"]})
    plan = dry_run("---\n".join([inventory, taint_rule(selector), pod_with_claim(EXACT)]),
                   inventory=None, version=version)
    assert not plan.validation_errors, plan.validation_errors
    assert plan.pods[0].status == status
