"""Allocator behaviour of Kubernetes 1.37 that the conformance cases (testdata/conformance/v137)
do not pin down on their own: the compatibility switches per release, where derived attributes
are evaluated, explanations for the new rejection reasons, node declared features, and the
conditions of the milli-unit range path."""

from __future__ import annotations

import pytest
from alloc_testkit import (
    NODE,
    allocator,
    claim,
    device,
    device_class,
    in_use,
    picked,
    request,
    slice_,
)

from dractl.allocator import Allocator, Compat, NodeInfo
from dractl.allocator import reasons as R
from dractl.allocator.capacity import consumed_amount, use_milli
from dractl.api.quantity import Quantity
from dractl.api.resource import CapacityRequestPolicy, CapacityRequestPolicyRange, DeviceCapacity
from dractl.api.versions import FeatureGates
from dractl.cel import SelectorEngine


@pytest.mark.parametrize("version, reserved, distinct", [
    ("1.34", False, False), ("1.35", False, False), ("1.36", True, False), ("1.37", True, True),
    ("1.38", True, True), ("garbage", False, False), (None, False, False)])
def test_compat_follows_the_release(version, reserved, distinct):
    compat = Compat.for_release(version)
    assert (compat.release_reserved_state, compat.distinct_all_devices) == (reserved, distinct)


def test_allocator_takes_compat_from_the_gates_unless_given():
    # #141307 is in every release's latest patch (cherry-picked to 1.34-1.37).
    assert Allocator(FeatureGates("1.35")).compat == Compat(claim_limit_overflow_safe=True)
    assert Allocator(FeatureGates("1.37")).compat == Compat(True, True, claim_limit_overflow_safe=True)
    assert Allocator(FeatureGates("1.37"), compat=Compat()).compat == Compat()


def _derived_request(expression, count=1, **extra):
    return request(count=count, derivedAttributes=[{"name": "derived/v", "expression": expression}], **extra)


def _real(slices, gates=None, **overrides):
    gates = gates or FeatureGates(overrides={"DRADerivedAttributes": True, **overrides})
    return Allocator(gates, [device_class()], slices, cel_engine=SelectorEngine(gates))


def test_derived_attributes_are_evaluated_only_for_devices_reaching_the_constraint():
    # dractl's lazy choice (derived.py): a device rejected by its taint never evaluates, so the
    # missing attribute on it is no error.
    devs = [device("d0", taints=[{"key": "k", "effect": "NoSchedule"}]),
            device("d1", attributes={"v": {"int": 1}})]
    c = claim(requests=[_derived_request('device.attributes["driver-a"].v')],
              constraints=[{"matchAttribute": "derived/v"}])
    out = _real([slice_(devices=devs)]).allocate(NODE, [c])
    assert out.allocated and picked(out) == ["req-0:d1"]


def test_derived_attributes_without_a_constraint_are_not_evaluated():
    c = claim(requests=[_derived_request('device.attributes["driver-a"].missing')])
    assert _real([slice_(devices=["d0"])]).allocate(NODE, [c]).allocated


def test_derived_attributes_ignored_with_the_gate_off():
    c = claim(requests=[_derived_request('device.attributes["driver-a"].missing', count=2)],
              constraints=[{"matchAttribute": "driver-a/v"}])
    devs = [device("d0", attributes={"v": {"int": 1}}), device("d1", attributes={"v": {"int": 1}})]
    gates = FeatureGates(overrides={"DRADerivedAttributes": False})
    assert _real([slice_(devices=devs)], gates).allocate(NODE, [c]).allocated


def test_derived_compile_error_aborts():
    c = claim(requests=[_derived_request('device.attributes["driver-a"].v +')],
              constraints=[{"matchAttribute": "derived/v"}])
    out = _real([slice_(devices=["d0"])]).allocate(NODE, [c])
    assert out.is_error and "derived attribute derived/v: CEL compile error" in out.error


def test_derived_semver_value_matches_as_version():
    devs = [device("d0", attributes={"fw": {"version": "1.2.3"}}), device("d1", attributes={"fw": {"version": "1.2.3"}})]
    c = claim(requests=[_derived_request('device.attributes["driver-a"].fw', count=2)],
              constraints=[{"matchAttribute": "derived/v"}])
    assert picked(_real([slice_(devices=devs)]).allocate(NODE, [c])) == ["req-0:d0", "req-0:d1"]


