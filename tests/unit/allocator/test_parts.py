"""Allocated state, node selection, capacity policies, taint rules."""

from __future__ import annotations

import pytest

from dractl.allocator.capacity import capacity_fits, consumed_amount, violates_policy
from dractl.allocator.nodes import NodeInfo, NodeSelectorError, node_matches, node_selector_matches
from dractl.allocator.state import AllocatedState
from dractl.allocator.taints import apply_taint_rules, tolerates, untolerated_taint
from dractl.api.quantity import Quantity
from dractl.api.resource import (
    AllocationResult,
    CapacityRequestPolicy,
    CapacityRequestPolicyRange,
    DeviceCapacity,
    DeviceTaint,
    DeviceTaintRule,
    DeviceToleration,
    NodeSelector,
    ResourceSlice,
)

Q = Quantity.parse


def _alloc(*results):
    return AllocationResult.from_dict({"devices": {"results": list(results)}})


def test_allocated_state_is_incremental():
    state = AllocatedState(consumable_capacity=True)
    state.add("a", _alloc({"request": "r", "driver": "d", "pool": "p", "device": "x"},
                          {"request": "r", "driver": "d", "pool": "p", "device": "adm", "adminAccess": True},
                          {"request": "r", "driver": "d", "pool": "p", "device": "s", "shareID": "1",
                           "consumedCapacity": {"m": "2"}}))
    state.add("b", _alloc({"request": "r", "driver": "d", "pool": "p", "device": "s", "shareID": "2",
                           "consumedCapacity": {"m": "3"}}))
    assert state.is_allocated(("d", "p", "x")) and not state.is_allocated(("d", "p", "adm"))
    assert not state.is_allocated(("d", "p", "s")) and state.counts_for_counters(("d", "p", "s"))
    assert state.committed_capacity(("d", "p", "s")) == {"m": 5}
    version = state.version
    state.remove("b")
    assert state.committed_capacity(("d", "p", "s")) == {"m": 2} and state.version > version
    state.remove("a")
    assert state.committed_capacity(("d", "p", "s")) is None and not state.counts_for_counters(("d", "p", "x"))


def test_shares_are_exclusive_without_consumable_capacity():
    state = AllocatedState(consumable_capacity=False)
    state.add("a", _alloc({"request": "r", "driver": "d", "pool": "p", "device": "s", "shareID": "1"}))
    assert state.is_allocated(("d", "p", "s"))


def _sel(*exprs, fields=()):
    return NodeSelector.from_dict({"nodeSelectorTerms": [{"matchExpressions": list(exprs), "matchFields": list(fields)}]})


def test_node_selector_operators():
    node = NodeInfo("n1", {"zone": "a", "gpus": "4"})
    assert node_selector_matches(_sel({"key": "zone", "operator": "In", "values": ["a", "b"]}), node)
    assert node_selector_matches(_sel({"key": "rack", "operator": "NotIn", "values": ["x"]}), node)
    assert node_selector_matches(_sel({"key": "zone", "operator": "Exists"}), node)
    assert not node_selector_matches(_sel({"key": "zone", "operator": "DoesNotExist"}), node)
    assert node_selector_matches(_sel({"key": "gpus", "operator": "Gt", "values": ["3"]}), node)
    assert not node_selector_matches(_sel({"key": "gpus", "operator": "Lt", "values": ["3"]}), node)
    assert node_selector_matches(_sel(fields=[{"key": "metadata.name", "operator": "In", "values": ["n1"]}]), node)
    assert not node_selector_matches(NodeSelector.from_dict({"nodeSelectorTerms": [{}]}), node)


def test_node_selector_parse_errors():
    node = NodeInfo("n1")
    for bad in ({"key": "zone", "operator": "In"}, {"key": "zone", "operator": "Gt", "values": ["x"]},
                {"key": "zone", "operator": "Near", "values": ["x"]}, {"key": "-bad-", "operator": "Exists"}):
        with pytest.raises(NodeSelectorError, match="failed to parse node selector"):
            node_selector_matches(_sel(bad), node)


def test_node_matches_precedence():
    node = NodeInfo.from_any({"metadata": {"name": "n1"}})
    assert node_matches(node, "n1", None, None) and not node_matches(node, "n2", True, None)
    assert node_matches(node, None, True, None) and not node_matches(node, None, None, None)


def _cap(value, default=None, lo=None, hi=None, step=None, values=None):
    rng = CapacityRequestPolicyRange(lo and Q(lo), hi and Q(hi), step and Q(step)) if lo or hi or step else None
    policy = CapacityRequestPolicy(default and Q(default), values and tuple(Q(v) for v in values), rng) \
        if default or rng or values else None
    return DeviceCapacity(Q(value), policy)


def test_request_policies():
    cap = _cap("4", default="2", lo="2", step="2", hi="4")
    assert consumed_amount(Q("1"), cap) == Q("2")
    assert consumed_amount(Q("3"), cap) == Q("4")
    assert consumed_amount(None, cap) == Q("2")
    assert violates_policy(consumed_amount(Q("6"), cap), cap.request_policy)
    vv = _cap("4", values=["1", "3"])
    assert consumed_amount(Q("2"), vv) == Q("3") and violates_policy(Q("4"), vv.request_policy)
    assert consumed_amount(None, _cap("7")) == Q("7")


def test_capacity_fits():
    class Dev:
        capacities = {"m": _cap("10")}
    assert capacity_fits({"m": Q("4")}, Dev, {"m": 4}, {"m": 2})
    assert not capacity_fits({"m": Q("4")}, Dev, {"m": 4}, {"m": 3})
    assert not capacity_fits({"other": Q("1")}, Dev, None, None)
    assert not capacity_fits(None, Dev, {"m": 1}, None)      # unrequested capacity consumes it all


def test_tolerations():
    taint = DeviceTaint("k", "v", "NoSchedule")
    assert tolerates(DeviceToleration("k", "Equal", "v"), taint)
    assert not tolerates(DeviceToleration("k", "Equal", "w"), taint)
    assert tolerates(DeviceToleration("", "Exists"), taint)
    assert not tolerates(DeviceToleration("k", "Exists", effect="NoExecute"), taint)
    assert untolerated_taint((DeviceTaint("k", "v", "None"),), ()) is None


def test_taint_rules():
    sl = ResourceSlice.from_dict({"metadata": {"name": "s"}, "spec": {
        "driver": "d", "pool": {"name": "p"}, "devices": [{"name": "a"}, {"name": "b"}]}})
    rule = DeviceTaintRule.from_dict({"metadata": {"name": "r"}, "spec": {
        "deviceSelector": {"device": "b"}, "taint": {"key": "k", "effect": "NoSchedule"}}})
    everything = DeviceTaintRule.from_dict({"metadata": {"name": "all"}, "spec": {"taint": {"key": "x", "effect": "None"}}})
    other = DeviceTaintRule.from_dict({"metadata": {"name": "o"}, "spec": {
        "deviceSelector": {"driver": "other"}, "taint": {"key": "k", "effect": "NoSchedule"}}})
    (out,) = apply_taint_rules([sl], [rule, everything, other])
    assert [t.key for t in out.devices[0].taints] == ["x"]
    assert [t.key for t in out.devices[1].taints] == ["k", "x"]
    assert out.devices[1].key == sl.devices[1].key
