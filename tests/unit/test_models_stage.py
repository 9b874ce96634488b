"""The models stage: one conversion per object, one defaulting, one table of pod-template
owners, and thin typed models that read what the dry run reads."""

from __future__ import annotations

import pickle

import pytest

from dractl.api import defaults
from dractl.api.versions import parse_feature_gates
from dractl.load.loader import load_paths
from dractl.models import (
    CONTROLLER_KINDS,
    POD_TEMPLATE_KINDS,
    TEMPLATE_OWNERS,
    ClaimTemplate,
    Node,
    ObjectModel,
    Pod,
    PodGroup,
    model_of,
    pod_spec_location,
    pod_spec_path,
)
from dractl.validate.pipeline import validate_documents

GATES = parse_feature_gates("", "1.37")

BETA1 = """apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata: {name: gpu.example.com}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: tpl, namespace: team}
spec:
  metadata: {labels: {app: x}}
  spec:
    devices:
      requests:
      - {name: gpu, deviceClassName: gpu.example.com, tolerations: [{key: k}]}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: shared, namespace: team}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com, allocationMode: All}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: team}
spec:
  resourceClaims:
  - {name: a, resourceClaimTemplateName: tpl}
  - {name: b, resourceClaimName: shared}
  containers:
  - name: main
    image: busybox
    resources: {claims: [{name: a, request: gpu}, {name: b, request: nope}]}
    env:
    - name: X
      valueFrom: {resourceSliceAttributeRef: {claimName: a, requestName: gpu, attribute: model}}
"""


@pytest.fixture
def beta1_documents(tmp_path):
    (tmp_path / "m.yaml").write_text(BETA1)
    return load_paths([str(tmp_path / "m.yaml")])


def test_each_object_is_converted_once_for_every_check(beta1_documents, monkeypatch):
    import dractl.api.convert as convert_module

    # Every conversion of a v1beta1 claim spec, whoever asks for it, runs this function.
    calls = []
    real = convert_module._convert_claim_spec

    def counting(spec, path, rules):
        calls.append(path)
        return real(spec, path, rules)

    monkeypatch.setattr(convert_module, "_convert_claim_spec", counting)
    validated = validate_documents(beta1_documents, GATES)
    # per-document rules, references and env lints all read the claims' v1 shape ...
    assert any(f.code == "DRA2004" for f in validated.findings)  # references saw it
    assert any(f.code == "DRA6101" for f in validated.findings)  # and so did the env lints
    # ... converted once per object: the template and the claim
    assert sorted(calls) == [("spec",), ("spec", "spec")]


def test_a_model_is_kept_with_its_document_and_travels_with_it(beta1_documents):
    doc = beta1_documents.documents[1]
    model = model_of(doc)
    assert model_of(doc) is model
    assert model.v1["apiVersion"] == "resource.k8s.io/v1"
    assert model.data is doc.data and doc.data["apiVersion"].endswith("v1beta1")  # as written
    back = pickle.loads(pickle.dumps(doc))
    assert model_of(back).v1 == model.v1
    assert model_of(back).defaulted_claim_spec() == model.defaulted_claim_spec()


def test_defaulted_claim_spec_once_and_private(beta1_documents):
    model = model_of(beta1_documents.documents[1])
    spec = model.defaulted_claim_spec()
    assert model.defaulted_claim_spec() is spec
    exactly = spec["devices"]["requests"][0]["exactly"]
    assert (exactly["allocationMode"], exactly["count"]) == ("ExactCount", 1)
    assert exactly["tolerations"] == [{"key": "k", "operator": "Equal"}]
    assert "allocationMode" not in model.claim_spec()["devices"]["requests"][0]["exactly"]
    assert ObjectModel({"kind": "Pod", "apiVersion": "v1"}).defaulted_claim_spec() is None


@pytest.mark.parametrize("request_in, expected", [
    ({}, {"allocationMode": "ExactCount", "count": 1}),
    ({"count": 0}, {"allocationMode": "ExactCount", "count": 1}),
    ({"count": 3}, {"allocationMode": "ExactCount", "count": 3}),
    ({"allocationMode": "All"}, {"allocationMode": "All"}),
    ({"count": False}, {"allocationMode": "ExactCount", "count": False}),  # wrong type: left alone
])
def test_the_one_defaulting(request_in, expected):
    request = dict(request_in)
    defaults.default_request(request)
    assert request == expected


def test_exact_count_request_is_what_defaulting_would_store():
    built = defaults.exact_count_request("gpu", "gpu.example.com", 2)
    written = {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "count": 2}}
    stored = defaults.defaulted_claim_spec({"devices": {"requests": [written]}})
    assert stored["devices"]["requests"][0] == built


