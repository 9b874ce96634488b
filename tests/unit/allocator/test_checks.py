"""The ordered device checks (dractl/allocator/checks.py) and the reuse of device facts."""

from __future__ import annotations

from alloc_testkit import NODE, FakeEngine, claim, device, device_class, features, request, slice_

from dractl.allocator import Allocator
from dractl.allocator import reasons as R
from dractl.allocator.checks import DEVICE_CHECKS, FACT_CHECKS, UNSELECTABLE, FactCache
from dractl.api.resource import DeviceTaintRule
from dractl.api.versions import FeatureGates


def test_one_list_in_search_order():
    assert [c.reason for c in DEVICE_CHECKS] == [
        R.IN_USE, R.ALLOCATING, R.BINDING_CONDITIONS, R.CLASS_SELECTOR, R.REQUEST_SELECTOR, R.NODE_MISMATCH,
        R.CAPACITY, R.COUNTERS_DISABLED, R.COUNTERS, R.TAINTED, R.CONSTRAINT]
    assert [c.reason for c in FACT_CHECKS] == [R.BINDING_CONDITIONS, R.CLASS_SELECTOR, R.REQUEST_SELECTOR,
                                               R.COUNTERS_DISABLED, R.TAINTED]
    assert UNSELECTABLE == {R.BINDING_CONDITIONS, R.CLASS_SELECTOR, R.REQUEST_SELECTOR}
    assert set(c.reason for c in DEVICE_CHECKS) <= set(R.ALL)


def _explain_one(dev, class_selectors=None, **feature_overrides):
    cls = device_class(selectors=class_selectors)
    alloc = Allocator(features(**feature_overrides), [cls], [slice_(devices=[dev])], (), (),
                      FakeEngine(), facts=FactCache())
    req = request(selectors=['attr("model") == "x"'], count=2)
    return alloc.explain(NODE, [claim(requests=[req])]).requests[0].devices[0].reason


def test_explanation_names_the_first_failing_check_of_the_list():
    tainted = {"taints": [{"key": "k", "effect": "NoSchedule"}]}
    both = device("d", bindingConditions=["ready"], attributes={"model": {"string": "y"}}, **tainted)
    assert _explain_one(both, device_binding_and_status=False) == R.BINDING_CONDITIONS
    assert _explain_one(both, class_selectors=['attr("model") == "z"']) == R.CLASS_SELECTOR
    assert _explain_one(both) == R.REQUEST_SELECTOR
    assert _explain_one(both, class_selectors=["RUNTIME_ERROR"]) == R.SELECTOR_ERROR
    ok = device("d", attributes={"model": {"string": "x"}}, consumesCounters=[
        {"counterSet": "set", "counters": {"mem": {"value": "1"}}}], **tainted)
    assert _explain_one(ok, partitionable_devices=False) == R.COUNTERS_DISABLED
    assert _explain_one(device("d", attributes={"model": {"string": "x"}}, **tainted)) == R.TAINTED


def test_facts_are_computed_once_per_device_and_request_shape_across_pods_nodes_and_allocators():
    shared = [device(f"n{i}", allNodes=True) for i in range(3)]
    slices = [slice_("net", pool="net", devices=shared, node=None, allNodes=True)]
    engine = FakeEngine()
    facts = FactCache()

    def allocator():
        return Allocator(features(), [device_class()], slices, (), (), engine, facts=facts)

    first = allocator()
    assert first.allocate(NODE, [claim("a")]).allocated
    evaluated = len(engine.calls)
    assert evaluated > 0
    # Another pod, another node, a new Allocator on the same slices: no selector evaluated again.
    second = allocator()
    other_node = {"metadata": {"name": "node-2"}}
    assert second.allocate(other_node, [claim("b")]).allocated
    assert second.allocate(NODE, [claim("c")]).allocated
    assert len(engine.calls) == evaluated
    # A different request shape is a different fact.
    assert second.allocate(NODE, [claim("d", requests=[request(selectors=['device.name != "n0"'])])]).allocated
    assert len(engine.calls) > evaluated


def test_tolerations_are_part_of_the_shape():
    dev = device("d", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])
    facts = FactCache()
    alloc = Allocator(features(), [device_class()], [slice_(devices=[dev])], (), (), FakeEngine(), facts=facts)
    assert alloc.allocate(NODE, [claim("a")]).unsatisfiable
    tolerating = request(tolerations=[{"key": "k", "operator": "Exists"}])
    assert alloc.allocate(NODE, [claim("b", requests=[tolerating])]).allocated
    assert alloc.allocate(NODE, [claim("c")]).unsatisfiable


