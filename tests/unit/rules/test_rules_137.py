"""The 1.37 API rules and the rules re-checked against upstream validation,
beyond the one-failing-manifest-per-code table: severities, what is no longer an error, and the
follow-up effects of gate dropping."""

from __future__ import annotations

from rules_manifests import claim, edit, slice_

from dractl.api.convert import convert
from dractl.api.defaults import defaulted_claim_spec
from dractl.api.versions import FeatureGates
from dractl.findings import ERROR, WARNING, render_path
from dractl.validate.rules import RuleContext, check_document

GPU = {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}


def run(doc, version="1.37", **gates):
    return check_document(doc, RuleContext(FeatureGates(version, gates), version))


def codes(findings):
    return sorted((f.code, f.severity, render_path(f.path)) for f in findings)


def test_device_toleration_with_empty_key_and_equal_is_valid():
    # Pod tolerations reject this; validateDeviceToleration does not.
    doc = claim(requests=[{"name": "gpu", "exactly": {
        "deviceClassName": "gpu.example.com",
        "tolerations": [{"key": "", "operator": "Equal", "value": "v", "effect": "NoSchedule"}]}}])
    findings = run(doc)
    assert [f for f in findings if f.severity == ERROR] == []
    assert codes(findings) == [("DRA1029", WARNING,
                                "spec.devices.requests[0].exactly.tolerations[0]")]
    assert "whose value is 'v' only" in findings[0].message


def test_seventeen_tolerations_are_a_warning_and_each_is_still_validated():
    tolerations = [{"key": "k", "operator": "Exists"}] * 16 + [{"key": "k", "operator": "Bad"}]
    findings = run(claim(requests=[{"name": "gpu", "exactly": {
        "deviceClassName": "gpu.example.com", "tolerations": tolerations}}]))
    assert codes(findings) == [
        ("DRA1014", WARNING, "spec.devices.requests[0].exactly.tolerations"),
        ("DRA1015", ERROR, "spec.devices.requests[0].exactly.tolerations[16].operator")]


def test_match_and_distinct_together_is_a_warning_only():
    findings = run(claim(constraints=[{"matchAttribute": "a.example.com/x",
                                       "distinctAttribute": "a.example.com/y"}]))
    assert codes(findings) == [("DRA1024", WARNING, "spec.devices.constraints[0]")]


def test_multi_slash_names_are_accepted_until_1_38():
    doc = slice_(devices=[{"name": "d", "attributes": {"a.example.com/b/c": {"int": 1}}}])
    assert codes(run(doc, "1.37")) == [("DRA1920", WARNING, "spec.devices[0].attributes")]
    assert codes(run(doc, "1.38")) == [("DRA1215", ERROR, "spec.devices[0].attributes")]
    constraint = claim(constraints=[{"matchAttribute": "a.example.com/b/c"}])
    assert codes(run(constraint, "1.37")) == [
        ("DRA1920", WARNING, "spec.devices.constraints[0].matchAttribute")]


def test_capacity_request_keys_are_a_lint():
    findings = run(claim(requests=[{"name": "gpu", "exactly": {
        "deviceClassName": "gpu.example.com", "capacity": {"requests": {"a/b/c": "1"}}}}]),
        DRAConsumableCapacity=True)
    assert codes(findings) == [("DRA1017", WARNING,
                                "spec.devices.requests[0].exactly.capacity.requests")]
    assert "accepted up to 1.37 and rejected from 1.38" in findings[0].message


def test_derived_attributes_gate_off_drops_and_skips_the_rules():
    doc = claim(requests=[dict(GPU, exactly=dict(GPU["exactly"], derivedAttributes=[
        {"name": "bad", "expression": "device.attributes["}]))])
    off = run(doc)  # DRADerivedAttributes is alpha, off in 1.37
    assert codes(off) == [("DRA1910", WARNING,
                           "spec.devices.requests[0].exactly.derivedAttributes")]
    on = {f.code for f in run(doc, DRADerivedAttributes=True)}
    assert on == {"DRA1026", "DRA1027", "DRA1028"}


def test_derived_attribute_shared_by_two_requests_is_valid():
    # The registry/integration test shape: two requests, two drivers, one derived name.
    doc = claim(requests=[
        {"name": "req-a", "exactly": {"deviceClassName": "a", "derivedAttributes": [
            {"name": "derived/sharedNumaNode",
             "expression": 'device.attributes["dra.example.com"].numa'}]}},
        {"name": "req-b", "exactly": {"deviceClassName": "b", "derivedAttributes": [
            {"name": "derived/sharedNumaNode",
             "expression": 'device.attributes["dra.example.com"].numaNode'}]}}],
        constraints=[{"requests": ["req-a", "req-b"], "matchAttribute": "derived/sharedNumaNode"}])
    assert run(doc, DRADerivedAttributes=True) == []


