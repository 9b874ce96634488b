"""Search order, backtracking and the reference snapshot's decision-changing quirks."""

from __future__ import annotations

from alloc_testkit import (
    NODE,
    FakeEngine,
    allocator,
    claim,
    device,
    device_class,
    in_use,
    picked,
    request,
    slice_,
)

from dractl.allocator import Compat


def _typed(name, kind):
    return device(name, attributes={"type": {"string": kind}})


def test_worked_example_backtracking():
    # docs/spec/allocator.md#worked-examples example 1: r1 takes {d1,d2}, {d1,d3}, then {d2,d3}; r2
    # then takes d1.
    slices = [slice_(devices=[_typed("d1", "X"), _typed("d2", "Y"), _typed("d3", "Y")])]
    c = claim(requests=[request("r1", count=2), request("r2", count=1, selectors=['attr("type") == "X"'])])
    out = allocator([device_class()], slices).allocate(NODE, [c])
    assert picked(out) == ["r1:d2", "r1:d3", "r2:d1"]
    assert out.steps > 0


def test_worked_example_prioritized_lists():
    slices = [slice_(devices=[_typed("d1", "X"), _typed("d2", "Y"), _typed("d3", "Y")])]
    r1 = {"name": "r1", "firstAvailable": [
        {"name": "sub0", "deviceClassName": "class-a", "count": 3, "selectors": [{"cel": {"expression": 'attr("type") == "Y"'}}]},
        {"name": "sub1", "deviceClassName": "class-a", "count": 2}]}
    r2 = {"name": "r2", "firstAvailable": [
        {"name": "sub0", "deviceClassName": "class-a", "count": 2},
        {"name": "sub1", "deviceClassName": "class-a", "count": 1, "selectors": [{"cel": {"expression": 'attr("type") == "X"'}}]}]}
    out = allocator([device_class()], slices).allocate(NODE, [claim(requests=[r1, r2])])
    assert picked(out) == ["r1/sub1:d2", "r1/sub1:d3", "r2/sub1:d1"]


def test_binding_condition_pools_are_searched_last():
    slices = [slice_("a", pool="pool-1", devices=[_typed("d1", "X"), _typed("d2", "Y")]),
              slice_("b", pool="pool-0", devices=[device("d3", bindingConditions=["ready"])])]
    c = claim(requests=[request("r1", count=2), request("r2", count=1, selectors=['attr("type") == "X"'])])
    out = allocator([device_class()], slices).allocate(NODE, [c])
    assert [(r.pool, r.device) for r in out.results[0].devices] == [("pool-1", "d2"), ("pool-0", "d3"), ("pool-1", "d1")]
    assert out.results[0].devices[1].binding_conditions == ("ready",)


def test_pools_sorted_by_driver_then_name_and_slices_by_name():
    slices = [slice_("z", pool="b", devices=["d-b"]), slice_("y", pool="a", devices=["d-a2"], count=2),
              slice_("x", pool="a", devices=["d-a1"], count=2)]
    out = allocator([device_class()], slices).allocate(NODE, [claim(requests=[request(count=3)])])
    assert picked(out) == ["req-0:d-a1", "req-0:d-a2", "req-0:d-b"]


def test_admin_access_ordering():
    slices = [slice_(devices=["d1", "d2"])]
    admin = claim("claim-1", requests=[request(adminAccess=True)])
    normal = claim("claim-0")
    out = allocator([device_class()], slices).allocate(NODE, [normal, admin])
    assert picked(out, 0) == ["req-0:d1"] and picked(out, 1) == ["req-0:d1"]
    assert out.results[1].devices[0].admin_access is True
    out = allocator([device_class()], slices).allocate(NODE, [admin, normal])
    assert picked(out, 0) == ["req-0:d1"] and picked(out, 1) == ["req-0:d2"]


def _counter_pool(*devices):
    counters = slice_("counters", devices=[], count=2, sharedCounters=[{"name": "set", "counters": {"mem": {"value": "8"}}}])
    return [counters, slice_("devices", devices=list(devices), count=2)]


def _consumer(name, amount, **extra):
    return device(name, consumesCounters=[{"counterSet": "set", "counters": {"mem": {"value": str(amount)}}}], **extra)


def test_counter_combination():
    # docs/spec/allocator.md#worked-examples example 4.
    slices = _counter_pool(_consumer("d1", 5), _consumer("d2", 4), _consumer("d3", 4))
    out = allocator([device_class()], slices).allocate(NODE, [claim(requests=[request(count=2)])])
    assert picked(out) == ["req-0:d2", "req-0:d3"]