def test_one_table_of_pod_template_owners():
    from dractl.simulate.pods import CONTROLLER_KINDS as SIMULATED

    assert set(CONTROLLER_KINDS) == set(SIMULATED)  # until dractl.simulate reads the table
    assert POD_TEMPLATE_KINDS == {o.kind for o in TEMPLATE_OWNERS}
    assert pod_spec_path("Pod") == ("spec",)
    assert pod_spec_path("CronJob") == ("spec", "jobTemplate", "spec", "template", "spec")
    assert pod_spec_path("PodTemplate") == ("template", "spec")
    assert pod_spec_path("ReplicationController", created_only=True) is None
    assert pod_spec_path("Service") is None and pod_spec_path(None) is None
    spec, path = pod_spec_location({"kind": "Job", "spec": {"template": {"spec": {"a": 1}}}})
    assert (spec, path) == ({"a": 1}, ("spec", "template", "spec"))
    assert pod_spec_location({"kind": "Job", "spec": []}) == (None, ("spec", "template", "spec"))


def test_pod_model_of_a_pod_and_of_a_template():
    pod = Pod.from_model(ObjectModel({"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "p", "namespace": "ns", "labels": {"a": "b"}}, "spec": {
        "resourceClaims": [{"name": "x"}, "junk"], "containers": [{"name": "c"}, 3]}}))
    assert (pod.namespace, pod.name, pod.spec_path, dict(pod.labels)) == ("ns", "p", ("spec",), {"a": "b"})
    assert pod.claims() == [{"name": "x"}]
    assert list(pod.containers()) == [({"name": "c"}, ("spec", "containers", 0))]
    deploy = Pod.from_model(ObjectModel({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {
        "name": "d"}, "spec": {"template": {"metadata": {"labels": {"app": "w"}}, "spec": {}}}}))
    assert deploy.spec_path == ("spec", "template", "spec") and dict(deploy.labels) == {"app": "w"}
    rc = ObjectModel({"kind": "ReplicationController", "spec": {"template": {"spec": {}}}})
    assert Pod.from_model(rc) is not None and Pod.from_model(rc, created_only=True) is None
    assert Pod.from_model(ObjectModel({"kind": "Pod", "spec": "bad"})) is None


def test_node_model_reads_what_the_dry_run_reads():
    from dractl.simulate.nodes import SimNode

    data = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"x": None, "y": 2}},
            "spec": {"unschedulable": True, "taints": [{"key": "k", "effect": "NoSchedule"}, {"key": 3}]},
            "status": {"allocatable": {"cpu": "4"}}}
    node, sim = Node.from_model(ObjectModel(data)), SimNode.from_manifest(data)
    assert (node.name, dict(node.labels), node.unschedulable, dict(node.allocatable)) == \
        (sim.name, dict(sim.labels), sim.unschedulable, dict(sim.allocatable))
    assert [(t.key, t.value, t.effect) for t in node.taints] == \
        [(t.key, t.value, t.effect) for t in sim.taints]


def test_pod_group_model_reads_what_the_dry_run_reads(tmp_path):
    from dractl.simulate.groups import GroupIndex

    (tmp_path / "g.yaml").write_text("""apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: g, namespace: team, uid: u-1}
spec:
  schedulingPolicy: {gang: {minCount: 3}}
  resourceClaims: [{name: shared, resourceClaimName: c}, 7]
status:
  resourceClaimStatuses: [{name: shared, resourceClaimName: c-1}, {name: x}]
""")
    doc = load_paths([str(tmp_path / "g.yaml")]).documents[0]
    index = GroupIndex()
    index.add(doc)
    info = index.pod_groups[("team", "g")]
    group = PodGroup.from_model(model_of(doc))
    assert (group.namespace, group.name, group.uid, group.api_version, group.policy,
            group.min_count, list(group.resource_claims), dict(group.claim_statuses)) == \
        (info.namespace, info.name, info.uid, info.api_version, info.policy, info.min_count,
         info.resource_claims, info.claim_statuses)
    assert group.policy_set and group.template_ref == {}


def test_claim_template_model(beta1_documents):
    template = ClaimTemplate.from_model(model_of(beta1_documents.documents[1]))
    assert (template.namespace, template.name, dict(template.labels)) == ("team", "tpl", {"app": "x"})
    assert template.spec["devices"]["requests"][0]["exactly"]["deviceClassName"] == "gpu.example.com"
    assert template.defaulted_spec["devices"]["requests"][0]["exactly"]["count"] == 1