def test_a_taint_rule_device_never_sees_the_untainted_verdict():
    slices = [slice_(devices=["d"])]
    rule = DeviceTaintRule.from_dict({"metadata": {"name": "r"}, "spec": {
        "taint": {"key": "k", "value": "v", "effect": "NoSchedule"}}})
    gates = FeatureGates("1.37")
    plain = Allocator(gates, [device_class()], slices)
    assert plain.allocate(NODE, [claim("a")]).allocated
    ruled = Allocator(gates, [device_class()], slices, taint_rules=[rule])
    assert ruled.allocate(NODE, [claim("a")]).unsatisfiable


def test_gate_built_engines_share_facts_but_other_gates_do_not():
    slices = [slice_(devices=[device("d", taints=[{"key": "k", "effect": "NoSchedule"}])])]
    on = Allocator(FeatureGates("1.37"), [device_class()], slices, facts=FactCache())
    assert on.allocate(NODE, [claim("a")]).unsatisfiable
    off = Allocator(FeatureGates("1.37", {"DRADeviceTaints": False}), [device_class()], slices, facts=on.facts)
    assert off.allocate(NODE, [claim("a")]).allocated
    assert on.engine_key != off.engine_key


def test_the_cache_is_bounded_and_keeps_working_after_clearing():
    facts = FactCache(max_entries=2)
    engine = FakeEngine()
    alloc = Allocator(features(), [device_class()], [slice_(devices=["d1", "d2", "d3"])], (), (), engine,
                      facts=facts)
    assert alloc.allocate(NODE, [claim("a", requests=[request(count=3)])]).allocated
    assert facts.computed <= 2
    assert alloc.allocate(NODE, [claim("b", requests=[request(count=3)])]).allocated


def test_written_out_fact_verdict_follows_the_list():
    # checks.fact_verdict (the search's, with shortcuts) against the loop over FACT_CHECKS, on
    # devices failing every combination of the fact checks, under every setting of their gates.
    import itertools

    from dractl.allocator.checks import fact_verdict, fact_verdict_in_order
    from dractl.allocator.nodes import NodeInfo

    devices = []
    for i, (binding, cls_ok, model, counters, taint) in enumerate(itertools.product(
            (False, True), (False, True), ("x", "y", None), (False, True), (False, True))):
        attrs = {"c": {"bool": cls_ok}}
        if model is not None:     # without: the request's selector fails to evaluate
            attrs["model"] = {"string": model}
            attrs["ok"] = {"bool": True}
        dev = device(f"d{i}", attributes=attrs)
        if binding:
            dev.update(bindingConditions=["ready"], bindingFailureConditions=["failed"])
        if counters:
            dev["consumesCounters"] = [{"counterSet": "set", "counters": {"mem": {"value": "1"}}}]
        if taint:
            dev["taints"] = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
        devices.append(dev)
    counter_slice = slice_("counters", devices=[], count=2,
                           sharedCounters=[{"name": "set", "counters": {"mem": {"value": "100"}}}])
    slices = [slice_(devices=devices, count=2), counter_slice]
    cls = device_class(selectors=['attr("c") == True'])
    req = request(selectors=['attr("model") == "x" if attr("ok") else RUNTIME'])
    seen = set()
    for gates in itertools.product((False, True), repeat=3):
        binding, partitionable, taints = gates
        alloc = Allocator(features(device_binding_and_status=binding, partitionable_devices=partitionable,
                                   device_taints=taints), [cls], slices, (), (), FakeEngine(), facts=FactCache())
        node = NodeInfo.from_any(NODE)
        search = alloc._search(node, alloc.inventory.pools_for(node, alloc.variant), [claim(requests=[req])],
                               None, None)
        search.prepare()
        rd = search.claim_reqs[0][0]
        assert len(search.cands) == len(devices)
        for cand in search.cands:
            outcomes = []
            for verdict in (fact_verdict, fact_verdict_in_order):
                try:
                    outcomes.append(verdict(search, rd, cand))
                except Exception as exc:  # noqa: BLE001 - both must fail alike
                    outcomes.append(f"error: {exc}")
            assert outcomes[0] == outcomes[1], (gates, cand)
            seen.add(outcomes[0] if not outcomes[0].startswith("error") else "error")
    assert seen == {R.BINDING_CONDITIONS, R.CLASS_SELECTOR, R.REQUEST_SELECTOR, R.COUNTERS_DISABLED,
                    R.TAINTED, "", "error"}