def test_counters_leak_on_taint_rejection_unless_fixed():
    tainted = _consumer("d1", 6, taints=[{"key": "k", "effect": "NoSchedule"}])
    slices = _counter_pool(tainted, _consumer("d2", 6))
    assert allocator([device_class()], slices).allocate(NODE, [claim()]).unsatisfiable
    fixed = allocator([device_class()], slices, compat=Compat(release_reserved_state=True)).allocate(NODE, [claim()])
    assert picked(fixed) == ["req-0:d2"]


def test_counter_availability_counts_allocated_devices_of_other_nodes():
    counters = slice_("counters", devices=[], count=3, sharedCounters=[{"name": "set", "counters": {"mem": {"value": "8"}}}])
    here = slice_("here", devices=[_consumer("d1", 4)], count=3)
    there = slice_("there", devices=[_consumer("d2", 6)], count=3, node="node-2")
    used = in_use("in-use-0", ("driver-a", "pool-1", "d2"))
    assert allocator([device_class()], [counters, here, there], [used]).allocate(NODE, [claim()]).unsatisfiable
    assert picked(allocator([device_class()], [counters, here, there]).allocate(NODE, [claim()])) == ["req-0:d1"]


def test_counters_keyed_by_pool_name_across_drivers():
    def pool(driver):
        return [slice_(f"{driver}-c", driver=driver, pool="shared", devices=[], count=2,
                       sharedCounters=[{"name": "set", "counters": {"mem": {"value": "8"}}}]),
                slice_(f"{driver}-d", driver=driver, pool="shared", devices=[_consumer(f"{driver}-dev", 6)], count=2)]
    classes = [device_class("class-a", "driver-a"), device_class("class-b", "driver-b")]
    c = claim(requests=[request("a", cls="class-a"), request("b", cls="class-b")])
    # Upstream keys counter bookkeeping by pool name only: 6 + 6 > 8 in the shared "shared" entry.
    assert allocator(classes, pool("driver-a") + pool("driver-b")).allocate(NODE, [c]).unsatisfiable


def test_distinct_attribute_snapshot_compares_latest_device_per_request():
    devs = [device(n, allowMultipleAllocations=True, attributes={"v": {"int": v}})
            for n, v in (("a", 1), ("b", 2), ("c", 1))]
    c = claim(requests=[request(count=3)], constraints=[{"distinctAttribute": "driver-a/v"}])
    out = allocator([device_class()], [slice_(devices=devs)]).allocate(NODE, [c])
    assert picked(out) == ["req-0:a", "req-0:b", "req-0:c"]   # the duplicate value 1 slips through
    fixed = allocator([device_class()], [slice_(devices=devs)], compat=Compat(distinct_all_devices=True))
    assert fixed.allocate(NODE, [c]).unsatisfiable


def test_distinct_attribute_is_an_error_in_the_stable_variant():
    c = claim(constraints=[{"distinctAttribute": "driver-a/v"}])
    out = allocator([device_class()], [slice_(devices=["a"])], consumable_capacity=False,
                    device_binding_and_status=False).allocate(NODE, [c])
    assert out.is_error and out.error == "claim default/claim-0, constraint #0: empty constraint (unsupported constraint type?)"


def test_match_attribute_list_mode_keeps_narrowed_intersection_after_backtracking():
    devs = [device("A", attributes={"numa": {"ints": [1, 2]}}), device("B", attributes={"numa": {"ints": [2]}}),
            device("C", attributes={"numa": {"ints": [1]}})]
    c = claim(requests=[request("r1", count=2), request("r2", selectors=['device.name == "B"'])],
              constraints=[{"requests": ["r1"], "matchAttribute": "driver-a/numa"}])
    out = allocator([device_class()], [slice_(devices=devs)], list_type_attributes=True).allocate(NODE, [c])
    # {A,B} leaves r2 nothing; after B is removed the intersection stays {2}, so {A,C} is rejected.
    assert out.unsatisfiable


def test_match_attribute_scalar_mode_compares_versions_as_strings():
    devs = [device("a", attributes={"v": {"version": "1.0.0"}}), device("b", attributes={"v": {"version": "1.0.0+build"}}),
            device("c", attributes={"v": {"version": "1.0.0"}})]
    c = claim(requests=[request(count=2)], constraints=[{"matchAttribute": "driver-a/v"}])
    assert picked(allocator([device_class()], [slice_(devices=devs)]).allocate(NODE, [c])) == ["req-0:a", "req-0:c"]


def test_all_mode_constraint_violation_is_an_error():
    devs = [device("a", attributes={"v": {"int": 1}}), device("b", attributes={"v": {"int": 2}})]
    c = claim(requests=[request(mode="All")], constraints=[{"matchAttribute": "driver-a/v"}])
    out = allocator([device_class()], [slice_(devices=devs)]).allocate(NODE, [c])
    assert out.error == ("claim default/claim-0, request req-0: cannot add device driver-a/pool-1/b "
                         "because a claim constraint would not be satisfied")


