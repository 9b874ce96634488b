"""KEP-5304 device metadata files: paths and predicted content."""

from __future__ import annotations

import json

import pytest

from dractl.api.versions import FeatureGates
from dractl.inventories import inventory_path
from dractl.load.loader import load_paths
from dractl.metadata import plan_files
from dractl.simulate.scheduler import simulate
from dractl.validate.pipeline import validate_documents

MANIFESTS = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  resourceClaims:
  - {name: own, resourceClaimTemplateName: one-gpu}
  - {name: common, resourceClaimName: shared}
  containers:
  - name: both
    image: x
    resources: {claims: [{name: own}, {name: common}]}
  - name: none
    image: x
"""


def test_paths_and_content(tmp_path):
    f = tmp_path / "m.yaml"
    f.write_text(MANIFESTS)
    gates = FeatureGates("1.37")
    validated = validate_documents(load_paths([str(inventory_path("example-gpu")), str(f)]), gates)
    plan = simulate(validated.documents, gates, invalid=validated.invalid)
    (pod,) = plan_files(plan)
    assert list(pod["containers"]) == ["both"]  # only containers that receive the devices
    own, common = pod["containers"]["both"]
    assert own["path"] == ("/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/own/gpu/"
                           "gpu.example.com-metadata.json")
    assert common["path"] == ("/var/run/kubernetes.io/dra-device-attributes/resourceclaims/shared/gpu/"
                              "gpu.example.com-metadata.json")
    docs = _stream(own["content"])
    # 1.37 drivers write v1beta1 (required) then v1alpha1: one object per version, same content.
    assert [d["apiVersion"] for d in docs] == ["metadata.resource.k8s.io/v1beta1",
                                               "metadata.resource.k8s.io/v1alpha1"]
    assert all(d["kind"] == "DeviceMetadata" for d in docs)
    assert docs[0]["requests"] == docs[1]["requests"]
    doc = docs[0]
    assert doc["podClaimName"] == "own"
    assert doc["metadata"]["generation"] == 1
    device = doc["requests"][0]["devices"][0]
    assert device["name"] == "gpu-0"
    # Keys as the driver publishes them in its ResourceSlice (the example driver: bare names).
    assert device["attributes"]["index"] == {"int": 0}
    assert "capacity" not in device and "memory" not in device["attributes"]
    assert all("podClaimName" not in d for d in _stream(common["content"]))


def _stream(text: str) -> list[dict]:
    """Decode a JSON stream the way devicemetadata.DecodeMetadataFromStream walks it."""
    decoder, docs, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        while text[at].isspace():
            at += 1
        doc, at = decoder.raw_decode(text, at)
        docs.append(doc)
    return docs


def _plan(tmp_path, version: str):
    f = tmp_path / "m.yaml"
    f.write_text(MANIFESTS)
    gates = FeatureGates(version)
    validated = validate_documents(load_paths([str(inventory_path("example-gpu")), str(f)]), gates)
    return simulate(validated.documents, gates, invalid=validated.invalid)


def test_release_defaults_and_version_order(tmp_path):
    from dractl.metadata import V1ALPHA1, V1BETA1, default_versions

    assert default_versions("1.35") == () and default_versions("1.34") == ()
    assert default_versions("1.36") == (V1ALPHA1,)
    assert default_versions("1.37") == (V1BETA1, V1ALPHA1) == default_versions("1.38")
    plan = _plan(tmp_path, "1.36")
    (pod,) = plan_files(plan, release="1.36")
    own = pod["containers"]["both"][0]
    assert [d["apiVersion"] for d in _stream(own["content"])] == [V1ALPHA1]
    # The driver's order is the stream's order (the helper does not sort).
    (pod,) = plan_files(_plan(tmp_path, "1.37"), (V1ALPHA1, V1BETA1), "1.37")
    assert [d["apiVersion"] for d in _stream(pod["containers"]["both"][0]["content"])] == [V1ALPHA1, V1BETA1]


def test_stream_encoding_is_the_pretty_serializers():
    from dractl.metadata import encode_object

    text = encode_object({"kind": "DeviceMetadata", "apiVersion": "v", "metadata": {"name": "a<b>&c é"},
                          "requests": []})
    assert text.splitlines()[:3] == ["{", '  "kind": "DeviceMetadata",', '  "apiVersion": "v",']
    # Go's encoder escapes <, > and & and keeps other UTF-8 as is.
    assert '"a\\u003cb\\u003e\\u0026c é"' in text and not text.endswith("\n")


@pytest.mark.parametrize("release, text, expected", [
    ("1.37", None, ("metadata.resource.k8s.io/v1beta1", "metadata.resource.k8s.io/v1alpha1")),
    ("1.37", "v1beta1", ("metadata.resource.k8s.io/v1beta1",)),
    ("1.37", "metadata.resource.k8s.io/v1alpha1, v1beta1",
     ("metadata.resource.k8s.io/v1alpha1", "metadata.resource.k8s.io/v1beta1")),
    # 1.36's helper skips versions it does not know, as long as one is left.
    ("1.36", "v1beta1,v1alpha1", ("metadata.resource.k8s.io/v1alpha1",)),
])
def test_parse_versions_accepts(release, text, expected):
    from dractl.metadata import parse_versions

    assert parse_versions(text, release) == expected


@pytest.mark.parametrize("release, text, message", [
    ("1.37", "", "no metadata API versions given; metadata.resource.k8s.io/v1beta1 is required"),
    ("1.37", "v1alpha1", "do not include the required metadata.resource.k8s.io/v1beta1"),
    ("1.37", "v1beta1,v1", "unknown metadata API version metadata.resource.k8s.io/v1"),
    ("1.36", "v1beta1", "initialize device metadata: none of the requested metadata API versions "
                        "[metadata.resource.k8s.io/v1beta1] are supported"),
    ("1.36", "", "none of the requested metadata API versions [] are supported"),
    ("1.35", None, "Kubernetes 1.35 has no device metadata files"),
])
def test_parse_versions_refuses_like_the_helper(release, text, message):
    from dractl.metadata import MetadataVersionError, parse_versions

    with pytest.raises(MetadataVersionError) as caught:
        parse_versions(text, release)
    assert message in str(caught.value)


def test_pod_claim_name_comes_from_the_claim_annotation(tmp_path):
    # The helper reads resource.kubernetes.io/pod-claim-name from the claim (newClaimRef), not
    # the pod's entry: a claim that a controller generated earlier (here: an existing claim that
    # carries the annotation, referenced by name) gets the template path and podClaimName.
    text = MANIFESTS.replace("metadata: {name: shared, namespace: default}",
                             "metadata: {name: shared, namespace: default, annotations: "
                             "{resource.kubernetes.io/pod-claim-name: common}}")
    f = tmp_path / "m.yaml"
    f.write_text(text)
    gates = FeatureGates("1.37")
    validated = validate_documents(load_paths([str(inventory_path("example-gpu")), str(f)]), gates)
    plan = simulate(validated.documents, gates, invalid=validated.invalid)
    (pod,) = plan_files(plan, release="1.37")
    _, common = pod["containers"]["both"]
    assert common["path"] == ("/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/common/gpu/"
                              "gpu.example.com-metadata.json")
    assert {d["podClaimName"] for d in _stream(common["content"])} == {"common"}
