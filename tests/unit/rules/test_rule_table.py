"""Every API-server rule (DRA1xxx) and reference check (DRA2xxx): a failing manifest per code, with
the field path and the API server's wording, plus passing manifests that must produce nothing.

`test_every_code_has_a_failing_case` makes a new rule without a case here fail the suite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from rules_manifests import (
    CLAIM,
    CLAIM_FULL,
    CLASS,
    COUNTER_SLICE,
    DELETE,
    NAMESPACE,
    PER_DEVICE_SLICE,
    POD,
    POD_GROUP,
    SLICE,
    SLICE_FULL,
    TAINT_RULE,
    TEMPLATE,
    WORKLOAD,
    WORKLOAD_135,
    claim,
    deployment,
    edit,
    slice_,
)

import dractl.cel
from dractl.api.versions import FeatureGates, known_gates
from dractl.findings import CODES, render_path
from dractl.validate import refs
from dractl.validate.rules import RuleContext, check_document, common

ALL_ON = "all"


@dataclass
class Case:
    code: str
    docs: Any                      # one manifest (rules) or a list of manifests (references)
    path: str                      # rendered field path of the expected finding
    message: str                   # expected message (prefix)
    version: str = "1.37"
    gates: Any = field(default_factory=dict)  # overrides, or ALL_ON
    fake_cel: bool = False
    id: str = ""


def ctx_for(version: str, gates: Any) -> RuleContext:
    if gates == ALL_ON:
        gates = {g: True for g in known_gates(version)}
    return RuleContext(FeatureGates(version, dict(gates)), version)


def run(case_docs: Any, version: str = "1.37", gates: Any = None) -> list:
    ctx = ctx_for(version, gates or {})
    if isinstance(case_docs, list):
        return [f for _, f in refs.check_references(case_docs, ctx)]
    return check_document(case_docs, ctx)


class FakeCelError:
    def __init__(self, message, line=None, column=None, kind="check"):
        self.message, self.line, self.column, self.kind = message, line, column, kind


def fake_check_expression(expression, gates):
    if expression.startswith("FAIL_COMPILE"):
        return [FakeCelError("undeclared reference to 'FAIL_COMPILE' (in container '')", 1, 1)]
    if expression.startswith("FAIL_COST"):
        return [FakeCelError("too complex, exceeds cost limit", kind="cost")]
    return []


@pytest.fixture
def fake_cel(monkeypatch):
    monkeypatch.setattr(dractl.cel, "check_expression", fake_check_expression, raising=False)
    common._cel_cache.clear()
    yield
    common._cel_cache.clear()


R0 = "spec.devices.requests[0]"
EX = R0 + ".exactly"
LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'"
SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"
ONE_OF = "exactly one of `exactly` or `firstAvailable` is required"


def req(name="gpu", **exactly):
    return {"name": name, "exactly": {"deviceClassName": "gpu.example.com", **exactly}}


def sel(expr='device.driver == "x"'):
    return {"cel": {"expression": expr}}


def status_claim(**status):
    base = edit(CLAIM, ("status", {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": "gpu-0"}]}}}))
    for key, value in status.items():
        base["status"][key] = value
    return base


def results_claim(results=None, config=None, node_selector=None):
    alloc = {"devices": {"results": results if results is not None else [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": "gpu-0"}]}}
    if config is not None:
        alloc["devices"]["config"] = config
    if node_selector is not None:
        alloc["nodeSelector"] = node_selector
    return edit(CLAIM, ("status", {"allocation": alloc}))


def condition(type_="Ready"):
    return {"type": type_, "status": "True", "reason": "Ok", "lastTransitionTime": "2025-01-01T00:00:00Z"}


def device(name="gpu-0", **fields):
    return {"name": name, **fields}


def pod(**spec):
    base = {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "tmpl"}],
            "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}]}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
            "spec": base}


def env_pod(ref, claims=None):
    return pod(resourceClaims=claims or [{"name": "gpu", "resourceClaimTemplateName": "tmpl"}],
               containers=[{"name": "c", "image": "x",
                            "resources": {"claims": [{"name": "gpu"}]},
                            "env": [{"name": "ROOT",
                                     "valueFrom": {"resourceSliceAttributeRef": ref}}]}])


ENV_REF = {"claimName": "gpu", "requestName": "gpu", "attribute": "resource.kubernetes.io/pcieRoot"}
SUB_TEMPLATE = edit(TEMPLATE, ("spec.spec.devices.requests", [
    {"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "gpu.example.com", "count": 2},
        {"name": "small", "deviceClassName": "gpu.example.com"}]}]))

DERIVED_ON = {"DRADerivedAttributes": True}


def derived_claim(derived, match="derived/numa", requests=None):
    """A claim whose request `gpu` defines derived attributes, with one constraint."""
    constraint = {"matchAttribute": match}
    if requests is not None:
        constraint["requests"] = requests
    return claim(requests=[req(derivedAttributes=derived), req("other")],
                 constraints=[constraint])


PARTITION_SLICE = slice_(partitionTypeAttribute="gpu.example.com/profile", devices=[
    device("gpu-0-mig-1g", attributes={"profile": {"string": "1g.10gb"}},
           consumesCounters=[{"counterSet": "gpu-0", "counters": {"memory": {"value": "10Gi"}}}]),
    device("gpu-0-mig-2g", attributes={"other": {"string": "x"}},
           consumesCounters=[{"counterSet": "gpu-0", "counters": {"memory": {"value": "20Gi"}}}]),
    device("gpu-0-whole"),
])

FRACTIONAL_SLICE = slice_(devices=[device(allowMultipleAllocations=True, capacity={"cpu": {
    "value": "4", "requestPolicy": {"default": "1", "validRange": {
        "min": "0.5", "max": "4", "step": "0.5"}}}})])


CASES = [
    # -- ResourceClaim / template spec -------------------------------------------------------
    Case("DRA1001", claim(requests=[req(f"r{i}") for i in range(33)]), "spec.devices.requests",
         "Too many: 33: must have at most 32 items"),
    Case("DRA1002", claim(requests=[req("GPU_0")]), R0 + ".name",
         f'Invalid value: "GPU_0": {LABEL_MSG}'),
    Case("DRA1002", claim(requests=[req("")]), R0 + ".name", f'Invalid value: "": {LABEL_MSG}',
         id="empty-name"),
    Case("DRA1003", claim(requests=[req(), req()]), "spec.devices.requests[1]",
         'Duplicate value: "gpu"'),
    Case("DRA1004", claim(requests=[{"name": "gpu"}]), R0, f"Required value: {ONE_OF}"),
    Case("DRA1005", claim(requests=[{"name": "gpu", "exactly": {"deviceClassName": "c"},
                                     "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}]),
         R0, f"Invalid value: null: {ONE_OF}, but multiple fields are set"),
    Case("DRA1006", claim(requests=[{"name": "gpu", "exactly": {}}]), EX + ".deviceClassName",
         "Required value"),
    Case("DRA1006", claim(requests=[req(deviceClassName="GPU")]), EX + ".deviceClassName",
         f'Invalid value: "GPU": {SUBDOMAIN_MSG}', id="class-format"),
    Case("DRA1007", claim(requests=[req(selectors=[sel()] * 33)]), EX + ".selectors",
         "Too many: 33: must have at most 32 items"),
    Case("DRA1008", claim(requests=[req(allocationMode="Some")]), EX + ".allocationMode",
         'Unsupported value: "Some": supported values: "All", "ExactCount"'),
    Case("DRA1009", claim(requests=[req(count=-1)]), EX + ".count",
         "Invalid value: -1: must be greater than zero"),
    Case("DRA1010", claim(requests=[req(allocationMode="All", count=2)]), EX + ".count",
         "Invalid value: 2: must not be specified when allocationMode is 'All'"),
    Case("DRA1011", claim(requests=[{"name": "gpu", "firstAvailable": [
        {"name": f"s{i}", "deviceClassName": "c"} for i in range(9)]}]), R0 + ".firstAvailable",
         "Too many: 9: must have at most 8 items"),
    Case("DRA1012", claim(requests=[{"name": "gpu", "firstAvailable": [
        {"name": "Sub", "deviceClassName": "c"}]}]), R0 + ".firstAvailable[0].name",
         f'Invalid value: "Sub": {LABEL_MSG}'),
    Case("DRA1013", claim(requests=[{"name": "gpu", "firstAvailable": [
        {"name": "s", "deviceClassName": "c"}, {"name": "s", "deviceClassName": "c"}]}]),
         R0 + ".firstAvailable[1]", 'Duplicate value: "s"'),
    Case("DRA1014", claim(requests=[req(tolerations=[{"operator": "Exists"}] * 17)]),
         EX + ".tolerations", "Too many: 17: must have at most 16 items"),
    Case("DRA1015", claim(requests=[req(tolerations=[{"key": "k", "operator": "Exists",
                                                      "value": "v"}])]),
         EX + ".tolerations[0].value", 'Invalid value: "v": must be empty for operator `Exists`'),
    Case("DRA1015", claim(requests=[req(tolerations=[{"key": "k", "operator": "Equal",
                                                      "effect": "Sometimes"}])]),
         EX + ".tolerations[0].effect",
         'Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "None"',
         id="effect"),
    Case("DRA1015", claim(requests=[req(tolerations=[{"key": "k", "effect": "None"}])]),
         EX + ".tolerations[0].effect",
         'Unsupported value: "None": supported values: "NoExecute", "NoSchedule"', version="1.34",
         gates={"DRADeviceTaints": True}, id="none-before-1.35"),
    Case("DRA1017", claim(requests=[req(capacity={"requests": {"a/b/c": "1"}})]),
         EX + ".capacity.requests", 'Invalid value: "a/b/c": must not contain more than one slash'),
    Case("DRA1018", claim(constraints=[{"matchAttribute": "a.b/c"}] * 33), "spec.devices.constraints",
         "Too many: 33: must have at most 32 items"),
    Case("DRA1019", claim(constraints=[{"requests": ["nope"], "matchAttribute": "a.b/c"}]),
         "spec.devices.constraints[0].requests[0]",
         'Invalid value: "nope": must be the name of a request in the claim or the name of a '
         "request and a subrequest separated by '/'"),
    Case("DRA1019", claim(config=[{"requests": ["gpu/sub"], "opaque": {
        "driver": "d.example.com", "parameters": {}}}]), "spec.devices.config[0].requests[0]",
         'Invalid value: "gpu/sub": must be the name of a request', id="no-subrequest"),
    Case("DRA1020", claim(constraints=[{"requests": ["gpu", "gpu"], "matchAttribute": "a.b/c"}]),
         "spec.devices.constraints[0].requests[1]", 'Duplicate value: "gpu"'),
    Case("DRA1021", claim(constraints=[{"requests": ["gpu"]}]), "spec.devices.constraints[0]",
         'Required value: exactly one of "matchAttribute" or "distinctAttribute" is required, '
         "but multiple fields are set"),
    Case("DRA1021", claim(constraints=[{"requests": ["gpu"]}]),
         "spec.devices.constraints[0].matchAttribute", "Required value", version="1.35",
         id="without-consumable-capacity"),
    Case("DRA1022", claim(constraints=[{"matchAttribute": "model"}]),
         "spec.devices.constraints[0].matchAttribute",
         'Invalid value: "model": a fully qualified name must be a domain and a name separated '
         "by a slash"),
    Case("DRA1023", claim(config=[{"opaque": {"driver": "d.example.com", "parameters": {}}}] * 33),
         "spec.devices.config", "Too many: 33: must have at most 32 items"),
    Case("DRA1030", edit(TEMPLATE, ("spec.metadata.name", "x")), "spec.metadata.name",
         "Forbidden: cannot be set for a template"),
    Case("DRA1030", edit(TEMPLATE, ("spec.metadata.labels", {"bad key!": "x"})),
         "spec.metadata.labels", 'Invalid value: "bad key!": name part must consist of',
         id="label-key"),
    # -- ResourceClaim status ----------------------------------------------------------------
    Case("DRA1050", status_claim(reservedFor=[{"resource": "pods", "name": "p", "uid": f"u{i}"}
                                              for i in range(257)]),
         "status.reservedFor", "Too many: 257: must have at most 256 items"),
    Case("DRA1051", status_claim(reservedFor=[{"resource": "pods", "name": "p"}]),
         "status.reservedFor[0].uid", "Required value"),
    Case("DRA1052", status_claim(reservedFor=[{"resource": "pods", "name": "p", "uid": "u"}] * 2),
         "status.reservedFor[1]", 'Duplicate value: "u"'),
    Case("DRA1053", edit(CLAIM, ("status", {"reservedFor": [
        {"resource": "pods", "name": "p", "uid": "u"}]})), "status.reservedFor",
         "Forbidden: may not be specified when `allocated` is not set"),
    Case("DRA1055", results_claim([{"request": "gpu", "driver": "d.example.com", "pool": "p",
                                    "device": f"d{i}"} for i in range(33)]),
         "status.allocation.devices.results", "Too many: 33: must have at most 32 items"),
    Case("DRA1056", results_claim([{"request": "nope", "driver": "d.example.com", "pool": "p",
                                    "device": "d"}]),
         "status.allocation.devices.results[0].request",
         'Invalid value: "nope": must be the name of a request'),
    Case("DRA1057", results_claim([{"request": "gpu", "driver": "d.example.com", "pool": "p",
                                    "device": "Dev_0"}]),
         "status.allocation.devices.results[0].device", f'Invalid value: "Dev_0": {LABEL_MSG}'),
    Case("DRA1057", results_claim([{"request": "gpu", "driver": "", "pool": "p", "device": "d"}]),
         "status.allocation.devices.results[0].driver", "Required value", id="driver"),
    Case("DRA1058", results_claim([{"request": "gpu", "driver": "d.example.com", "pool": "p",
                                    "device": "d", "bindingFailureConditions": ["x"]}]),
         "status.allocation.devices.results[0].bindingConditions",
         "Invalid value: null: bindingConditions are required to use bindingFailureConditions"),
    Case("DRA1059", results_claim([{"request": "gpu", "driver": "d.example.com", "pool": "p",
                                    "device": "d", "shareID": "ABCDEF00-0000-0000-0000-000000000000"}]),
         "status.allocation.devices.results[0].shareID",
         'Invalid value: "ABCDEF00-0000-0000-0000-000000000000": uid must be in RFC 4122 '
         "normalized form"),
    Case("DRA1060", results_claim(config=[{"source": "FromClaim", "opaque": {
        "driver": "d.example.com", "parameters": {}}}] * 65),
         "status.allocation.devices.config", "Too many: 65: must have at most 64 items"),
    Case("DRA1061", results_claim(config=[{"source": "FromNowhere", "opaque": {
        "driver": "d.example.com", "parameters": {}}}]),
         "status.allocation.devices.config[0].source",
         'Unsupported value: "FromNowhere": supported values: "FromClaim", "FromClass"'),
    Case("DRA1062", results_claim(node_selector={"nodeSelectorTerms": []}),
         "status.allocation.nodeSelector.nodeSelectorTerms",
         "Required value: must have at least one node selector term"),
    Case("DRA1062", results_claim(node_selector={"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "k", "operator": "Exists", "values": ["v"]}]}]}),
         "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values",
         "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
         id="exists-values"),
    Case("DRA1063", status_claim(devices=[{"driver": "gpu.example.com", "pool": "p",
                                           "device": "gpu-9"}]),
         "status.devices[0]", 'Invalid value: "gpu.example.com/p/gpu-9": must be an allocated '
                             "device in the claim"),
    Case("DRA1064", status_claim(devices=[{"driver": "gpu.example.com", "pool": "p",
                                           "device": "gpu-0"}] * 2),
         "status.devices[1]", 'Duplicate value: "gpu.example.com/p/gpu-0"'),
    Case("DRA1065", status_claim(devices=[{"driver": "gpu.example.com", "pool": "p",
                                           "device": "gpu-0",
                                           "conditions": [condition(f"C{i}") for i in range(9)]}]),
         "status.devices[0].conditions", "Too many: 9: must have at most 8 items"),
    Case("DRA1066", status_claim(devices=[{"driver": "gpu.example.com", "pool": "p",
                                           "device": "gpu-0", "data": [1, 2]}]),
         "status.devices[0].data", 'Invalid value: "<value omitted>": must be a valid JSON object'),
    Case("DRA1067", status_claim(devices=[{"driver": "gpu.example.com", "pool": "p",
                                           "device": "gpu-0",
                                           "networkData": {"ips": ["10.0.0.1"]}}]),
         "status.devices[0].networkData.ips[0]", 'Invalid value: "10.0.0.1"'),
    # -- DeviceClass -------------------------------------------------------------------------
    Case("DRA1101", edit(CLASS, ("spec.selectors", [sel()] * 33)), "spec.selectors",
         "Too many: 33: must have at most 32 items"),
    Case("DRA1102", edit(CLASS, ("spec.config", [{"opaque": {"driver": "d.example.com",
                                                            "parameters": {}}}] * 33)),
         "spec.config", "Too many: 33: must have at most 32 items"),
    Case("DRA1103", edit(CLASS, ("spec.extendedResourceName", "gpu")), "spec.extendedResourceName",
         'Invalid value: "gpu": must be a valid extended resource name'),
    Case("DRA1103", edit(CLASS, ("spec.extendedResourceName", "kubernetes.io/gpu")),
         "spec.extendedResourceName", 'Invalid value: "kubernetes.io/gpu"', id="native-prefix"),
    # -- ResourceSlice -----------------------------------------------------------------------
    Case("DRA1201", slice_(driver=""), "spec.driver", "Required value"),
    Case("DRA1201", slice_(driver="x" * 64), "spec.driver", "Too long: may not be more than 63 bytes",
         id="too-long"),
    Case("DRA1202", slice_(pool={"name": "", "resourceSliceCount": 1}), "spec.pool.name",
         "Required value"),
    Case("DRA1202", slice_(pool={"name": "a/B", "resourceSliceCount": 1}), "spec.pool.name",
         f'Invalid value: "B": {SUBDOMAIN_MSG}', id="segment"),
    Case("DRA1203", slice_(pool={"name": "p", "resourceSliceCount": 0}),
         "spec.pool.resourceSliceCount", "Invalid value: 0: must be greater than zero"),
    Case("DRA1204", slice_(pool={"name": "p", "resourceSliceCount": 1, "generation": -1}),
         "spec.pool.generation", "Invalid value: -1: must be greater than or equal to zero"),
    Case("DRA1205", slice_(nodeName=None), "spec",
         "Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
         "`perDeviceNodeSelection` is required"),
    Case("DRA1206", slice_(allNodes=True), "spec",
         'Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, '
         "`allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"),
    Case("DRA1207", slice_(nodeName=""), "spec.nodeName",
         'Invalid value: "": must be either unset or set to a non-empty string'),
    Case("DRA1208", slice_(nodeName=None, nodeSelector={"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "a", "operator": "Exists"}]},
        {"matchExpressions": [{"key": "b", "operator": "Exists"}]}]}),
         "spec.nodeSelector.nodeSelectorTerms", "Invalid value: [{"),
    Case("DRA1209", slice_(allNodes=False), "spec.allNodes",
         "Invalid value: false: must be either unset or set to true"),
    Case("DRA1210", edit(COUNTER_SLICE, ("spec.devices", [device()])), "spec",
         'Invalid value: "": only one of `sharedCounters` or `devices` is allowed'),
    Case("DRA1211", slice_(devices=[device(f"d{i}") for i in range(129)]), "spec.devices",
         "Too many: 129: must have at most 128 items"),
    Case("DRA1211", slice_(devices=[device(f"d{i}", taints=[{"key": "k", "effect": "NoSchedule"}])
                                    for i in range(65)]), "spec.devices",
         "Too many: 65: must have at most 64 items", id="advanced"),
    Case("DRA1212", slice_(devices=[device("GPU")]), "spec.devices[0].name",
         f'Invalid value: "GPU": {LABEL_MSG}'),
    Case("DRA1213", slice_(devices=[device(), device()]), "spec.devices[1]",
         'Duplicate value: "gpu-0"'),
    Case("DRA1214", slice_(devices=[device(attributes={f"a{i}": {"int": i} for i in range(33)})]),
         "spec.devices[0]", "Invalid value: 33: the total number of attributes and capacities "
                            "must not exceed 32"),
    Case("DRA1215", slice_(devices=[device(attributes={"1bad": {"int": 1}})]),
         "spec.devices[0].attributes", 'Invalid value: "1bad": a valid C identifier must start'),
    Case("DRA1215", slice_(devices=[device(capacity={"/mem": {"value": "1"}})]),
         "spec.devices[0].capacity", 'Invalid value: "": the domain must not be empty', id="domain"),
    Case("DRA1216", slice_(devices=[device(attributes={"a": {}})]), "spec.devices[0].attributes[a]",
         'Invalid value: "": exactly one value must be specified'),
    Case("DRA1216", slice_(devices=[device(attributes={"a": {"int": 1, "string": "x"}})]),
         "spec.devices[0].attributes[a]", 'Invalid value: {"int":1,"string":"x"}: exactly one value',
         id="two"),
    Case("DRA1217", slice_(devices=[device(attributes={"a": {"string": "x" * 65}})]),
         "spec.devices[0].attributes[a].string", "Too long: may not be more than 64 bytes"),
    Case("DRA1218", slice_(devices=[device(attributes={"a": {"version": "v1.0.0"}})]),
         "spec.devices[0].attributes[a].version",
         'Invalid value: "v1.0.0": must be a string compatible with semver.org spec 2.0.0'),
    Case("DRA1219", slice_(devices=[device(attributes={"a": {"ints": list(range(49))}})]),
         "spec.devices[0]", "Invalid value: 49: the total number of attribute values must not "
                            "exceed 48", gates=ALL_ON),
    Case("DRA1220", slice_(devices=[device(attributes={"a": {"strings": []}})]),
         "spec.devices[0].attributes[a].strings", "Invalid value: []: must not be empty if specified",
         gates=ALL_ON),
    Case("DRA1221", slice_(devices=[device(capacity={"mem": {"value": "1Gi", "requestPolicy": {
        "default": "1Gi"}}})]), "spec.devices[0].capacity[mem].requestPolicy",
         "Forbidden: allowMultipleAllocations must be true"),
    Case("DRA1222", slice_(devices=[device(allowMultipleAllocations=True, capacity={"mem": {
        "value": "8Gi", "requestPolicy": {"validValues": ["1Gi"]}}})]),
         "spec.devices[0].capacity[mem].requestPolicy.default",
         "Required value: required when validValues is defined"),
    Case("DRA1222", slice_(devices=[device(allowMultipleAllocations=True, capacity={"mem": {
        "value": "8Gi", "requestPolicy": {"default": "1Gi", "validValues": ["2Gi", "1Gi"]}}})]),
         "spec.devices[0].capacity[mem].requestPolicy.validValues[1]",
         'Invalid value: "1Gi": values must be sorted in ascending order', id="sorted"),
    Case("DRA1222", slice_(devices=[device(allowMultipleAllocations=True, capacity={"mem": {
        "value": "2Gi", "requestPolicy": {"default": "1Gi",
                                          "validRange": {"min": "1Gi", "step": "3Gi"}}}})]),
         "spec.devices[0].capacity[mem].requestPolicy.validRange.step",
         'Invalid value: "3Gi": one step 4Gi is larger', id="step"),
    Case("DRA1222", slice_(devices=[device(allowMultipleAllocations=True, capacity={"mem": {
        "value": "8Gi", "requestPolicy": {"default": "2Gi",
                                          "validRange": {"min": "1Gi", "max": "7Gi",
                                                         "step": "2Gi"}}}})]),
         "spec.devices[0].capacity[mem].requestPolicy.validRange.step",
         'Invalid value: "2Gi": value is not a multiple of a given step (2Gi) from (1Gi)',
         id="multiple"),
    Case("DRA1223", slice_(devices=[device(taints=[{"key": "k", "effect": "NoSchedule"}] * 17)]),
         "spec.devices[0].taints", "Too many: 17: must have at most 16 items"),
    Case("DRA1223", slice_(devices=[device(taints=[{"key": "k", "effect": "NoSchedule"}] * 5)]),
         "spec.devices[0].taints", "Too many: 5: must have at most 4 items", version="1.34",
         gates={"DRADeviceTaints": True}, id="1.34"),
    Case("DRA1224", slice_(devices=[device(taints=[{"key": "k"}])]),
         "spec.devices[0].taints[0].effect", "Required value"),
    Case("DRA1224", slice_(devices=[device(taints=[{"key": "", "effect": "NoSchedule"}])]),
         "spec.devices[0].taints[0].key", 'Invalid value: "": name part must be non-empty',
         id="key"),
    Case("DRA1225", slice_(devices=[device(bindingConditions=["a", "a"],
                                           bindingFailureConditions=["b"])]),
         "spec.devices[0].bindingConditions[1]", 'Duplicate value: "a"'),
    Case("DRA1225", slice_(devices=[device(bindingConditions=["a"],
                                           bindingFailureConditions=["a"])]),
         "spec.devices[0].bindingFailureConditions[0]",
         'Invalid value: "a": bindingFailureConditions must not overlap with bindingConditions',
         id="overlap"),
    Case("DRA1226", slice_(devices=[device(nodeName="n")]), "spec.devices[0]",
         "Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if "
         "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"),
    Case("DRA1226", edit(PER_DEVICE_SLICE, ("spec.devices[1].allNodes", DELETE)), "spec.devices[1]",
         "Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
         "`perDeviceNodeSelection` is set to true in the ResourceSlice spec", id="none"),
    Case("DRA1227", edit(COUNTER_SLICE, ("spec.sharedCounters", [
        {"name": f"s{i}", "counters": {"c": {"value": "1"}}} for i in range(9)])),
         "spec.sharedCounters", "Too many: 9: must have at most 8 items"),
    Case("DRA1227", edit(COUNTER_SLICE, ("spec.sharedCounters", [
        {"name": f"s{i}", "counters": {f"c{j}": {"value": "1"} for j in range(11)}}
        for i in range(3)])), "spec.sharedCounters",
         "Invalid value: 33: the total number of shared counters must not exceed 32",
         version="1.34", gates={"DRAPartitionableDevices": True}, id="1.34-total"),
    Case("DRA1228", edit(COUNTER_SLICE, ("spec.sharedCounters[0].name", "")),
         "spec.sharedCounters[0].name", "Required value"),
    Case("DRA1228", edit(COUNTER_SLICE, ("spec.sharedCounters[1]",
                                         {"name": "gpu-0-counters", "counters": {"c": {"value": "1"}}})),
         "spec.sharedCounters[1]", 'Duplicate value: "gpu-0-counters"', id="dup"),
    Case("DRA1229", edit(COUNTER_SLICE, ("spec.sharedCounters[0].counters", {})),
         "spec.sharedCounters[0].counters", "Required value"),
    Case("DRA1229", edit(COUNTER_SLICE, ("spec.sharedCounters[0].counters", {"Mem": {"value": "1"}})),
         "spec.sharedCounters[0].counters", f'Invalid value: "Mem": {LABEL_MSG}', id="key"),
    Case("DRA1230", slice_(devices=[device(consumesCounters=[
        {"counterSet": f"s{i}", "counters": {"c": {"value": "1"}}} for i in range(3)])]),
         "spec.devices[0].consumesCounters", "Too many: 3: must have at most 2 items"),
    Case("DRA1230", slice_(devices=[device(consumesCounters=[{"counterSet": "s", "counters": {}}])]),
         "spec.devices[0].consumesCounters[0].counters", "Required value", id="empty"),
    Case("DRA1231", slice_(devices=[device(capacity={"cpu": {"value": "4"}},
                                           nodeAllocatableResourceMappings={
                                               "example.com/gpu": {"capacityKey": "cpu"}})]),
         "spec.devices[0].nodeAllocatableResourceMappings[example.com/gpu]",
         'Invalid value: "example.com/gpu": must be a node allocatable resource name',
         version="1.36", gates=ALL_ON),
    # -- DeviceTaintRule ---------------------------------------------------------------------
    Case("DRA1301", edit(TAINT_RULE, ("spec.deviceSelector.device", "GPU")),
         "spec.deviceSelector.device", f'Invalid value: "GPU": {LABEL_MSG}'),
    Case("DRA1301", edit(TAINT_RULE, ("spec.deviceSelector.driver", "bad_driver")),
         "spec.deviceSelector.driver", 'Invalid value: "bad_driver"', id="driver"),
    Case("DRA1302", edit(TAINT_RULE, ("spec.taint.effect", "Sometimes")), "spec.taint.effect",
         'Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "None"'),
    Case("DRA1302", edit(TAINT_RULE, ("spec.taint.value", "bad value")), "spec.taint.value",
         'Invalid value: "bad value": a valid label must be', id="value"),
    Case("DRA1303", edit(TAINT_RULE, ("status", {"conditions": [condition(f"C{i}")
                                                               for i in range(9)]})),
         "status.conditions", "Too many: 9: must have at most 8 items"),
    Case("DRA1303", edit(TAINT_RULE, ("status", {"conditions": [{"type": "EvictionInProgress",
                                                                 "status": "Maybe"}]})),
         "status.conditions[0].status", 'Unsupported value: "Maybe"', id="status"),
    Case("DRA1304", edit(TAINT_RULE, ("apiVersion", "resource.k8s.io/v1alpha3"),
                         ("spec.deviceSelector.deviceClassName", "Bad.Class")),
         "spec.deviceSelector.deviceClassName", f'Invalid value: "Bad.Class": {SUBDOMAIN_MSG}',
         version="1.34", gates={"DRADeviceTaints": True}),
    Case("DRA1310", edit(TAINT_RULE, ("spec.deviceSelector", DELETE)), "spec",
         "the rule has no deviceSelector"),
    # -- Pods --------------------------------------------------------------------------------
    Case("DRA1401", pod(resourceClaims=[{"name": "", "resourceClaimName": "c"}]),
         "spec.resourceClaims[0].name", "Required value"),
    Case("DRA1401", pod(resourceClaims=[{"name": "GPU", "resourceClaimName": "c"}]),
         "spec.resourceClaims[0].name", f'Invalid value: "GPU": {LABEL_MSG}', id="format"),
    Case("DRA1402", pod(resourceClaims=[{"name": "gpu", "resourceClaimName": "c"}] * 2),
         "spec.resourceClaims[1].name", 'Duplicate value: "gpu"'),
    Case("DRA1403", pod(resourceClaims=[{"name": "gpu"}]), "spec.resourceClaims[0]",
         'Invalid value: {"name":"gpu"}: must specify one of: `resourceClaimName`, '
         "`resourceClaimTemplateName`"),
    Case("DRA1404", pod(resourceClaims=[{"name": "gpu", "resourceClaimName": "c",
                                         "resourceClaimTemplateName": "t"}]),
         "spec.resourceClaims[0]",
         'Invalid value: {"name":"gpu","resourceClaimName":"c","resourceClaimTemplateName":"t"}: '
         "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"),
    Case("DRA1405", pod(resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "Tmpl"}]),
         "spec.resourceClaims[0].resourceClaimTemplateName", f'Invalid value: "Tmpl": {SUBDOMAIN_MSG}'),
    Case("DRA1406", pod(containers=[{"name": "c", "resources": {"claims": [{"request": "r"}]}}]),
         "spec.containers[0].resources.claims[0]", "Required value"),
    Case("DRA1407", pod(containers=[{"name": "c", "resources": {"claims": [{"name": "gpus"}]}}]),
         "spec.containers[0].resources.claims[0]",
         'Not found: "gpus": must be one of the names in pod.spec.resourceClaims: gpu'),
    Case("DRA1407", pod(resourceClaims=[], initContainers=[
        {"name": "i", "resources": {"claims": [{"name": "gpu"}]}}]),
         "spec.initContainers[0].resources.claims[0]",
         'Not found: "gpu": must be one of the names in pod.spec.resourceClaims which is empty',
         id="empty"),
    Case("DRA1407", deployment(pod()["spec"] | {"containers": [
        {"name": "c", "resources": {"claims": [{"name": "x"}]}}]}),
         "spec.template.spec.containers[0].resources.claims[0]", 'Not found: "x"', id="deployment"),
    Case("DRA1407", deployment(pod()["spec"] | {"containers": [
        {"name": "c", "resources": {"claims": [{"name": "x"}]}}]}, kind="CronJob"),
         "spec.jobTemplate.spec.template.spec.containers[0].resources.claims[0]",
         'Not found: "x"', id="cronjob"),
    Case("DRA1408", pod(containers=[{"name": "c", "resources": {"claims": [
        {"name": "gpu"}, {"name": "gpu", "request": "r"}]}}]),
         "spec.containers[0].resources.claims[1]", 'Duplicate value: "gpu/r"'),
    Case("DRA1409", pod(containers=[{"name": "c", "resources": {"claims": [
        {"name": "gpu", "request": "a/b"}]}}]),
         "spec.containers[0].resources.claims[0].request", f'Invalid value: "a/b": {LABEL_MSG}'),
    Case("DRA1410", pod(resources={"requests": {"cpu": "1"}, "claims": [{"name": "gpu"}]}),
         "spec.resources.claims", "Forbidden: claims cannot be set for Resources at pod-level"),
    Case("DRA1411", pod(ephemeralContainers=[{"name": "dbg", "resources": {"claims": [
        {"name": "gpu"}]}}]),
         "spec.ephemeralContainers[0].resources", "Forbidden: cannot be set for an Ephemeral Container"),
    Case("DRA1412", edit(POD, ("status.resourceClaimStatuses[0].name", "nope")),
         "status.resourceClaimStatuses[0].name",
         'Invalid value: "nope": must match the name of an entry in `spec.resourceClaims`'),
    Case("DRA1413", edit(POD, ("status.resourceClaimStatuses[0].resourceClaimName", "Bad")),
         "status.resourceClaimStatuses[0].resourceClaimName", f'Invalid value: "Bad": {SUBDOMAIN_MSG}'),
    Case("DRA1414", pod(schedulingGroup={"podGroupName": ""}), "spec.schedulingGroup.podGroupName",
         "Required value", version="1.36", gates={"GenericWorkload": True}),
    Case("DRA1415", pod(workloadRef={"name": "wl", "podGroup": "Workers"}),
         "spec.workloadRef.podGroup", f'Invalid value: "Workers": {LABEL_MSG}', version="1.35",
         gates={"GenericWorkload": True}),
    Case("DRA1417", env_pod(ENV_REF), "spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef",
         "resourceSliceAttributeRef is dractl's extension"),
    Case("DRA1418", edit(POD, ("status.extendedResourceClaimStatus", {
        "resourceClaimName": "p-extended-resources-abcde",
        "requestMappings": [{"containerName": "nope", "resourceName": "example.com/gpu",
                             "requestName": "container-0-request-0"}]})),
         "status.extendedResourceClaimStatus.requestMappings[0].containerName",
         'Invalid value: "nope": must match the name of a container'),
    # -- Workload / PodGroup -----------------------------------------------------------------
    Case("DRA1501", edit(WORKLOAD, ("spec.podGroupTemplates", [])), "spec.podGroupTemplates",
         "Required value", gates=ALL_ON),
    Case("DRA1501", edit(WORKLOAD_135, ("spec.podGroups", [
        {"name": f"g{i}", "policy": {"basic": {}}} for i in range(9)])), "spec.podGroups",
         "Too many: 9: must have at most 8 items", version="1.35", gates=ALL_ON, id="1.35"),
    Case("DRA1502", edit(WORKLOAD, ("spec.podGroupTemplates[0].name", "Workers")),
         "spec.podGroupTemplates[0].name", f'Invalid value: "Workers": {LABEL_MSG}', gates=ALL_ON),
    Case("DRA1503", edit(WORKLOAD, ("spec.podGroupTemplates[0].schedulingPolicy", {})),
         "spec.podGroupTemplates[0].schedulingPolicy",
         "Invalid value: null: must specify exactly one of: `basic`, `gang`", gates=ALL_ON),
    Case("DRA1504", edit(WORKLOAD_135, ("spec.podGroups[0].policy.gang.minCount", 0)),
         "spec.podGroups[0].policy.gang.minCount",
         "Invalid value: 0: must be greater than or equal to 1", version="1.35", gates=ALL_ON),
    Case("DRA1505", edit(POD_GROUP, ("spec.resourceClaims", [
        {"name": f"c{i}", "resourceClaimName": "c"} for i in range(5)])), "spec.resourceClaims",
         "Too many: 5: must have at most 4 items", gates=ALL_ON),
    Case("DRA1506", edit(POD_GROUP, ("spec.resourceClaims[0].name", "")),
         "spec.resourceClaims[0].name", "Required value", gates=ALL_ON),
    Case("DRA1507", edit(POD_GROUP, ("spec.resourceClaims[0].resourceClaimName", DELETE)),
         "spec.resourceClaims[0]", 'Invalid value: {"name":"shared"}: must specify one of: '
         "`resourceClaimName`, `resourceClaimTemplateName`", gates=ALL_ON),
    Case("DRA1508", POD_GROUP, "spec.resourceClaims", "Forbidden"),
    Case("DRA1509", edit(POD_GROUP, ("status.resourceClaimStatuses[0].name", "other")),
         "status.resourceClaimStatuses[0].name",
         'Invalid value: "other": must match the name of an entry in `spec.resourceClaims`',
         gates=ALL_ON),
    Case("DRA1510", edit(WORKLOAD, ("spec.podGroupTemplates[0].schedulingConstraints.topology",
                                    [{"key": "a"}, {"key": "b"}])),
         "spec.podGroupTemplates[0].schedulingConstraints.topology",
         "Too many: 2: must have at most 1 item", gates=ALL_ON),
    Case("DRA1511", edit(POD_GROUP, ("spec.priority", 2000000000)), "spec.priority",
         "Invalid value: 2000000000: must be between -2147483648 and 1000000000", gates=ALL_ON),
    Case("DRA1512", edit(POD_GROUP, ("spec.disruptionMode", {"single": {}, "all": {}})),
         "spec.disruptionMode", "Invalid value: ", gates=ALL_ON),
    # -- shared ------------------------------------------------------------------------------
    Case("DRA1900", edit(CLASS, ("metadata.name", "GPU")), "metadata.name",
         f'Invalid value: "GPU": {SUBDOMAIN_MSG}'),
    Case("DRA1900", edit(CLAIM, ("metadata", {})), "metadata.name",
         "Required value: name or generateName is required", id="missing"),
    Case("DRA1900", edit(POD, ("metadata.name", "pod-__INDEX__")), "metadata.name",
         f'Invalid value: "pod-__INDEX__": {SUBDOMAIN_MSG}', id="pod"),
    Case("DRA1900", {"apiVersion": "v1", "kind": "Node", "metadata": {}}, "metadata.name",
         "Required value: name or generateName is required", id="node"),
    Case("DRA1900", edit(CLASS, ("metadata.generateName", "Bad_")), "metadata.generateName",
         'Invalid value: "Bad_": a lowercase RFC 1123 subdomain', id="generate-name"),
    Case("DRA1908", edit(CLASS, ("metadata.labels", {"bad key!": "v"})), "metadata.labels",
         'Invalid value: "bad key!": name part must consist of alphanumeric characters'),
    Case("DRA1908", edit(CLASS, ("metadata.labels", {"ok": "bad value!"})), "metadata.labels",
         'Invalid value: "bad value!": a valid label must be an empty string', id="label-value"),
    Case("DRA1908", edit(CLASS, ("metadata.annotations", {"a": "x" * (256 * 1024)})),
         "metadata.annotations", "Too long: may not be more than 262144 bytes", id="annotations"),
    Case("DRA1908", edit(CLAIM, ("metadata.namespace", "Not_A_Label")), "metadata.namespace",
         'Invalid value: "Not_A_Label": a lowercase RFC 1123 label', id="namespace"),
    Case("DRA1908", edit(POD, ("metadata.generation", -1)), "metadata.generation",
         "Invalid value: -1: must be greater than or equal to 0", id="generation"),
    Case("DRA1901", edit(CLASS, ("spec.selectors", [sel("FAIL_COMPILE")])),
         "spec.selectors[0].cel.expression",
         "Invalid value: \"FAIL_COMPILE\": compilation failed: ERROR: <input>:1:1: undeclared "
         "reference to 'FAIL_COMPILE' (in container '')", fake_cel=True),
    Case("DRA1902", claim(requests=[req(selectors=[sel("FAIL_COST")])]),
         EX + ".selectors[0].cel.expression", "Forbidden: too complex, exceeds cost limit",
         fake_cel=True),
    Case("DRA1903", edit(CLASS, ("spec.selectors", [{}])), "spec.selectors[0].cel", "Required value"),
    Case("DRA1904", edit(CLASS, ("spec.selectors", [sel("x" * 10241)])),
         "spec.selectors[0].cel.expression", "Too long: may not be more than 10240 bytes"),
    Case("DRA1905", edit(CLASS, ("spec.config", [{}])), "spec.config[0].opaque", "Required value"),
    Case("DRA1905", claim(config=[{"opaque": {"driver": "Bad_Driver", "parameters": {}}}]),
         "spec.devices.config[0].opaque.driver", 'Invalid value: "Bad_Driver"', id="driver"),
    Case("DRA1906", edit(CLASS, ("spec.config", [{"opaque": {"driver": "d.example.com"}}])),
         "spec.config[0].opaque.parameters", "Required value"),
    Case("DRA1906", edit(CLASS, ("spec.config", [{"opaque": {"driver": "d.example.com",
                                                             "parameters": "text"}}])),
         "spec.config[0].opaque.parameters",
         'Invalid value: "<value omitted>": must be a valid JSON object', id="not-object"),
    Case("DRA1906", edit(CLASS, ("spec.config", [{"opaque": {"driver": "d.example.com",
                                                             "parameters": {"x": "y" * 10240}}}])),
         "spec.config[0].opaque.parameters", "Too long: may not be more than 10240 bytes",
         id="too-long"),
    Case("DRA1907", edit(CLASS, ("spec.selectors", [sel(
        'cel.bind(v, device.attributes["d.example.com"].?version, v.value().major() == 1)')])),
         "spec.selectors[0].cel.expression",
         "<input>:1:58: `v` (bound by cel.bind) holds an optional of a version or quantity "
         "attribute"),
    Case("DRA1910", claim(requests=[{"name": "gpu", "firstAvailable": [
        {"name": "a", "deviceClassName": "c"}]}]), R0 + ".firstAvailable",
         "firstAvailable needs feature gate DRAPrioritizedList", version="1.35",
         gates={"DRAPrioritizedList": False}),
    Case("DRA1004", claim(requests=[{"name": "gpu", "firstAvailable": [
        {"name": "a", "deviceClassName": "c"}]}]), R0, f"Required value: {ONE_OF}",
         version="1.35", gates={"DRAPrioritizedList": False}, id="gate-follow-up"),
    Case("DRA1216", slice_(devices=[device(attributes={"a": {"strings": ["x"]}})]),
         "spec.devices[0].attributes[a]", 'Invalid value: "": exactly one value must be specified',
         id="list-attribute-gate-off"),
    Case("DRA1205", edit(PER_DEVICE_SLICE, ("spec.devices", [])), "spec",
         "Required value: exactly one of `nodeName`", version="1.35", id="per-device-gate-off"),
    Case("DRA1910", slice_(devices=[device(taints=[{"key": "k", "effect": "NoSchedule"}])]),
         "spec.devices[0].taints", "taints needs feature gate DRADeviceTaints", version="1.35",
         id="slice-taints"),
    Case("DRA1910", edit(CLASS, ("spec.extendedResourceName", "example.com/gpu")),
         "spec.extendedResourceName", "extendedResourceName needs feature gate DRAExtendedResource",
         version="1.35", id="class"),
    Case("DRA1910", pod(workloadRef={"name": "w", "podGroup": "g"}), "spec.workloadRef",
         "workloadRef only exists in Kubernetes 1.35", version="1.36", id="workloadref"),
    Case("DRA1911", TAINT_RULE, "kind", "DeviceTaintRule is only served when feature gate "
                                        "DRADeviceTaintRules is enabled", version="1.36"),
    # -- the 1.37 API (gate on, gate off) and re-checked rules ------------
    Case("DRA1025", derived_claim([{"name": f"derived/a{i}", "expression": "1"} for i in range(33)]),
         EX + ".derivedAttributes", "Too many: 33: must have at most 32 items", gates=DERIVED_ON),
    Case("DRA1026", derived_claim([{"name": "numa", "expression": "1"}], match="numa"),
         EX + ".derivedAttributes[0].name",
         'Invalid value: "numa": a fully qualified name must be a domain and a name separated by '
         "a slash", gates=DERIVED_ON),
    Case("DRA1026", derived_claim([{"name": "", "expression": "1"}]), EX + ".derivedAttributes[0].name",
         "Required value", gates=DERIVED_ON, id="required"),
    Case("DRA1026", derived_claim([{"name": "derived/numa", "expression": "1"}] * 2),
         EX + ".derivedAttributes[1].name", 'Duplicate value: "derived/numa"', gates=DERIVED_ON,
         id="duplicate"),
    Case("DRA1027", derived_claim([{"name": "derived/numa", "expression": "device.attributes["}]),
         EX + ".derivedAttributes[0].expression",
         'Invalid value: "device.attributes[": compilation failed: ERROR: <input>:1:19: Syntax '
         "error", gates=DERIVED_ON),
    Case("DRA1027", derived_claim([{"name": "derived/numa",
                                    "expression": 'device.attributes["dra.example.com"]'}]),
         EX + ".derivedAttributes[0].expression",
         'Invalid value: "device.attributes[\\"dra.example.com\\"]": must evaluate to string, int, '
         "bool or semver, not map(string, dyn)", gates=DERIVED_ON, id="map-result"),
    Case("DRA1027", derived_claim([{"name": "derived/numa", "expression": "[1, 2]"}]),
         EX + ".derivedAttributes[0].expression",
         'Invalid value: "[1, 2]": must evaluate to string, int, bool or semver, not list(int)',
         gates=DERIVED_ON, id="list-without-list-attributes"),
    Case("DRA1027", derived_claim([{"name": "derived/numa", "expression": ""}]),
         EX + ".derivedAttributes[0].expression", "Required value", gates=DERIVED_ON,
         id="required"),
    Case("DRA1027", derived_claim([{"name": "derived/numa", "expression": "x" * 10241}]),
         EX + ".derivedAttributes[0].expression", "Too long: may not be more than 10240 bytes",
         gates=DERIVED_ON, id="too-long"),
    Case("DRA1027", derived_claim([{"name": "derived/numa", "expression":
                                    "device.attributes.all(d, device.attributes.all(e, "
                                    "device.attributes[d].all(f, device.attributes[e].all(g, "
                                    "f.matches(g)))))"}]),
         EX + ".derivedAttributes[0].expression", "Forbidden: too complex, exceeds cost limit",
         gates=DERIVED_ON, id="cost"),
    Case("DRA1028", derived_claim([{"name": "derived/numa", "expression": "1"}], match="derived/x"),
         EX + ".derivedAttributes[0].name",
         'Invalid value: "derived/numa": must be referenced by a `matchAttribute` or '
         "`distinctAttribute` constraint that applies to this request", gates=DERIVED_ON),
    Case("DRA1028", derived_claim([{"name": "derived/numa", "expression": "1"}],
                                  requests=["other"]),
         EX + ".derivedAttributes[0].name", 'Invalid value: "derived/numa": must be referenced',
         gates=DERIVED_ON, id="constraint-for-another-request"),
    Case("DRA1028", claim(requests=[{"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "c",
         "derivedAttributes": [{"name": "derived/numa", "expression": "1"}]},
        {"name": "small", "deviceClassName": "c"}]}],
        constraints=[{"requests": ["gpu/small"], "matchAttribute": "derived/numa"}]),
         R0 + ".firstAvailable[0].derivedAttributes[0].name",
         'Invalid value: "derived/numa": must be referenced', gates=DERIVED_ON, id="subrequest"),
    Case("DRA1910", derived_claim([{"name": "derived/numa", "expression": "1"}]),
         EX + ".derivedAttributes", "derivedAttributes needs feature gate DRADerivedAttributes",
         id="derived-gate-off"),
    Case("DRA1028", edit(TEMPLATE, ("apiVersion", "resource.k8s.io/v1beta1"),
                         ("spec.spec.devices.requests", [{
                             "name": "gpu", "deviceClassName": "c",
                             "derivedAttributes": [{"name": "derived/numa", "expression": "1"}]}])),
         "spec.spec.devices.requests[0].derivedAttributes[0].name",
         'Invalid value: "derived/numa": must be referenced by a `matchAttribute` or '
         "`distinctAttribute` constraint that applies to this request (v1 field: "
         "spec.spec.devices.requests[0].exactly.derivedAttributes[0].name)",
         gates=DERIVED_ON, id="v1beta1-flat-request"),
    Case("DRA1024", claim(constraints=[{"matchAttribute": "a.b/c", "distinctAttribute": "a.b/d"}]),
         "spec.devices.constraints[0]", "both matchAttribute and distinctAttribute are set: the "
                                        "API server accepts this"),
    Case("DRA1015", claim(requests=[req(tolerations=[{"key": "k", "operator": "Equal",
                                                      "value": "bad value"}] * 17)]),
         EX + ".tolerations[16].value", 'Invalid value: "bad value": a valid label must be',
         id="over-16-entries-still-checked"),
    Case("DRA1029", claim(requests=[req(tolerations=[{"effect": "NoSchedule"}])]),
         EX + ".tolerations[0]", "key is empty and operator is Equal: this tolerates taints of "
                                 "every key whose value is '' only; use `operator: Exists`"),
    Case("DRA1017", claim(requests=[req(capacity={"requests": {"1mem": "1"}})]),
         EX + ".capacity.requests", 'Invalid value: "1mem": a valid C identifier must start',
         id="lint-note"),
    Case("DRA1920", slice_(devices=[device(attributes={"a.example.com/b/c": {"int": 1}})]),
         "spec.devices[0].attributes",
         '"a.example.com/b/c" contains more than one slash: Kubernetes 1.37 accepts it'),
    Case("DRA1215", slice_(devices=[device(attributes={"a.example.com/b/c": {"int": 1}})]),
         "spec.devices[0].attributes", 'Invalid value: "a.example.com/b/c": must not contain more '
                                       "than one slash", version="1.38", id="1.38-multi-slash"),
    Case("DRA1232", slice_(devices=[device(consumesCounters=[{
        "counterSet": "s", "counters": {"c": {"value": "1"}},
        "compatibilityGroups": ["a", "b", "c"]}])]),
         "spec.devices[0].consumesCounters[0].compatibilityGroups",
         "Too many: 3: must have at most 2 items", gates=ALL_ON),
    Case("DRA1232", slice_(devices=[device(consumesCounters=[{
        "counterSet": "s", "counters": {"c": {"value": "1"}}, "compatibilityGroups": ["a", "a"]}])]),
         "spec.devices[0].consumesCounters[0].compatibilityGroups[1]", 'Duplicate value: "a"',
         gates=ALL_ON, id="duplicate"),
    Case("DRA1910", slice_(devices=[device(consumesCounters=[{
        "counterSet": "s", "counters": {"c": {"value": "1"}}, "compatibilityGroups": ["a"]}])]),
         "spec.devices[0].consumesCounters[0].compatibilityGroups",
         "compatibilityGroups needs feature gate DRADeviceCompatibilityGroups", id="groups-gate-off"),
    Case("DRA1233", slice_(partitionTypeAttribute="gpu.example.com/profile"),
         "spec.partitionTypeAttribute",
         'Invalid value: "gpu.example.com/profile": may only be set on a slice which declares '
         "devices that consume counters", gates=ALL_ON),
    Case("DRA1233", PARTITION_SLICE, "spec.devices[1].attributes[gpu.example.com/profile]",
         "Required value: device consumes counters and `partitionTypeAttribute` names this "
         "attribute, so it must be set", gates=ALL_ON, id="missing"),
    Case("DRA1233", edit(PARTITION_SLICE, ("spec.devices[0].attributes[profile]", {"int": 1})),
         "spec.devices[0].attributes[profile]",
         'Invalid value: {"int":1}: must be a string value because `partitionTypeAttribute` names '
         "this attribute", gates=ALL_ON, id="not-string"),
    Case("DRA1233", edit(PARTITION_SLICE, ("spec.partitionTypeAttribute", "profile")),
         "spec.partitionTypeAttribute", 'Invalid value: "profile": a fully qualified name',
         gates=ALL_ON, id="format"),
    Case("DRA1910", PARTITION_SLICE, "spec.partitionTypeAttribute",
         "partitionTypeAttribute needs feature gate DRAPartitionableDevicesType",
         id="partition-type-gate-off"),
    Case("DRA1234", slice_(skipNodeOperations=["NodePrepareResources"]), "spec.skipNodeOperations",
         'Invalid value: ["NodePrepareResources"]: NodePrepareResources cannot be skipped unless '
         "NodeUnprepareResources is also skipped", gates=ALL_ON),
    Case("DRA1234", slice_(skipNodeOperations=["NodeUnprepareResources", "Sometimes"]),
         "spec.skipNodeOperations[1]", 'Unsupported value: "Sometimes": supported values: "*", '
                                       '"NodePrepareResources", "NodeUnprepareResources"',
         gates=ALL_ON, id="unknown"),
    Case("DRA1910", slice_(skipNodeOperations=["*"]), "spec.skipNodeOperations",
         "skipNodeOperations needs feature gate DRAOptionalNodeOperations", id="skip-gate-off"),
    Case("DRA1068", results_claim([{"request": "gpu", "driver": "d.example.com", "pool": "p",
                                    "device": "d", "skipNodeOperations": ["NodePrepareResources",
                                                                          "NodePrepareResources"]}]),
         "status.allocation.devices.results[0].skipNodeOperations[1]",
         'Duplicate value: "NodePrepareResources"', gates=ALL_ON),
    Case("DRA1910", results_claim([{"request": "gpu", "driver": "d.example.com", "pool": "p",
                                    "device": "d", "skipNodeOperations": ["*"]}]),
         "status.allocation.devices.results[0].skipNodeOperations",
         "skipNodeOperations needs feature gate DRAOptionalNodeOperations", id="result-skip-gate-off"),
    Case("DRA1231", slice_(devices=[device(capacity={"mem": {"value": "4Gi"}},
                                           nodeAllocatableResources={"memory": {}})]),
         "spec.devices[0].nodeAllocatableResources[memory]",
         "Required value: at least one of mapping or overhead must be set", gates=ALL_ON,
         id="1.37-neither"),
    Case("DRA1231", slice_(devices=[device(capacity={"mem": {"value": "4Gi"}},
                                           nodeAllocatableResources={"memory": {"mapping": {
                                               "capacityKey": "mem"}}})]),
         "spec.devices[0].nodeAllocatableResources[memory].mapping.capacityMultiplier",
         "Required value: capacityMultiplier is required when capacityKey is set", gates=ALL_ON,
         id="1.37-multiplier"),
    Case("DRA1231", slice_(devices=[device(capacity={"mem": {"value": "4Gi"}},
                                           nodeAllocatableResources={"memory": {"mapping": {
                                               "capacityKey": "other", "capacityMultiplier": "1"}}})]),
         "spec.devices[0].nodeAllocatableResources[memory].mapping.capacityKey",
         'Not found: "other"', gates=ALL_ON, id="1.37-capacity-key"),
    Case("DRA1231", slice_(devices=[device(nodeAllocatableResources={"cpu": {"mapping": {
        "deviceMultiplier": "0"}, "overhead": {"perPod": "-1"}}})]),
         "spec.devices[0].nodeAllocatableResources[cpu].mapping.deviceMultiplier",
         'Invalid value: "0": must be positive', gates=ALL_ON, id="1.37-positive"),
    Case("DRA1231", slice_(devices=[device(nodeAllocatableResources={"cpu": {"overhead": {
        "perPod": "-1"}}})]),
         "spec.devices[0].nodeAllocatableResources[cpu].overhead.perPod",
         'Invalid value: "-1": must be non-negative', gates=ALL_ON, id="1.37-overhead"),
    Case("DRA1231", slice_(devices=[device(nodeAllocatableResources={"cpu": {"overhead": {}}})]),
         "spec.devices[0].nodeAllocatableResources[cpu].overhead",
         'Invalid value: "": at least one of perPod or perContainer must be set', gates=ALL_ON,
         id="1.37-overhead-empty"),
    Case("DRA1231", slice_(devices=[device(nodeAllocatableResources={"example.com/gpu": {
        "overhead": {"perPod": "1"}}})]),
         "spec.devices[0].nodeAllocatableResources[example.com/gpu]",
         'Invalid value: "example.com/gpu": must be a node allocatable resource name',
         gates=ALL_ON, id="1.37-name"),
    Case("DRA1910", slice_(devices=[device(nodeAllocatableResources={"cpu": {"overhead": {
        "perPod": "1"}}})]),
         "spec.devices[0].nodeAllocatableResources",
         "nodeAllocatableResources needs feature gate DRANodeAllocatableResources",
         id="node-allocatable-gate-off"),
    Case("DRA1235", slice_(devices=[device(attributes={"resource.kubernetes.io/numaNode":
                                                       {"string": "0"}})]),
         "spec.devices[0].attributes[resource.kubernetes.io/numaNode]",
         '"resource.kubernetes.io/numaNode" is a string here, but the standard attribute is an '
         "int or an int list"),
    Case("DRA1235", slice_(devices=[device(attributes={"resource.kubernetes.io/numa_node":
                                                       {"int": 0}})]),
         "spec.devices[0].attributes[resource.kubernetes.io/numa_node]",
         '"resource.kubernetes.io/numa_node" is not a standard attribute', id="unknown-name"),
    Case("DRA1236", FRACTIONAL_SLICE, "spec.devices[0].capacity[cpu].requestPolicy.validRange",
         "validRange has fractional bounds, but feature gate DRAFractionalCapacityRange is "
         "disabled"),
    Case("DRA1222", edit(FRACTIONAL_SLICE, ("spec.devices[0].capacity[cpu].requestPolicy.default",
                                            "0.7")),
         "spec.devices[0].capacity[cpu].requestPolicy.validRange.step",
         'Invalid value: "700m": value is not a multiple of a given step (500m) from (500m)',
         gates={"DRAFractionalCapacityRange": True}, id="fractional-gate-on"),
    Case("DRA1222", edit(FRACTIONAL_SLICE, ("spec.devices[0].capacity[cpu].requestPolicy.default",
                                            "0.0005")),
         "spec.devices[0].capacity[cpu].requestPolicy.validRange.default",
         'Invalid value: "500u": value cannot be represented as a milli value',
         gates={"DRAFractionalCapacityRange": True}, id="fractional-not-milli"),
    Case("DRA1310", edit(TAINT_RULE, ("spec.deviceSelector", {})), "spec.deviceSelector",
         "the rule has no deviceSelector (or an empty one)", version="1.38", id="1.38-empty"),
    Case("DRA1311", edit(TAINT_RULE, ("spec.deviceSelector", DELETE)), "spec",
         "the rule has no deviceSelector, so from Kubernetes 1.38 on its taint applies to no "
         "device", version="1.38"),
    Case("DRA1302", edit(TAINT_RULE, ("spec.taint.effect", "Sometimes")), "spec.taint.effect",
         'Unsupported value: "Sometimes"', id="v1-served-1.37"),
    Case("DRA1513", edit(POD_GROUP, ("spec.workloadRef", {"workloadName": "wl", "templateName": ""})),
         "spec.workloadRef.templateName", "Required value", gates=ALL_ON),
    Case("DRA1513", edit(POD_GROUP, ("spec.workloadRef", {"workloadName": "WL",
                                                          "templateName": "workers"})),
         "spec.workloadRef.workloadName", f'Invalid value: "WL": {SUBDOMAIN_MSG}', gates=ALL_ON,
         id="format"),
    Case("DRA1513", edit(POD_GROUP, ("apiVersion", "scheduling.k8s.io/v1alpha2"),
                         ("spec.podGroupTemplateRef", {"workload": {"workloadName": "wl",
                                                                    "podGroupTemplateName": "W"}})),
         "spec.podGroupTemplateRef.workload.podGroupTemplateName", f'Invalid value: "W": {LABEL_MSG}',
         version="1.36", gates=ALL_ON, id="1.36"),
    # -- references --------------------------------------------------------------------------
    Case("DRA2001", [POD], "spec.resourceClaims[1].resourceClaimName",
         'ResourceClaim "claim" is not among the inputs in namespace "ns"'),
    Case("DRA2001", [POD, edit(CLAIM, ("metadata.namespace", "other")), TEMPLATE],
         "spec.resourceClaims[1].resourceClaimName", 'ResourceClaim "claim" is not among the inputs '
                                                     'in namespace "ns"; one exists in namespace "other"',
         id="other-namespace"),
    Case("DRA2001", [POD_GROUP], "spec.resourceClaims[0].resourceClaimName",
         'ResourceClaim "claim" is not among the inputs', id="podgroup"),
    Case("DRA2002", [POD, CLAIM], "spec.resourceClaims[0].resourceClaimTemplateName",
         'ResourceClaimTemplate "tmpl" is not among the inputs'),
    Case("DRA2003", [CLAIM], R0 + ".exactly.deviceClassName",
         'DeviceClass "gpu.example.com" is not among the inputs'),
    Case("DRA2003", [edit(TEMPLATE, ("apiVersion", "resource.k8s.io/v1beta1"),
                          ("spec.spec.devices.requests", [{"name": "gpu",
                                                           "deviceClassName": "gpu.exampel.com"}])),
                     CLASS],
         "spec.spec.devices.requests[0].deviceClassName",
         'DeviceClass "gpu.exampel.com" is not among the inputs', id="v1beta1-path"),
    Case("DRA2004", [pod(containers=[{"name": "c", "resources": {"claims": [
        {"name": "gpu", "request": "gpus"}]}}]), TEMPLATE],
         "spec.containers[0].resources.claims[0].request",
         'request "gpus" does not exist in ResourceClaimTemplate "tmpl" (requests: gpu) '
         '(did you mean "gpu"?)'),
    Case("DRA2010", [env_pod(dict(ENV_REF, claimName="gpus")), TEMPLATE],
         "spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef.claimName",
         'claimName "gpus" is not declared in pod.spec.resourceClaims (declared: gpu)'),
    Case("DRA2011", [env_pod(dict(ENV_REF, requestName="gpu/big")), TEMPLATE],
         "spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef.requestName",
         'request "gpu" of ResourceClaimTemplate "tmpl" has no subrequest "big"'),
    Case("DRA2011", [env_pod(dict(ENV_REF, requestName="nic")), TEMPLATE],
         "spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef.requestName",
         'request "nic" does not exist in ResourceClaimTemplate "tmpl"', id="request"),
    Case("DRA2011", [env_pod(dict(ENV_REF, requestName="a/b/c"))],
         "spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef.requestName",
         '"a/b/c" must be a request name or a request and a subrequest', id="format"),
    Case("DRA2012", [env_pod(dict(ENV_REF, deviceIndex=1)), TEMPLATE],
         "spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef.deviceIndex",
         'deviceIndex 1 is out of range: request "gpu" of ResourceClaimTemplate "tmpl" gets 1 device'),
    Case("DRA2012", [env_pod(dict(ENV_REF, requestName="gpu", deviceIndex=2)), SUB_TEMPLATE],
         "spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef.deviceIndex",
         'deviceIndex 2 is out of range: request "gpu" of ResourceClaimTemplate "tmpl" gets 2 '
         "devices at most", id="first-available"),
    Case("DRA2013", [env_pod(dict(ENV_REF, attribute="a/b/c"))],
         "spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef.attribute",
         '"a/b/c" is not a qualified attribute name'),
    Case("DRA2020", [pod(schedulingGroup={"podGroupName": "pg"})],
         "spec.schedulingGroup.podGroupName", 'PodGroup "pg" is not among the inputs'),
    Case("DRA2021", [pod(workloadRef={"name": "wl", "podGroup": "workers"})], "spec.workloadRef.name",
         'Workload "wl" is not among the inputs'),
    Case("DRA2022", [pod(workloadRef={"name": "wl", "podGroup": "worker"}), WORKLOAD_135],
         "spec.workloadRef.podGroup",
         'Workload "wl" has no pod group "worker" (pod groups: workers) (did you mean "workers"?)'),
    Case("DRA2030", [edit(CLAIM, ("spec.devices.requests[0].exactly.adminAccess", True)), NAMESPACE],
         R0 + ".exactly.adminAccess",
         "Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: "
         "true` label on the containing namespace"),
]


def _case_id(case: Case) -> str:
    return f"{case.code}-{case.id}" if case.id else case.code


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_failing_case(case: Case, request):
    if case.fake_cel:
        request.getfixturevalue("fake_cel")
    findings = run(case.docs, case.version, case.gates)
    matching = [f for f in findings if f.code == case.code]
    assert matching, f"no {case.code} in {[(f.code, f.field, f.message) for f in findings]}"
    hits = [f for f in matching
            if render_path(f.path) == case.path and f.message.startswith(case.message)]
    assert hits, (f"{case.code} at {case.path!r} with message {case.message!r} not found; got "
                  f"{[(f.field, f.message) for f in matching]}")
    assert all(f.severity == CODES[f.code].severity for f in findings)


def test_every_code_has_a_failing_case():
    import dractl.validate.refs  # noqa: F401 - registers DRA20xx
    import dractl.validate.rules  # noqa: F401 - registers DRA1xxx

    covered = {c.code for c in CASES} | {"DRA1999"}  # DRA1999: see test_rules_robustness
    ours = {code for code in CODES if code.startswith(("DRA1", "DRA2"))}
    missing = sorted(ours - covered)
    assert not missing, f"codes without a failing case in the table: {missing}"
    unknown = sorted(covered - set(CODES))
    assert not unknown, f"table uses unregistered codes: {unknown}"


def test_every_code_has_a_summary():
    import dractl.validate.refs  # noqa: F401

    for code, doc in CODES.items():
        if code.startswith(("DRA1", "DRA2")):
            assert doc.summary and "\n" not in doc.summary, code
            assert doc.severity in ("error", "warning", "info"), code


# -- passing manifests ---------------------------------------------------------------------------

VALID = [
    # 1.37 API and re-checked rules
    ("derived-attributes", claim(requests=[
        req(derivedAttributes=[{"name": "derived/numa",
                                "expression": 'device.attributes["dra.example.com"].numa'}]),
        {"name": "nic", "firstAvailable": [
            {"name": "fast", "deviceClassName": "nic.example.com",
             "derivedAttributes": [{"name": "derived/numa", "expression": "device.attributes["
                                    '"dra.net"].numaNode'},
                                   {"name": "derived/list", "expression": "[1, 2]"}]},
            {"name": "slow", "deviceClassName": "nic.example.com"}]}],
        constraints=[{"requests": ["gpu", "nic"], "matchAttribute": "derived/numa"},
                     {"requests": ["nic/fast"], "distinctAttribute": "derived/list"}]),
     "1.37", DERIVED_ON | {"DRAListTypeAttributes": True}),
    ("derived-attributes-v1beta1", edit(TEMPLATE, ("apiVersion", "resource.k8s.io/v1beta1"),
                                        ("spec.spec.devices", {"requests": [{
                                            "name": "gpu", "deviceClassName": "c",
                                            "derivedAttributes": [{"name": "derived/n",
                                                                   "expression": "1"}]}],
                                            "constraints": [{"matchAttribute": "derived/n"}]})),
     "1.37", DERIVED_ON),
    ("toleration-empty-key-exists", claim(requests=[req(tolerations=[
        {"key": "", "operator": "Exists", "effect": "NoSchedule"}])]), "1.37", {}),
    ("slice-partition-type", edit(PARTITION_SLICE, ("spec.devices[1].attributes",
                                                    {"gpu.example.com/profile": {"string": "2g"}})),
     "1.37", ALL_ON),
    ("slice-skip-node-operations", slice_(skipNodeOperations=["NodePrepareResources",
                                                              "NodeUnprepareResources"]),
     "1.37", ALL_ON),
    ("slice-skip-all", slice_(skipNodeOperations=["*"]), "1.37", ALL_ON),
    ("slice-compatibility-groups", slice_(devices=[device(consumesCounters=[{
        "counterSet": "s", "counters": {"c": {"value": "1"}}, "compatibilityGroups": ["a", "b"]}])]),
     "1.37", ALL_ON),
    ("slice-node-allocatable-1.37", slice_(devices=[device(
        capacity={"mem": {"value": "4Gi"}},
        nodeAllocatableResources={"memory": {"mapping": {"capacityKey": "mem",
                                                         "capacityMultiplier": "1"},
                                             "overhead": {"perPod": "64Mi"}},
                                  "cpu": {"mapping": {"deviceMultiplier": "2"}},
                                  "hugepages-2Mi": {"overhead": {"perContainer": "0"}}})]),
     "1.37", ALL_ON),
    ("slice-node-allocatable-1.36", slice_(devices=[device(
        capacity={"mem": {"value": "4Gi"}},
        nodeAllocatableResourceMappings={"memory": {"capacityKey": "mem",
                                                    "allocationMultiplier": "1"}})]),
     "1.36", ALL_ON),
    ("slice-fractional-range", FRACTIONAL_SLICE, "1.37", {"DRAFractionalCapacityRange": True}),
    ("slice-standard-attributes", slice_(devices=[device(attributes={
        "resource.kubernetes.io/numaNode": {"int": 1},
        "resource.kubernetes.io/pcieRoot": {"string": "pci0000:00"},
        "resource.kubernetes.io/pciBusID": {"string": "0000:00:01.0"}})]), "1.37", {}),
    ("podgroup-workload-ref", edit(POD_GROUP, ("spec.workloadRef", {"workloadName": "wl",
                                                                    "templateName": "workers"})),
     "1.37", ALL_ON),
    ("taint-rule-1.38-empty-selector-is-explicit", edit(TAINT_RULE, ("spec.deviceSelector", {
        "driver": "gpu.example.com"})), "1.38", {}),
    ("claim", CLAIM, "1.37", {}),
    ("claim-full", CLAIM_FULL, "1.37", {}),
    ("claim-full-1.36", CLAIM_FULL, "1.36", {}),
    ("template", TEMPLATE, "1.37", {}),
    ("class", CLASS, "1.37", {}),
    ("slice", SLICE, "1.34", {}),
    ("slice", SLICE, "1.37", {}),
    ("slice-full", SLICE_FULL, "1.37", ALL_ON),
    ("slice-per-device", PER_DEVICE_SLICE, "1.36", {}),
    ("slice-counters", COUNTER_SLICE, "1.36", {}),
    ("slice-all-nodes", slice_(nodeName=None, allNodes=True), "1.37", {}),
    ("slice-selector", slice_(nodeName=None, nodeSelector={"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "example.com/rack", "operator": "In", "values": ["r1"]}]}]}),
     "1.37", {}),
    ("taint-rule", TAINT_RULE, "1.37", {}),
    ("taint-rule-v1beta2", edit(TAINT_RULE, ("apiVersion", "resource.k8s.io/v1beta2")), "1.36",
     {"DRADeviceTaintRules": True}),
    ("pod", POD, "1.37", {}),
    ("deployment", deployment(POD["spec"]), "1.37", {}),
    ("cronjob", deployment(POD["spec"], kind="CronJob"), "1.37", {}),
    ("workload", WORKLOAD, "1.37", ALL_ON),
    ("workload-1.35", WORKLOAD_135, "1.35", ALL_ON),
    ("podgroup", POD_GROUP, "1.37", ALL_ON),
    ("pod-scheduling-group", pod(schedulingGroup={"podGroupName": "pg"}), "1.37", ALL_ON),
    ("pod-workload-ref", pod(workloadRef={"name": "wl", "podGroup": "workers"}), "1.35", ALL_ON),
    ("count-zero-defaults-to-one", claim(requests=[req(count=0)]), "1.37", {}),
    ("v1beta1-claim", {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
                       "metadata": {"name": "c"},
                       "spec": {"devices": {"requests": [{"name": "gpu",
                                                          "deviceClassName": "gpu.example.com"}]}}},
     "1.37", {}),
    ("v1beta1-slice", {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice",
                       "metadata": {"name": "s"},
                       "spec": {"driver": "d.example.com", "nodeName": "n", "allNodes": False,
                                "pool": {"name": "p", "resourceSliceCount": 1},
                                "devices": [{"name": "d0", "basic": {"attributes": {
                                    "a": {"int": 1}}}}]}}, "1.37", {}),
    ("unrelated-kind", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "X_"}},
     "1.37", {}),
]


@pytest.mark.parametrize("name,doc,version,gates", VALID, ids=[v[0] + "-" + v[2] for v in VALID])
def test_valid_manifest_has_no_findings(name, doc, version, gates):
    findings = run(doc, version, gates)
    assert findings == [], [(f.code, f.field, f.message) for f in findings]


def test_valid_references_have_no_findings():
    docs = [NAMESPACE, CLASS, CLAIM, TEMPLATE, POD, edit(NAMESPACE, ("metadata.labels", {
        "resource.kubernetes.io/admin-access": "true"}), ("metadata.name", "admin")),
            edit(CLAIM, ("metadata.namespace", "admin"),
                 ("spec.devices.requests[0].exactly.adminAccess", True)),
            env_pod(dict(ENV_REF, deviceIndex=0)),
            env_pod(dict(ENV_REF, requestName="gpu/big", deviceIndex=1))
            | {"metadata": {"name": "p2", "namespace": "other"}},
            edit(SUB_TEMPLATE, ("metadata.namespace", "other")),
            edit(POD_GROUP, ("metadata.name", "pg")), pod(schedulingGroup={"podGroupName": "pg"}),
            WORKLOAD_135, pod(workloadRef={"name": "wl", "podGroup": "workers"})]
    findings = run(docs, "1.37", ALL_ON)
    assert findings == [], [(f.code, f.field, f.message) for f in findings]
