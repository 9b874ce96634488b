"""Manifest text for the dry-run tests: nodes with gpu.example.com devices, the device class,
claim templates and pods. JSON documents (valid YAML) joined with `---`."""

from __future__ import annotations

import json

DRIVER = "gpu.example.com"
BIG_MODEL_SELECTOR = f'device.attributes["{DRIVER}"].model == "big"'


def _docs(*objects: dict) -> str:
    return "".join(f"---\n{json.dumps(obj)}\n" for obj in objects)


def gpu_node(name: str, models: list[str], *, cpu: str = "8", labels: dict | None = None,
             taints: list[dict] | None = None) -> str:
    """A Node and its ResourceSlice: one device gpu-<k> per entry of `models` (its `model`)."""
    node: dict = {"apiVersion": "v1", "kind": "Node",
                  "metadata": {"name": name,
                               "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
                  "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}
    if taints:
        node["spec"] = {"taints": taints}
    devices = [{"name": f"gpu-{k}", "attributes": {"model": {"string": model}}}
               for k, model in enumerate(models)]
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
              "metadata": {"name": f"{name}-gpus"},
              "spec": {"driver": DRIVER, "nodeName": name, "devices": devices,
                       "pool": {"name": name, "generation": 1, "resourceSliceCount": 1}}}
    return _docs(node, slice_)


def device_class(name: str = DRIVER, driver: str = DRIVER) -> str:
    return _docs({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                  "metadata": {"name": name},
                  "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}})


def claim_template(name: str, request: dict) -> str:
    """A ResourceClaimTemplate in namespace default with one request `gpu`."""
    return _docs({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                  "metadata": {"name": name, "namespace": "default"},
                  "spec": {"spec": {"devices": {"requests": [{"name": "gpu", **request}]}}}})


def exactly(selector: str = "", class_name: str = DRIVER) -> dict:
    """An `exactly` request body: one device of the class, with an optional CEL selector."""
    body: dict = {"deviceClassName": class_name}
    if selector:
        body["selectors"] = [{"cel": {"expression": selector}}]
    return {"exactly": body}


def pod(name: str, template: str, *, node_selector: dict | None = None,
        cpu: str | None = None) -> str:
    """A pod in namespace default whose claim `gpu` comes from `template`."""
    container: dict = {"name": "c", "image": "x"}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}}
    spec: dict = {"containers": [container],
                  "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    return _docs({"apiVersion": "v1", "kind": "Pod",
                  "metadata": {"name": name, "namespace": "default"}, "spec": spec})