def _grouped_pool(*devices):
    counters = slice_("counters", devices=[], count=2, sharedCounters=[{"name": "set", "counters": {"mem": {"value": "8"}}}])
    return [counters, slice_("devices", devices=list(devices), count=2)]


def _grouped(name, groups):
    return device(name, consumesCounters=[{"counterSet": "set", "counters": {"mem": {"value": "1"}},
                                           "compatibilityGroups": groups}])


def test_explanation_names_compatibility_groups():
    alloc = allocator([device_class()], _grouped_pool(_grouped("d0", ["x"]), _grouped("d1", ["y"])),
                      compatibility_groups=True)
    out = alloc.allocate(NODE, [claim(requests=[request(count=2)])], explain=True)
    assert out.unsatisfiable
    assert out.explanation.requests[0].rejected.get(R.COMPATIBILITY_GROUPS) == 1


def test_mixed_allocated_state_admits_nothing_more_on_the_set():
    # Written without the gate: one in-use device with groups, one without. No further device fits.
    pool = _grouped_pool(_grouped("d0", ["x"]), _grouped("d1", []), _grouped("d2", ["x"]), _grouped("d3", []))
    used = in_use("in-use-0", ("driver-a", "pool-1", "d0"), ("driver-a", "pool-1", "d1"))
    assert allocator([device_class()], pool, [used], compatibility_groups=True).allocate(NODE, [claim()]).unsatisfiable


def test_node_operations_explained_and_declared_features_read():
    sl = slice_(devices=["d0"], skipNodeOperations=["*"])
    alloc = allocator([device_class()], [sl], optional_node_operations=True)
    out = alloc.allocate(NODE, [claim()], explain=True)
    assert out.unsatisfiable and out.explanation.requests[0].rejected == {R.NODE_OPERATIONS: 1}
    declaring = dict(NODE, status={"declaredFeatures": ["DRAOptionalNodeOperations"]})
    assert NodeInfo.from_any(declaring).declared_features == frozenset({"DRAOptionalNodeOperations"})
    assert NodeInfo.from_any(declaring).cache_key != NodeInfo.from_any(NODE).cache_key
    result = alloc.allocate(declaring, [claim()])
    assert result.results[0].devices[0].skip_node_operations == ("*",)
    assert result.results[0].to_dict()["devices"]["results"][0]["skipNodeOperations"] == ["*"]


def _range(lo, hi, step):
    q = lambda t: None if t is None else Quantity.parse(t)  # noqa: E731
    return CapacityRequestPolicyRange(q(lo), q(hi), q(step))


def test_milli_path_conditions():
    assert use_milli(_range("500m", "4", "250m"), True)
    assert not use_milli(_range("500m", "4", "250m"), False)          # gate off
    assert not use_milli(_range("1", "4", "1"), True)                 # nothing fractional
    assert not use_milli(_range("1", "10000000000000000", "500m"), True)   # beyond MaxMilliValue
    assert use_milli(_range("1500m", None, None), True)               # fractional min, no step


def test_fractional_default_does_not_select_the_milli_path():
    policy = CapacityRequestPolicy(default=Quantity.parse("1500m"), valid_range=_range("1", "8", "2"))
    cap = DeviceCapacity(Quantity.parse("8"), policy)
    assert consumed_amount(Quantity.parse("1500m"), cap, True).canonical() == "3"
    milli = DeviceCapacity(Quantity.parse("8"), CapacityRequestPolicy(valid_range=_range("1", "8", "500m")))
    assert consumed_amount(Quantity.parse("1100m"), milli, True).canonical() == "1500m"
    assert consumed_amount(Quantity.parse("2"), milli, True).canonical() == "2"


def test_pruning_never_hides_a_derived_attribute_error():
    # One device for count 2: dractl's pruning of hopeless scans must not skip the pick that
    # evaluates the failing derived expression (upstream scans and fails with the error).
    c = claim(requests=[_derived_request('device.attributes["driver-a"].missing', count=2)],
              constraints=[{"matchAttribute": "derived/v"}])
    out = _real([slice_(devices=["d0"])]).allocate(NODE, [c])
    assert out.is_error and "no such key: missing" in out.error
