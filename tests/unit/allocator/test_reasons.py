"""Every reason code of the failure explanation, one scenario each."""

from __future__ import annotations

from alloc_testkit import NODE, allocator, claim, device, device_class, in_use, request, slice_

from dractl.allocator import reasons as R


def _explain(alloc, claims, request_label="req-0", claim_ref="default/claim-0"):
    outcome = alloc.allocate(NODE, claims, explain=True)
    assert not outcome.allocated, outcome
    assert outcome.explanation is not None
    for r in outcome.explanation.requests:
        if r.request == request_label and r.claim == claim_ref:
            return outcome, r
    raise AssertionError(f"no explanation for {claim_ref} {request_label}: {outcome.explanation}")


def _verdicts(req):
    return {v.device: v.reason for v in req.devices}


def test_pool_incomplete():
    alloc = allocator([device_class()], [slice_(devices=["dev-1"], count=2)])
    outcome, req = _explain(alloc, [claim()])
    assert outcome.unsatisfiable
    assert _verdicts(req) == {"driver-a/pool-1/dev-1": R.POOL_INCOMPLETE}
    assert req.rejected == {R.POOL_INCOMPLETE: 1} and req.eligible == 0 and req.needed == 1


def test_pool_invalid_is_a_node_failure_with_explanation():
    slices = [slice_("slice-1", devices=["dev-1"], count=2), slice_("slice-2", devices=["dev-1"], count=2)]
    alloc = allocator([device_class()], slices)
    outcome, req = _explain(alloc, [claim()])
    assert outcome.is_error and outcome.node_failure
    assert outcome.error == "invalid resource pools were encountered"
    assert req.rejected == {R.POOL_INVALID: 2}


def test_in_use():
    alloc = allocator([device_class()], [slice_(devices=["dev-1", "dev-2"])],
                      [in_use("in-use-0", ("driver-a", "pool-1", "dev-1"), ("driver-a", "pool-1", "dev-2"))])
    _, req = _explain(alloc, [claim()])
    assert req.rejected == {R.IN_USE: 2}


def test_allocating_for_an_earlier_claim_of_the_same_pod():
    alloc = allocator([device_class()], [slice_(devices=["dev-1"])])
    _, req = _explain(alloc, [claim("claim-0"), claim("claim-1")], claim_ref="default/claim-1")
    assert _verdicts(req) == {"driver-a/pool-1/dev-1": R.ALLOCATING}


def test_binding_conditions_without_feature():
    alloc = allocator([device_class()], [slice_(devices=[device("dev-1", bindingConditions=["ready"])])],
                      device_binding_and_status=False)
    _, req = _explain(alloc, [claim()])
    assert req.rejected == {R.BINDING_CONDITIONS: 1}


def test_class_selector_false():
    alloc = allocator([device_class(driver="driver-b")], [slice_(devices=["dev-1"])])
    _, req = _explain(alloc, [claim()])
    assert req.rejected == {R.CLASS_SELECTOR: 1}


def test_request_selector_false():
    dev = device("dev-1", attributes={"model": {"string": "a100"}})
    alloc = allocator([device_class()], [slice_(devices=[dev])])
    _, req = _explain(alloc, [claim(requests=[request(selectors=['attr("model") == "h100"'])])])
    assert req.rejected == {R.REQUEST_SELECTOR: 1}


def test_selector_error_in_diagnostics():
    alloc = allocator([device_class(selectors=["RUNTIME_ERROR"])], [slice_(devices=["dev-1"])])
    outcome = alloc.allocate(NODE, [claim()])
    assert outcome.is_error and "CEL runtime error" in outcome.error
    explanation = alloc.explain(NODE, [claim()])
    assert explanation.requests[0].rejected == {R.SELECTOR_ERROR: 1}


def test_node_mismatch_per_device_node_selection():
    devices = [device("dev-1", nodeName="node-1"), device("dev-2", nodeName="node-2")]
    alloc = allocator([device_class()], [slice_(devices=devices, node=None, perDeviceNodeSelection=True)])
    _, req = _explain(alloc, [claim(requests=[request(count=2)])])
    assert _verdicts(req) == {"driver-a/pool-1/dev-1": None, "driver-a/pool-1/dev-2": R.NODE_MISMATCH}
    assert req.eligible == 1 and req.short


def test_capacity():
    dev = device("dev-1", capacity={"memory": {"value": "1Gi"}})
    alloc = allocator([device_class()], [slice_(devices=[dev])])
    _, req = _explain(alloc, [claim(requests=[request(capacity={"requests": {"memory": "2Gi"}})])])
    assert req.rejected == {R.CAPACITY: 1}


def test_counters_disabled():
    dev = device("dev-1", consumesCounters=[{"counterSet": "set", "counters": {"mem": {"value": "1"}}}])
    alloc = allocator([device_class()], [slice_(devices=[dev])], partitionable_devices=False)
    _, req = _explain(alloc, [claim()])
    assert req.rejected == {R.COUNTERS_DISABLED: 1}


def _counter_slices(*consumption):
    counters = slice_("counters", devices=[], count=2, sharedCounters=[{"name": "set", "counters": {"mem": {"value": "8"}}}])
    devices = [device(f"dev-{i}", consumesCounters=[{"counterSet": "set", "counters": {"mem": {"value": str(v)}}}])
               for i, v in enumerate(consumption, 1)]
    return [counters, slice_("devices", devices=devices, count=2)]


def test_counters_exhausted_on_their_own():
    alloc = allocator([device_class()], _counter_slices(10))
    _, req = _explain(alloc, [claim()])
    assert req.rejected == {R.COUNTERS: 1}


def test_counters_exhausted_by_the_combination():
    alloc = allocator([device_class()], _counter_slices(5, 5))
    _, req = _explain(alloc, [claim(requests=[request(count=2)])])
    # Each device fits alone; the search rejects the second one because the first used the counters.
    verdicts = _verdicts(req)
    assert verdicts["driver-a/pool-1/dev-2"] == R.COUNTERS
    assert verdicts["driver-a/pool-1/dev-1"] is None


def test_tainted():
    dev = device("dev-1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])
    alloc = allocator([device_class()], [slice_(devices=[dev])])
    _, req = _explain(alloc, [claim()])
    assert req.rejected == {R.TAINTED: 1}


def test_constraint_conflict():
    devs = [device("dev-1", attributes={"numa": {"int": 0}}), device("dev-2", attributes={"numa": {"int": 1}})]
    alloc = allocator([device_class()], [slice_(devices=devs)])
    c = claim(requests=[request(count=2)], constraints=[{"matchAttribute": "driver-a/numa"}])
    _, req = _explain(alloc, [c])
    assert _verdicts(req) == {"driver-a/pool-1/dev-1": None, "driver-a/pool-1/dev-2": R.CONSTRAINT}
    assert req.rejected == {R.CONSTRAINT: 1} and req.considered == 2


def test_no_explanation_on_the_happy_path_or_unless_asked():
    alloc = allocator([device_class()], [slice_(devices=["dev-1"])])
    assert alloc.allocate(NODE, [claim()], explain=True).explanation is None
    assert alloc.allocate(NODE, [claim(requests=[request(count=2)])]).explanation is None


def test_every_reason_code_is_described():
    assert set(R.ALL) <= set(R.DESCRIPTIONS)
