"""dractl.api.convert: v1beta1 / v1beta2 -> v1, and mapping v1 paths back to what the user wrote."""

from __future__ import annotations

import copy

from dractl.api.convert import convert, to_v1
from dractl.api.versions import FeatureGates
from dractl.validate.rules import RuleContext, check_document

BETA1_CLAIM = {
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "metadata": {"name": "c"},
    "spec": {"devices": {"requests": [
        {"name": "gpu", "deviceClassName": "gpu.example.com", "count": 2,
         "selectors": [{"cel": {"expression": "true"}}], "adminAccess": False},
        {"name": "alt", "firstAvailable": [{"name": "a", "deviceClassName": "gpu.example.com"}]},
    ], "constraints": [{"requests": ["gpu"], "matchAttribute": "a.example.com/x"}]}},
}

BETA1_SLICE = {
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "metadata": {"name": "s"},
    "spec": {"driver": "d.example.com", "nodeName": "", "allNodes": True,
             "pool": {"name": "p", "resourceSliceCount": 1},
             "devices": [{"name": "d0", "basic": {"attributes": {"a": {"int": 1}},
                                                   "capacity": {"m": {"value": "1Gi"}}}}]},
}


def test_claim_requests_move_into_exactly():
    v1 = to_v1(BETA1_CLAIM)
    assert v1["apiVersion"] == "resource.k8s.io/v1"
    requests = v1["spec"]["devices"]["requests"]
    assert requests[0] == {"name": "gpu", "exactly": {
        "deviceClassName": "gpu.example.com", "count": 2,
        "selectors": [{"cel": {"expression": "true"}}], "adminAccess": False}}
    assert requests[1] == BETA1_CLAIM["spec"]["devices"]["requests"][1]
    assert v1["spec"]["devices"]["constraints"] == BETA1_CLAIM["spec"]["devices"]["constraints"]


def test_input_untouched_and_template_converted():
    before = copy.deepcopy(BETA1_CLAIM)
    template = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "t"}, "spec": {"spec": copy.deepcopy(BETA1_CLAIM["spec"])}}
    converted = convert(template)
    assert converted.doc["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] == 2
    assert converted.original_path(("spec", "spec", "devices", "requests", 0, "exactly", "count")) \
        == ("spec", "spec", "devices", "requests", 0, "count")
    to_v1(BETA1_CLAIM)
    assert BETA1_CLAIM == before


def test_flat_fields_and_first_available_both_kept_so_validation_sees_both():
    doc = copy.deepcopy(BETA1_CLAIM)
    doc["spec"]["devices"]["requests"][1]["deviceClassName"] = "x"
    request = to_v1(doc)["spec"]["devices"]["requests"][1]
    assert "exactly" in request and "firstAvailable" in request


def test_zero_values_do_not_create_exactly():
    doc = copy.deepcopy(BETA1_CLAIM)
    doc["spec"]["devices"]["requests"] = [{"name": "r", "deviceClassName": "", "count": 0}]
    assert to_v1(doc)["spec"]["devices"]["requests"] == [{"name": "r"}]


def test_slice_devices_lifted_and_zero_values_unset():
    converted = convert(BETA1_SLICE)
    spec = converted.doc["spec"]
    assert "nodeName" not in spec and spec["allNodes"] is True
    assert spec["devices"] == [{"name": "d0", "attributes": {"a": {"int": 1}},
                                "capacity": {"m": {"value": "1Gi"}}}]
    assert converted.original_path(("spec", "devices", 0, "attributes", "a")) == \
        ("spec", "devices", 0, "basic", "attributes", "a")
    assert converted.original_path(("spec", "devices", 0, "name")) == ("spec", "devices", 0, "name")
    assert converted.original_path(("spec", "devices", 0)) == ("spec", "devices", 0)
    assert converted.original_path(("spec", "driver")) == ("spec", "driver")


def test_v1beta2_and_v1_keep_their_shape():
    doc = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceClaim",
           "metadata": {"name": "c"}, "spec": {"devices": {"requests": [{"name": "r"}]}}}
    out = to_v1(doc)
    assert out["apiVersion"] == "resource.k8s.io/v1" and out["spec"] is doc["spec"]
    v1 = dict(doc, apiVersion="resource.k8s.io/v1")
    assert to_v1(v1) is v1
    pod = {"apiVersion": "v1", "kind": "Pod"}
    assert to_v1(pod) is pod
    assert to_v1("not a dict") == "not a dict"  # type: ignore[arg-type]


def test_findings_point_at_the_v1beta1_fields():
    doc = copy.deepcopy(BETA1_CLAIM)
    doc["spec"]["devices"]["requests"][0]["count"] = -1
    findings = check_document(doc, RuleContext(FeatureGates("1.37"), "1.37"))
    assert [(f.code, f.field, f.message) for f in findings] == [
        ("DRA1009", "spec.devices.requests[0].count",
         "Invalid value: -1: must be greater than zero (v1 field: "
         "spec.devices.requests[0].exactly.count)")]


def test_v1beta1_request_without_class_is_not_defaulted():
    doc = copy.deepcopy(BETA1_CLAIM)
    doc["spec"]["devices"] = {"requests": [{"name": "r", "count": 2}]}
    findings = check_document(doc, RuleContext(FeatureGates("1.37"), "1.37"))
    assert [(f.code, f.field) for f in findings] == [
        ("DRA1006", "spec.devices.requests[0].deviceClassName"),
        ("DRA1008", "spec.devices.requests[0].allocationMode")]
