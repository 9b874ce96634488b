"""Nodes that pool gathering cannot tell apart share their pools, and a failed search or an
explanation on one of them is reused for the others (dractl's own shortcut): the outcomes must
be those of searching every node afresh (`shortcuts=False`)."""

from __future__ import annotations

from alloc_testkit import FakeEngine, claim, device, device_class, features, in_use, request, slice_

from dractl.allocator import Allocator, Compat
from dractl.allocator.nodes import NodeInfo


def _node(name, **labels):
    return NodeInfo(name, labels)


def _selected(name, pool, devices, **labels):
    terms = [{"matchExpressions": [{"key": k, "operator": "In", "values": [v]} for k, v in labels.items()]}]
    return slice_(name, pool=pool, devices=devices, nodeSelector={"nodeSelectorTerms": terms})


def _allocator(slices, allocated=(), shortcuts=True):
    return Allocator(features(), [device_class()], slices, allocated, (), FakeEngine(), compat=Compat(),
                     share_id=lambda: "share", shortcuts=shortcuts)


SLICES = [_selected("east", "pool-east", ["e1"], zone="east"),
          _selected("west", "pool-west", ["w1", "w2"], zone="west"),
          slice_("everywhere", pool="pool-all", devices=["a1"], node=None, allNodes=True)]
NODES = [_node("n1", zone="east", host="n1"), _node("n2", zone="east", host="n2"),
         _node("n3", zone="west", host="n3"), _node("n4", host="n4")]


def test_nodes_alike_share_pools_and_others_do_not():
    inventory = _allocator(SLICES).inventory
    n1, n2, n3, n4 = (inventory.pools_for(n, "") for n in NODES)
    assert n1.candidates is n2.candidates and n1.node.name == "n1" and n2.node.name == "n2"
    assert n1.node_independent and n3.node_independent
    assert [c.device.name for c in n1.candidates] == ["a1", "e1"]
    assert [c.device.name for c in n3.candidates] == ["a1", "w1", "w2"]
    assert [c.device.name for c in n4.candidates] == ["a1"]
    assert n3.candidates is not n1.candidates and n4.candidates is not n1.candidates


def test_node_local_and_per_device_slices_are_gathered_per_node():
    local = SLICES + [slice_("local", pool="pool-n1", devices=["l1"], node="n1")]
    inventory = _allocator(local).inventory
    assert not inventory.pools_for(NODES[0], "").node_independent       # has a node-local slice
    assert inventory.pools_for(NODES[1], "").node_independent
    per_device = SLICES + [slice_("pd", pool="pool-pd", node=None, perDeviceNodeSelection=True,
                                  devices=[device("p1", nodeName="n1"), device("p2", nodeName="n2")])]
    inventory = _allocator(per_device).inventory
    one, two = inventory.pools_for(NODES[0], ""), inventory.pools_for(NODES[1], "")
    assert not one.node_independent and one.candidates is not two.candidates


def _verdicts(allocator, claims):
    out = []
    for node in NODES:
        outcome = allocator.allocate(node, claims)
        explanation = allocator.explain(node, claims)
        out.append((node.name, outcome.status, tuple(r.devices for r in outcome.results),
                    explanation.node, explanation.requests))
    return out


def test_outcomes_and_explanations_as_without_shortcuts():
    used = [in_use("taken", ("driver-a", "pool-all", "a1"))]
    for count in (1, 2, 3):
        claims = [claim(requests=[request(count=count)])]
        fast = _verdicts(_allocator(SLICES, used), claims)
        plain = _verdicts(_allocator(SLICES, used, shortcuts=False), claims)
        assert fast == plain, count
    statuses = [v[1] for v in _verdicts(_allocator(SLICES, used), [claim(requests=[request(count=2)])])]
    assert statuses == ["unsatisfiable", "unsatisfiable", "allocated", "unsatisfiable"]


def test_a_failure_is_not_reused_once_the_allocated_state_changes():
    allocator = _allocator(SLICES, [in_use("taken", ("driver-a", "pool-all", "a1"))])
    claims = [claim(requests=[request(count=2)])]
    assert allocator.allocate(NODES[0], claims).status == "unsatisfiable"
    allocator.release("taken")
    assert allocator.allocate(NODES[1], claims).status == "allocated"
