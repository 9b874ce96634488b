"""The resource.k8s.io/v1 models: tolerant construction, defaulting, serialisation."""

from __future__ import annotations

import pytest

from dractl.api.quantity import Quantity
from dractl.api.resource import (
    AllocationResult,
    DeviceClass,
    DeviceTaintRule,
    ModelError,
    ResourceClaim,
    ResourceSlice,
    model_from_dict,
)
from dractl.api.values import AttributeValue


def test_slice_and_device_fields():
    sl = ResourceSlice.from_dict({
        "kind": "ResourceSlice", "metadata": {"name": "s"},
        "spec": {"driver": "d", "pool": {"name": "p", "generation": 3, "resourceSliceCount": 2},
                 "perDeviceNodeSelection": False,
                 "sharedCounters": [{"name": "set", "counters": {"mem": {"value": "1Gi"}}}],
                 "devices": [{"name": "dev", "attributes": {"a": {"int": 1}, "b": {}},
                              "capacity": {"mem": {"value": "2Gi", "requestPolicy": {
                                  "default": "1Gi", "validValues": ["1Gi", "2Gi"]}}},
                              "consumesCounters": [{"counterSet": "set", "counters": {"mem": {"value": "1Gi"}}}],
                              "bindingConditions": [], "bindsToNode": True, "allowMultipleAllocations": True,
                              "taints": [{"key": "k", "effect": "NoSchedule"}]}]}})
    assert sl.pool.generation == 3 and sl.per_device_node_selection is False
    dev = sl.devices[0]
    assert dev.key == ("d", "p", "dev", "s") and dev.id == ("d", "p", "dev") and dev.id_str == "d/p/dev"
    assert dev.attributes == {"a": AttributeValue("int", 1), "b": None}
    assert dev.capacity == {"mem": Quantity.parse("2Gi")}
    assert dev.capacities["mem"].request_policy.valid_values == (Quantity.parse("1Gi"), Quantity.parse("2Gi"))
    assert dev.binding_conditions is None          # an empty list is treated as absent
    assert dev.binds_to_node and dev.allow_multiple_allocations
    assert sl.shared_counters[0].counters["mem"] == Quantity.parse("1Gi")


def test_minimal_objects_are_accepted():
    assert ResourceSlice.from_dict({"metadata": {"name": "s"}}).devices == ()
    assert DeviceClass.from_dict({"metadata": {"name": "c"}}).selectors == ()
    claim = ResourceClaim.from_dict({"metadata": {"name": "c"}})
    assert claim.requests == () and claim.ref == "c" and claim.allocation is None


def test_claim_defaulting():
    claim = ResourceClaim.from_dict({"metadata": {"name": "c", "namespace": "ns"}, "spec": {"devices": {"requests": [
        {"name": "a", "exactly": {"deviceClassName": "x"}},
        {"name": "b", "exactly": {"deviceClassName": "x", "allocationMode": "All"}},
        {"name": "c", "firstAvailable": [{"name": "s", "deviceClassName": "x", "count": 0,
                                          "tolerations": [{"key": "k"}]}]}]}}})
    a, b, c = claim.requests
    assert (a.exactly.allocation_mode, a.exactly.count) == ("ExactCount", 1)
    assert b.exactly.allocation_mode == "All"
    assert c.first_available[0].count == 1 and c.first_available[0].tolerations[0].operator == "Equal"
    assert claim.ref == "ns/c"


def test_bad_quantity_is_a_model_error():
    with pytest.raises(ModelError):
        ResourceSlice.from_dict({"metadata": {"name": "s"}, "spec": {"devices": [
            {"name": "d", "capacity": {"m": {"value": "lots"}}}]}})


def test_allocation_result_round_trip():
    raw = {"devices": {
        "results": [{"request": "r", "driver": "d", "pool": "p", "device": "x", "adminAccess": True,
                     "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
                     "shareID": "u", "consumedCapacity": {"mem": "1536Mi"}}],
        "config": [{"source": "FromClaim", "requests": ["r"], "opaque": {"driver": "d", "parameters": {"a": 1}}}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n"]}]}]}}
    assert AllocationResult.from_dict(raw).to_dict() == raw


def test_consumed_capacity_is_printed_canonically():
    raw = {"devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": "x", "shareID": "u",
                                    "consumedCapacity": {"a": "1.5Gi", "b": "1000", "c": "0.5"}}]}}
    out = AllocationResult.from_dict(raw).to_dict()["devices"]["results"][0]["consumedCapacity"]
    assert out == {"a": "1536Mi", "b": "1k", "c": "500m"}


def test_taint_rule_and_dispatch():
    rule = model_from_dict({"kind": "DeviceTaintRule", "metadata": {"name": "r"},
                            "spec": {"deviceSelector": {"driver": "d"}, "taint": {"key": "k", "effect": "NoExecute"}}})
    assert isinstance(rule, DeviceTaintRule) and rule.selector.driver == "d" and rule.selector.pool is None
    with pytest.raises(ModelError):
        model_from_dict({"kind": "Pod"})
