"""The public API: outcomes, deadlines, incremental commits, reuse across nodes."""

from __future__ import annotations

from alloc_testkit import (
    NODE,
    FakeEngine,
    allocator,
    claim,
    device,
    device_class,
    features,
    picked,
    request,
    slice_,
)

from dractl.allocator import Allocator, Inventory
from dractl.api.resource import AllocationResult


def test_outcome_shapes():
    alloc = allocator([device_class()], [slice_(devices=["d1"])])
    ok = alloc.allocate(NODE, [claim()])
    assert ok.allocated and not ok.unsatisfiable and not ok.is_error
    assert ok.to_status_dicts() == [{
        "devices": {"results": [{"request": "req-0", "driver": "driver-a", "pool": "pool-1", "device": "d1"}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}}]
    assert ok.allocation_for("default/claim-0") is ok.results[0]
    none = alloc.allocate(NODE, [claim(requests=[request(count=2)])])
    assert none.unsatisfiable and none.results == () and none.error is None
    assert alloc.allocate(NODE, []).allocated


def test_deadline_stops_an_exploding_search():
    devices = [device(f"d{i:02}", attributes={"kind": {"string": "a"}}) for i in range(40)]
    c = claim(requests=[request("big", count=12), request("never", selectors=['attr("kind") == "b"'])])
    out = allocator([device_class()], [slice_(devices=devices)]).allocate(NODE, [c], timeout=0.05)
    assert out.is_error and out.timed_out and not out.node_failure
    assert out.error.startswith("filter operation aborted: timed out while allocating claim default/claim-0, request ")


def test_commit_makes_devices_in_use_for_later_calls():
    inventory = Inventory(features(), [device_class()], [slice_(devices=["d1", "d2"])])
    alloc = Allocator.from_inventory(inventory, FakeEngine())
    first = alloc.allocate(NODE, [claim("a")])
    alloc.commit("a", first.results[0])
    second = alloc.allocate(NODE, [claim("b")])
    assert picked(first) == ["req-0:d1"] and picked(second) == ["req-0:d2"]
    alloc.commit("b", second.results[0])
    assert alloc.allocate(NODE, [claim("c")]).unsatisfiable
    alloc.release("a")
    assert picked(alloc.allocate(NODE, [claim("c")])) == ["req-0:d1"]


def test_counter_cache_follows_commits():
    counters = slice_("counters", devices=[], count=2, sharedCounters=[{"name": "set", "counters": {"m": {"value": "8"}}}])
    devs = [device(f"d{i}", consumesCounters=[{"counterSet": "set", "counters": {"m": {"value": "5"}}}]) for i in (1, 2)]
    inventory = Inventory(features(), [device_class()], [counters, slice_("devices", devices=devs, count=2)])
    alloc = Allocator.from_inventory(inventory, FakeEngine())
    first = alloc.allocate(NODE, [claim("a")])
    assert picked(first) == ["req-0:d1"]
    alloc.commit("a", first.results[0])
    assert alloc.allocate(NODE, [claim("b")]).unsatisfiable      # 5 + 5 > 8 once d1 is committed


def test_pools_are_gathered_once_per_node():
    inventory = Inventory(features(), [device_class()],
                          [slice_(devices=["d1"]), slice_("s2", pool="p2", devices=["d2"], node="node-2")])
    alloc = Allocator.from_inventory(inventory, FakeEngine())
    for _ in range(3):
        assert picked(alloc.allocate(NODE, [claim()])) == ["req-0:d1"]
        assert picked(alloc.allocate({"metadata": {"name": "node-2"}}, [claim()])) == ["req-0:d2"]
    assert len(inventory._pools) == 2


def test_gather_error_for_bad_slice_selector():
    bad = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In"}]}]}
    out = allocator([device_class()], [slice_(devices=["d1"], nodeSelector=bad)]).allocate(NODE, [claim()])
    assert out.is_error
    assert out.error.startswith("gather pool information: failed to perform node selection for slice slice-1: "
                                "failed to parse node selector")


def test_allocated_claims_in_input_block_devices():
    done = claim("old", allocation={"devices": {"results": [
        {"request": "req-0", "driver": "driver-a", "pool": "pool-1", "device": "d1"}]}})
    alloc = allocator([device_class()], [slice_(devices=["d1", "d2"])], [done])
    assert picked(alloc.allocate(NODE, [claim()])) == ["req-0:d2"]
    assert isinstance(done.allocation, AllocationResult)


def test_explanation_is_marked_partial_when_the_deadline_passes():
    devices = [device(f"d{i:02}", attributes={"kind": {"string": "a"}}) for i in range(40)]
    c = claim(requests=[request("big", count=12), request("never", selectors=['attr("kind") == "b"'])])
    alloc = allocator([device_class()], [slice_(devices=devices)])
    explanation = alloc.explain(NODE, [c], timeout=0.05)
    assert explanation.partial
    never = [r for r in explanation.requests if r.request == "never"][0]
    assert never.rejected == {"request-selector": 40} and never.short