def test_v1beta1_flat_request_converts_and_defaults_derived_attributes():
    beta1 = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
             "metadata": {"name": "c"},
             "spec": {"devices": {"requests": [{"name": "gpu", "derivedAttributes": [
                 {"expression": "1", "name": "derived/n"}]}]}}}
    v1 = convert(beta1)
    request = v1.doc["spec"]["devices"]["requests"][0]
    assert request == {"name": "gpu", "exactly": {"derivedAttributes": [
        {"expression": "1", "name": "derived/n"}]}}
    assert v1.original_path(("spec", "devices", "requests", 0, "exactly", "derivedAttributes")) \
        == ("spec", "devices", "requests", 0, "derivedAttributes")
    spec = defaulted_claim_spec(v1.doc["spec"])
    exactly = spec["devices"]["requests"][0]["exactly"]
    assert list(exactly) == ["allocationMode", "count", "derivedAttributes"]
    assert list(exactly["derivedAttributes"][0]) == ["name", "expression"]


def test_partition_type_attribute_needs_counters_after_gate_dropping():
    # With DRAPartitionableDevices off, consumesCounters is dropped first (like the API server),
    # so the slice no longer declares counter-consuming devices.
    doc = slice_(partitionTypeAttribute="gpu.example.com/profile", devices=[
        {"name": "d", "attributes": {"profile": {"string": "1g"}},
         "consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}]}])
    findings = run(doc, DRAPartitionableDevicesType=True, DRAPartitionableDevices=False)
    assert ("DRA1233", ERROR, "spec.partitionTypeAttribute") in codes(findings)
    assert run(doc, DRAPartitionableDevicesType=True) == []


def test_node_allocatable_shapes_follow_the_release():
    old = slice_(devices=[{"name": "d", "capacity": {"mem": {"value": "1Gi"}},
                           "nodeAllocatableResourceMappings": {"memory": {"capacityKey": "nope"}}}])
    assert codes(run(old, "1.36", DRANodeAllocatableResources=True)) == [
        ("DRA1231", ERROR, "spec.devices[0].nodeAllocatableResourceMappings[memory].capacityKey")]
    # 1.37 tombstoned the 1.36 field: the schema reports it as unknown, the rules ignore it.
    assert run(old, "1.37", DRANodeAllocatableResources=True) == []
    new = slice_(devices=[{"name": "d", "nodeAllocatableResources": {"memory": {}}}])
    assert codes(run(new, "1.37", DRANodeAllocatableResources=True)) == [
        ("DRA1231", ERROR, "spec.devices[0].nodeAllocatableResources[memory]")]


def test_fractional_range_arithmetic_depends_on_the_gate():
    doc = slice_(devices=[{"name": "d", "allowMultipleAllocations": True, "capacity": {"cpu": {
        "value": "4", "requestPolicy": {"default": "0.7", "validRange": {
            "min": "0.5", "max": "4", "step": "0.5"}}}}}])
    # Gate off (1.37 default): Value() rounds 0.7 and 0.5 up to 1, so the step check passes.
    assert codes(run(doc)) == [("DRA1236", WARNING,
                                "spec.devices[0].capacity[cpu].requestPolicy.validRange")]
    on = run(doc, DRAFractionalCapacityRange=True)
    assert [f.message for f in on] == [
        'Invalid value: "700m": value is not a multiple of a given step (500m) from (500m)']
    min_compat = RuleContext(FeatureGates("1.37", {}, min_compat="1.37"), "1.37")
    assert [f.code for f in check_document(doc, min_compat)] == ["DRA1222"]


def test_skip_node_operations_star_satisfies_the_unprepare_rule():
    doc = slice_(skipNodeOperations=["NodePrepareResources", "*"])
    assert run(doc, DRAOptionalNodeOperations=True) == []
    results = edit(claim(), ("status", {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "d.example.com", "pool": "p", "device": "d",
         "skipNodeOperations": ["NodePrepareResources"]}]}}}))
    assert codes(run(results, DRAOptionalNodeOperations=True)) == [
        ("DRA1068", ERROR, "status.allocation.devices.results[0].skipNodeOperations")]


def test_v1beta1_slice_reports_1_37_fields_at_the_basic_path():
    beta1 = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice",
             "metadata": {"name": "s"},
             "spec": {"driver": "d.example.com", "nodeName": "n",
                      "pool": {"name": "p", "resourceSliceCount": 1, "generation": 1},
                      "devices": [{"name": "d0", "basic": {
                          "consumesCounters": [{"counterSet": "s", "counters": {
                              "c": {"value": "1"}}, "compatibilityGroups": ["a", "a"]}],
                          "nodeAllocatableResources": {"cpu": {}}}}]}}
    findings = run(beta1, DRADeviceCompatibilityGroups=True, DRANodeAllocatableResources=True)
    assert codes(findings) == [
        ("DRA1231", ERROR, "spec.devices[0].basic.nodeAllocatableResources[cpu]"),
        ("DRA1232", ERROR, "spec.devices[0].basic.consumesCounters[0].compatibilityGroups[1]")]


def test_malformed_constraints_do_not_make_derived_attributes_unused():
    doc = claim(requests=[dict(GPU, exactly=dict(GPU["exactly"], derivedAttributes=[
        {"name": "derived/n", "expression": "1"}]))], constraints="not a list")
    assert [f.code for f in run(doc, DRADerivedAttributes=True)] == []