def test_all_mode_limit_is_a_hard_error():
    out = allocator([device_class()], [slice_(devices=[f"d{i}" for i in range(33)])]).allocate(
        NODE, [claim(requests=[request(mode="All")])])
    assert out.error == "claim default/claim-0: number of requested devices 33 exceeds the claim limit of 32"


def test_max_size_moves_to_next_subrequest():
    devs = [f"d{i:02}" for i in range(40)]
    r0 = {"name": "r0", "firstAvailable": [{"name": "big", "deviceClassName": "class-a", "count": 30},
                                          {"name": "small", "deviceClassName": "class-a", "count": 2}]}
    c = claim(requests=[r0, request("r1", count=5)])
    out = allocator([device_class()], [slice_(devices=devs)]).allocate(NODE, [c])
    assert [r.request for r in out.results[0].devices] == ["r0/small"] * 2 + ["r1"] * 5


def test_selectors_are_lazy_and_in_order():
    engine = FakeEngine()
    cls = device_class(selectors=['device.driver == "driver-a"', "COMPILE_ERROR"])
    slices = [slice_(devices=["d1"]), slice_("s2", driver="driver-b", pool="p2", devices=["d2"])]
    out = allocator([cls], slices, engine=engine).allocate(NODE, [claim()])
    # driver-a's device reaches the broken selector; the compile error is reported for the class.
    assert out.is_error
    assert out.error.startswith("class class-a: selector #1: CEL compile error: ")
    # Nothing is evaluated for a device that is in use.
    engine2 = FakeEngine()
    alloc = allocator([device_class(selectors=["RUNTIME_ERROR"])], [slice_(devices=["d1"])],
                      [in_use("in-use-0", ("driver-a", "pool-1", "d1"))], engine=engine2)
    assert alloc.allocate(NODE, [claim()]).unsatisfiable and engine2.calls == []


def test_runtime_error_message():
    out = allocator([device_class()], [slice_(devices=["d1"])]).allocate(
        NODE, [claim(requests=[request(selectors=["RUNTIME_ERROR"])])])
    assert out.error.startswith("claim default/claim-0: selector #0 on device driver-a/pool-1/d1: "
                                "CEL runtime error: no such key: model")


def test_pre_pass_errors_in_order():
    cls = [device_class()]
    sl = [slice_(devices=["d1"])]
    cases = [
        (claim(requests=[{"name": "r", "firstAvailable": [{"name": "s", "deviceClassName": "class-a"}]}]),
         dict(prioritized_list=False), "claim default/claim-0, request r: has subrequests, but the DRAPrioritizedList feature is disabled"),
        (claim(requests=[request(capacity={"requests": {"m": "1"}})]), dict(consumable_capacity=False),
         "claim default/claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled"),
        (claim(requests=[{"name": "req-0", "exactly": {"deviceClassName": "class-a", "selectors": [{}]}}]), {},
         "claim default/claim-0, request req-0, selector #0: CEL expression empty (unsupported selector type?)"),
        (claim(requests=[request(adminAccess=False)]), dict(admin_access=False),
         "claim default/claim-0, request req-0: admin access is requested, but the feature is disabled"),
        (claim(requests=[request(cls="")]), {},
         "claim default/claim-0, request req-0: missing device class name (unsupported request type?)"),
        (claim(requests=[request(cls="nope")]), {}, "claim default/claim-0, request req-0: could not retrieve device class nope"),
        (claim(requests=[request(mode="Future")]), {}, "claim default/claim-0, request req-0: unsupported count mode Future"),
        (claim(constraints=[{}]), {}, "claim default/claim-0, constraint #0: empty constraint (unsupported constraint type?)"),
        (claim(requests=[{"name": "req-0"}]), {}, "resource claim default/claim-0, request req-0: unknown request type"),
    ]
    for c, feats, message in cases:
        out = allocator(cls, sl, **feats).allocate(NODE, [c])
        assert out.is_error and out.error.startswith(message), (message, out.error)


def test_all_mode_incomplete_pool_of_any_driver_is_an_error():
    slices = [slice_(devices=["d1"]), slice_("other", driver="driver-z", pool="z", devices=["z1"], count=2)]
    out = allocator([device_class()], slices).allocate(NODE, [claim(requests=[request(mode="All")])])
    assert out.error == ("claim default/claim-0, request req-0: asks for all devices, but resource pool "
                         "driver-z/z is currently being updated")


def test_obsolete_pool_is_dropped_silently():
    local = slice_("s1", devices=["d1"], count=2, generation=1)
    newer = slice_("s2", devices=["d2"], count=2, generation=2, node="node-2")
    out = allocator([device_class()], [local, newer]).allocate(NODE, [claim(requests=[request(mode="All")])])
    assert out.unsatisfiable


