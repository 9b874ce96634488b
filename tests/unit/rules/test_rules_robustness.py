"""The rules never raise and never hit an internal error, whatever the input looks like."""

from __future__ import annotations

import copy

import pytest
from rules_manifests import (
    CLAIM_FULL,
    CLASS,
    COUNTER_SLICE,
    PER_DEVICE_SLICE,
    POD,
    POD_GROUP,
    SLICE_FULL,
    TAINT_RULE,
    TEMPLATE,
    WORKLOAD,
    WORKLOAD_135,
    deployment,
    edit,
)

from dractl.api.versions import FeatureGates, known_gates
from dractl.findings import Finding
from dractl.validate import refs
from dractl.validate.rules import RuleContext, check_document, claims

REPLACEMENTS = [None, 0, -1, 1.5, "", "x", True, [], {}, [None], [1], {"a": None}, {"": []}]

SAMPLES = [CLAIM_FULL, TEMPLATE, CLASS, SLICE_FULL, COUNTER_SLICE, PER_DEVICE_SLICE, TAINT_RULE,
           POD, deployment(POD["spec"], "CronJob"), WORKLOAD, WORKLOAD_135, POD_GROUP,
           edit(CLAIM_FULL, ("apiVersion", "resource.k8s.io/v1beta1"),
                ("spec.devices.requests[0]", {"name": "gpu", "deviceClassName": "c", "count": 2})),
           edit(SLICE_FULL, ("apiVersion", "resource.k8s.io/v1beta1"),
                ("spec.devices[0]", {"name": "d", "basic": {"attributes": {"a": {"int": 1}}}}))]


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, prefix + (i,))


def _replace(doc, path, value):
    doc = copy.deepcopy(doc)
    if not path:
        return value
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def _contexts():
    for version in ("1.34", "1.37"):
        yield RuleContext(FeatureGates(version), version)
        yield RuleContext(FeatureGates(version, {g: True for g in known_gates(version)}), version)


@pytest.mark.parametrize("sample", SAMPLES, ids=[f"{s['kind']}-{i}" for i, s in enumerate(SAMPLES)])
def test_wrong_types_anywhere_never_raise(sample):
    contexts = list(_contexts())
    for path in list(_paths(sample)):
        if path[:1] in (("apiVersion",), ("kind",)):
            continue
        for value in REPLACEMENTS:
            doc = _replace(sample, path, value)
            for ctx in contexts:
                findings = check_document(doc, ctx)
                assert all(isinstance(f, Finding) for f in findings)
                internal = [f for f in findings if f.code == "DRA1999"]
                assert not internal, (path, value, internal)
                pairs = refs.check_references([doc, POD, TEMPLATE, CLASS], ctx)
                assert not [f for _, f in pairs if f.code == "DRA1999"], (path, value, pairs)


@pytest.mark.parametrize("doc", [None, [], "x", 1, {}, {"kind": "Pod"}, {"apiVersion": 1, "kind": []},
                                 {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim"},
                                 {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                                  "spec": None},
                                 {"apiVersion": "v1", "kind": "Pod", "spec": []}])
def test_degenerate_documents(doc):
    ctx = RuleContext(FeatureGates("1.37"), "1.37")
    assert isinstance(check_document(doc, ctx), list)
    assert isinstance(refs.check_references([doc], ctx), list)


def test_input_is_not_modified():
    ctx = RuleContext(FeatureGates("1.35"), "1.35")
    for sample in SAMPLES:
        before = copy.deepcopy(sample)
        check_document(sample, ctx)
        refs.check_references([sample], ctx)
        assert sample == before


def test_huge_lists_short_circuit():
    ctx = RuleContext(FeatureGates("1.37"), "1.37")
    doc = edit(CLAIM_FULL, ("spec.devices.requests", [{"name": "Bad"}] * 100_000))
    findings = check_document(doc, ctx)
    requests = [f for f in findings if f.field.startswith("spec.devices.requests")]
    assert [f.message for f in requests] == ["Too many: 100000: must have at most 32 items"]


def test_internal_error_becomes_a_finding(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(claims, "check_claim_spec", broken)
    findings = check_document(CLAIM_FULL, RuleContext(FeatureGates("1.37"), "1.37"))
    assert [(f.code, f.severity) for f in findings if f.code == "DRA1999"] == [("DRA1999", "error")]
    assert "KeyError" in findings[-1].message
