"""NodePorts (dractl/simulate/plugins/nodeports.py): host-port conflicts like upstream's
HostPortInfo, the ports a pod wants, and the state through Reserve and a gang's rollback."""

from __future__ import annotations

import json

import pytest

from dractl.simulate.nodes import port_conflicts as conflicts
from dractl.simulate.nodes import wanted_ports

GATES = "GenericWorkload=true"


@pytest.mark.parametrize("used,port,conflict", [
    ({("0.0.0.0", "TCP", 80)}, ("0.0.0.0", "TCP", 80), True),
    ({("0.0.0.0", "TCP", 80)}, ("10.0.0.1", "TCP", 80), True),     # the wildcard takes every address
    ({("10.0.0.1", "TCP", 80)}, ("0.0.0.0", "TCP", 80), True),     # and needs every address free
    ({("10.0.0.1", "TCP", 80)}, ("10.0.0.1", "TCP", 80), True),
    ({("10.0.0.1", "TCP", 80)}, ("10.0.0.2", "TCP", 80), False),   # other address
    ({("0.0.0.0", "TCP", 80)}, ("0.0.0.0", "UDP", 80), False),     # other protocol
    ({("0.0.0.0", "TCP", 80)}, ("0.0.0.0", "TCP", 81), False),     # other port
    (set(), ("0.0.0.0", "TCP", 80), False),
])
def test_conflicts(used, port, conflict):
    assert conflicts(used, *port) is conflict


def test_wanted_ports_defaults_and_skips():
    spec = {"containers": [
        {"name": "a", "ports": [{"containerPort": 80, "hostPort": 8080},
                                {"containerPort": 53, "hostPort": 53, "protocol": "UDP", "hostIP": "10.0.0.1"},
                                {"containerPort": 81},                       # no host port
                                {"containerPort": 82, "hostPort": 0}]}],
        "initContainers": [{"name": "i", "ports": [{"containerPort": 1, "hostPort": 1}]}]}
    assert wanted_ports(spec) == (("0.0.0.0", "TCP", 8080), ("10.0.0.1", "UDP", 53))
    # hostNetwork: API defaulting sets hostPort to containerPort
    assert wanted_ports({"hostNetwork": True, "containers": [{"ports": [{"containerPort": 81}]}]}) \
        == (("0.0.0.0", "TCP", 81),)
    assert wanted_ports({"containers": ["junk", {"ports": ["junk", {"hostPort": "80"}]}]}) == ()


def _node(name: str) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "Node",
                       "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                       "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}})


def _pod(name: str, port: int, group: str | None = None, cpu: str = "1") -> str:
    spec: dict = {"containers": [{"name": "c", "image": "pause",
                                  "ports": [{"containerPort": port, "hostPort": port}],
                                  "resources": {"requests": {"cpu": cpu}}}]}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": "default"}, "spec": spec})


def _gang(name: str, min_count: int) -> str:
    return json.dumps({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
                       "metadata": {"name": name, "namespace": "default"},
                       "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}}})


def placement(plan) -> dict:
    return {p.pod.name: p.node or p.status for p in plan.pods}


def test_same_port_spreads_then_fails(dry_run):
    text = "\n---\n".join([_node("a"), _node("b")] + [_pod(f"p{i}", 80) for i in range(3)]
                          + [_pod("other", 81)])
    plan = dry_run(text, inventory=None)
    assert placement(plan) == {"p0": "a", "p1": "b", "p2": "Unschedulable", "other": "a"}
    reason = plan.pods[2].reasons[-1].message
    assert "2 node(s) didn't have free ports for the requested pod ports" in reason
    assert "2 No preemption victims found for incoming pod" in reason  # Unschedulable, not Unresolvable


def test_gang_rollback_frees_the_ports(dry_run):
    # The gang's first member takes port 80 on a, the second cannot fit anywhere (cpu): the
    # gang is rolled back, so the pod after it gets port 80 on a.
    text = "\n---\n".join([_node("a"), _gang("g", 2), _pod("m1", 80, "g"),
                           _pod("m2", 90, "g", cpu="64"), _pod("after", 80)])
    plan = dry_run(text, inventory=None, gates=GATES)
    assert placement(plan) == {"m1": "Unschedulable", "m2": "Unschedulable", "after": "a"}