def test_node_selector_merging_and_node_local():
    def sel(key, value):
        return {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}
    slices = [slice_("s1", pool="p1", devices=["d1"], nodeSelector=sel("region", "r1")),
              slice_("s2", pool="p2", devices=["d2"], nodeSelector=sel("region", "r1")),
              slice_("s3", pool="p3", devices=["d3"], allNodes=True)]
    out = allocator([device_class()], slices).allocate(NODE, [claim(requests=[request(count=3)])])
    assert out.results[0].node_selector.to_dict() == {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "region", "operator": "In", "values": ["r1"]}]}]}
    out = allocator([device_class()], slices[2:]).allocate(NODE, [claim()])
    assert out.results[0].node_selector is None
    out = allocator([device_class()], [slice_(devices=["d1"])]).allocate(NODE, [claim()])
    assert out.results[0].node_selector.to_dict() == {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}


def test_config_from_class_and_claim_with_widening():
    cls = device_class(config=[{"opaque": {"driver": "driver-a", "parameters": {"a": 1}}}])
    sub = {"name": "r0", "firstAvailable": [{"name": "big", "deviceClassName": "class-a", "count": 5},
                                           {"name": "small", "deviceClassName": "class-a"}]}
    config = [{"requests": ["r0/big"], "opaque": {"driver": "driver-a", "parameters": {"b": 1}}},
              {"requests": ["r0/small"], "opaque": {"driver": "driver-a", "parameters": {"s": 1}}},
              {"requests": ["r1"], "opaque": {"driver": "driver-a", "parameters": {"r1": 1}}}]
    c = claim(requests=[sub, request("r1")], config=config)
    out = allocator([cls], [slice_(devices=["d1", "d2"])]).allocate(NODE, [c])
    assert [cfg.to_dict() for cfg in out.results[0].config] == [
        {"source": "FromClass", "opaque": {"driver": "driver-a", "parameters": {"a": 1}}},
        {"source": "FromClaim", "requests": ["r0/small"], "opaque": {"driver": "driver-a", "parameters": {"s": 1}}},
        {"source": "FromClaim", "requests": ["r1"], "opaque": {"driver": "driver-a", "parameters": {"r1": 1}}},
    ]


def test_consumable_capacity_shares():
    dev = device("d1", allowMultipleAllocations=True, capacity={"bw": {
        "value": "10", "requestPolicy": {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}}})
    c0 = claim("claim-0", requests=[request(capacity={"requests": {"bw": "3"}})])
    c1 = claim("claim-1", requests=[request()])
    out = allocator([device_class()], [slice_(devices=[dev])]).allocate(NODE, [c0, c1])
    r0, r1 = out.results[0].devices[0], out.results[1].devices[0]
    assert (r0.device, r1.device) == ("d1", "d1")
    assert r0.to_dict()["consumedCapacity"] == {"bw": "4"} and r1.to_dict()["consumedCapacity"] == {"bw": "2"}
    assert r0.share_id and r1.share_id
    over = allocator([device_class()], [slice_(devices=[dev])]).allocate(
        NODE, [claim(requests=[request(capacity={"requests": {"bw": "6"}})])])
    assert over.unsatisfiable


def test_taints_and_tolerations_are_copied():
    devs = [device("d1", taints=[{"key": "k", "value": "v1", "effect": "NoSchedule"}]),
            device("d2", taints=[{"key": "k", "value": "v2", "effect": "NoExecute"}])]
    tol = [{"key": "k", "operator": "Equal", "value": "v2", "effect": "NoExecute"}]
    out = allocator([device_class()], [slice_(devices=devs)]).allocate(NODE, [claim(requests=[request(tolerations=tol)])])
    assert picked(out) == ["req-0:d2"]
    assert out.results[0].devices[0].to_dict()["tolerations"] == tol
    off = allocator([device_class()], [slice_(devices=devs)], device_taints=False).allocate(NODE, [claim()])
    assert picked(off) == ["req-0:d1"]


def test_too_few_devices_fails_fast_without_hiding_errors():
    # The issue-131730 shape: more devices requested than exist. Pruning keeps this polynomial...
    out = allocator([device_class()], [slice_(devices=[f"d{i:02}" for i in range(31)])]).allocate(
        NODE, [claim(requests=[request(count=32)])])
    assert out.unsatisfiable and out.steps < 2000
    # ...but never skips a selector evaluation that would fail, as upstream evaluates it too.
    devs = [device("d1", attributes={"ok": {"bool": True}}), device("d2")]
    c = claim(requests=[request(count=3, selectors=['attr("ok") or RUNTIME'])])
    engine = FakeEngine()
    out = allocator([device_class()], [slice_(devices=devs)], engine=engine).allocate(NODE, [c])
    assert out.is_error and "on device driver-a/pool-1/d2" in out.error
