"""CEL selectors through the API-server rules, with dractl's real CEL layer (dractl.cel).

The glue itself is also covered with a fake compiler in test_rule_table.py (DRA1901/DRA1902).
"""

from __future__ import annotations

import pytest
from rules_manifests import CLASS, TAINT_RULE, claim, edit

from dractl.api.versions import FeatureGates
from dractl.validate.rules import RuleContext, check_document, common

EXPENSIVE = "[1,2,3,4,5,6,7,8,9,10].all(x, " * 7 + "int('1'.find('[0-9]*')) < 100" + ")" * 7


@pytest.fixture(autouse=True)
def _fresh_cache():
    common._cel_cache.clear()
    yield
    common._cel_cache.clear()


def cel_findings(doc, version="1.37", **gates):
    found = check_document(doc, RuleContext(FeatureGates(version, gates), version))
    return [(f.code, f.field, f.message) for f in found]


def with_class_selector(expr):
    return edit(CLASS, ("spec.selectors", [{"cel": {"expression": expr}}]),
                ("spec.extendedResourceName", None))


def test_undefined_field_is_a_compile_error():
    assert cel_findings(with_class_selector('device.drivr == "x"')) == [
        ("DRA1901", "spec.selectors[0].cel.expression",
         "Invalid value: \"device.drivr == \\\"x\\\"\": compilation failed: ERROR: <input>:1:7: "
         "undefined field 'drivr'")]


def test_undeclared_reference_in_a_claim_request():
    doc = claim(requests=[{"name": "gpu", "exactly": {
        "deviceClassName": "c", "selectors": [{"cel": {"expression": "noSuchVar == 1"}}]}}])
    assert cel_findings(doc) == [
        ("DRA1901", "spec.devices.requests[0].exactly.selectors[0].cel.expression",
         'Invalid value: "noSuchVar == 1": compilation failed: ERROR: <input>:1:1: undeclared '
         "reference to 'noSuchVar' (in container '')")]


def test_non_bool_result():
    assert cel_findings(with_class_selector("1 + 2")) == [
        ("DRA1901", "spec.selectors[0].cel.expression",
         'Invalid value: "1 + 2": must evaluate to bool or the unknown type, not int')]


def test_syntax_error_and_empty_expression():
    found = cel_findings(with_class_selector("device.driver =="))
    assert [c for c, _, _ in found] == ["DRA1901"]
    assert found[0][2].startswith('Invalid value: "device.driver ==": compilation failed: '
                                  "ERROR: <input>:1:17: Syntax error:")
    found = cel_findings(with_class_selector(""))
    assert [c for c, _, _ in found] == ["DRA1901"]


def test_cost_limit():
    assert cel_findings(with_class_selector(EXPENSIVE)) == [
        ("DRA1902", "spec.selectors[0].cel.expression",
         "Forbidden: too complex, exceeds cost limit")]


def test_valid_expressions_pass():
    for expr in ['device.driver == "gpu.example.com"',
                 'device.attributes["dra.example.com"].model == "A100"',
                 "device.capacity[\"dra.example.com\"].memory.compareTo(quantity(\"4Gi\")) >= 0",
                 '"model" in device.attributes["dra.example.com"]']:
        assert cel_findings(with_class_selector(expr)) == [], expr


def test_allow_multiple_allocations_follows_the_gate():
    doc = with_class_selector("device.allowMultipleAllocations")
    assert cel_findings(doc, "1.37") == []
    found = cel_findings(doc, "1.35")
    assert [c for c, _, _ in found] == ["DRA1901"]


def test_device_taint_rule_selectors_of_1_34():
    doc = edit(TAINT_RULE, ("apiVersion", "resource.k8s.io/v1alpha3"),
               ("spec.deviceSelector.selectors", [{"cel": {"expression": "device.nope"}}]))
    found = cel_findings(doc, "1.34", DRADeviceTaints=True)
    assert [(c, f) for c, f, _ in found] == [
        ("DRA1901", "spec.deviceSelector.selectors[0].cel.expression")]
