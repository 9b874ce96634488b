"""KEP-5304 device metadata files: paths and predicted content."""

from __future__ import annotations

import json

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
    doc = json.loads(own["content"])
    assert doc["apiVersion"] == "metadata.resource.k8s.io/v1alpha1" and doc["kind"] == "DeviceMetadata"
    assert doc["podClaimName"] == "own"
    device = doc["requests"][0]["devices"][0]
    assert device["name"] == "gpu-0"
    assert device["attributes"]["gpu.example.com/index"] == {"int": 0}
    assert "podClaimName" not in json.loads(common["content"])
