"""Small valid manifests and an editing helper shared by the rule tests."""

from __future__ import annotations

import copy
import re
from typing import Any

DELETE = object()

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]|\[([^\]]+)\]")


def _parse(path: str) -> list:
    keys: list = []
    for name, index, key in _TOKEN.findall(path):
        if index:
            keys.append(int(index))
        elif key:
            keys.append(key)
        else:
            keys.append(name)
    return keys


def edit(base: dict, *changes: tuple[str, Any]) -> dict:
    """Deep copy of base with `path -> value` changes (`a.b[0].c`, `m[key/with.dots]`)."""
    doc = copy.deepcopy(base)
    for path, value in changes:
        keys = _parse(path)
        node: Any = doc
        for key in keys[:-1]:
            if isinstance(node, dict):
                node = node.setdefault(key, {})
            else:
                node = node[key]
        last = keys[-1]
        if value is DELETE:
            if isinstance(node, dict):
                node.pop(last, None)
            else:
                del node[last]
        elif isinstance(node, list) and last == len(node):
            node.append(copy.deepcopy(value))
        else:
            node[last] = copy.deepcopy(value)
    return doc


def claim(**spec_devices: Any) -> dict:
    devices = {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}
    devices.update(spec_devices)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "claim", "namespace": "ns"}, "spec": {"devices": devices}}


CLAIM = claim()

CLAIM_FULL = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
    "metadata": {"name": "full", "namespace": "ns"},
    "spec": {"devices": {
        "requests": [
            {"name": "gpu", "exactly": {
                "deviceClassName": "gpu.example.com",
                "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
                "allocationMode": "ExactCount", "count": 2,
                "tolerations": [{"key": "example.com/unhealthy", "operator": "Exists",
                                 "effect": "NoExecute", "tolerationSeconds": 300}],
                "capacity": {"requests": {"memory": "4Gi"}}}},
            {"name": "any", "firstAvailable": [
                {"name": "big", "deviceClassName": "gpu.example.com", "count": 1},
                {"name": "small", "deviceClassName": "gpu.example.com", "allocationMode": "All"}]},
            {"name": "all", "exactly": {"deviceClassName": "gpu.example.com",
                                        "allocationMode": "All", "adminAccess": True}},
        ],
        "constraints": [
            {"requests": ["gpu", "any/big"], "matchAttribute": "dra.example.com/model"},
            {"distinctAttribute": "dra.example.com/uuid"},
        ],
        "config": [{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com",
                                                    "parameters": {"kind": "GpuConfig"}}}],
    }},
    "status": {
        "allocation": {
            "devices": {
                "results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-1",
                             "device": "gpu-0",
                             "shareID": "0f0e0d0c-0b0a-4908-8706-050403020100"},
                            {"request": "any/big", "driver": "gpu.example.com", "pool": "node-1",
                             "device": "gpu-1"}],
                "config": [{"source": "FromClaim", "requests": ["gpu"],
                            "opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}],
            },
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]},
        },
        "reservedFor": [{"resource": "pods", "name": "p", "uid": "u-1"}],
        "devices": [{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-1",
                     "conditions": [{"type": "Ready", "status": "True", "reason": "Ok",
                                     "lastTransitionTime": "2025-01-01T00:00:00Z"}],
                     "data": {"x": 1},
                     "networkData": {"interfaceName": "eth1", "ips": ["10.0.0.1/24"]}}],
    },
}

TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "tmpl", "namespace": "ns"},
    "spec": {"metadata": {"labels": {"app": "x"}, "annotations": {"example.com/a": "b"}},
             "spec": {"devices": {"requests": [
                 {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}},
}

CLASS = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
    "metadata": {"name": "gpu.example.com"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
             "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"a": "b"}}}],
             "extendedResourceName": "example.com/gpu"},
}


def slice_(**spec: Any) -> dict:
    base = {"driver": "gpu.example.com",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "node-1",
            "devices": [{"name": "gpu-0",
                         "attributes": {"model": {"string": "A100"},
                                        "dra.example.com/index": {"int": 0},
                                        "driverVersion": {"version": "1.0.0-rc.1+build.5"},
                                        "healthy": {"bool": True}},
                         "capacity": {"memory": {"value": "80Gi"}}}]}
    base.update(spec)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": "node-1-gpu"}, "spec": base}


SLICE = slice_()

SLICE_FULL = slice_(devices=[
    {"name": "gpu-0", "allowMultipleAllocations": True,
     "attributes": {"model": {"string": "A100"}, "pcie": {"strings": ["a", "b"]}},
     "capacity": {"memory": {"value": "80Gi", "requestPolicy": {
         "default": "1Gi", "validRange": {"min": "1Gi", "max": "80Gi", "step": "1Gi"}}},
         "cores": {"value": "8", "requestPolicy": {"default": "2", "validValues": ["1", "2", "4"]}}},
     "taints": [{"key": "example.com/maintenance", "value": "true", "effect": "NoSchedule"}],
     "consumesCounters": [{"counterSet": "gpu-0-counters", "counters": {"memory": {"value": "1"}}}],
     "bindsToNode": True, "bindingConditions": ["example.com/ready"],
     "bindingFailureConditions": ["example.com/failed"]},
])

COUNTER_SLICE = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "counters"},
    "spec": {"driver": "gpu.example.com",
             "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 2},
             "nodeName": "node-1",
             "sharedCounters": [{"name": "gpu-0-counters", "counters": {"memory": {"value": "80Gi"}}}]},
}

PER_DEVICE_SLICE = slice_(nodeName=DELETE, perDeviceNodeSelection=True, devices=[
    {"name": "gpu-0", "nodeName": "node-1"},
    {"name": "gpu-1", "allNodes": True},
    {"name": "gpu-2", "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "example.com/rack", "operator": "In", "values": ["r1"]}]}]}},
])
PER_DEVICE_SLICE["spec"].pop("nodeName")

TAINT_RULE = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "rule"},
    "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
             "taint": {"key": "example.com/unhealthy", "value": "true", "effect": "NoExecute"}},
}

POD = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod", "namespace": "ns"},
    "spec": {
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "tmpl"},
                           {"name": "shared", "resourceClaimName": "claim"}],
        "containers": [{"name": "ctr", "image": "busybox",
                        "resources": {"claims": [{"name": "gpu"},
                                                 {"name": "shared", "request": "gpu"}]}}],
        "initContainers": [{"name": "init", "image": "busybox",
                            "resources": {"claims": [{"name": "gpu"}]}}],
    },
    "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "pod-gpu-abcde"}]},
}


def deployment(pod_spec: dict, kind: str = "Deployment") -> dict:
    if kind == "CronJob":
        return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj", "namespace": "ns"},
                "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {
                    "spec": pod_spec}}}}}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "d", "namespace": "ns"},
            "spec": {"template": {"metadata": {"labels": {"a": "b"}}, "spec": pod_spec}}}


WORKLOAD = {
    "apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "Workload",
    "metadata": {"name": "wl", "namespace": "ns"},
    "spec": {"podGroupTemplates": [
        {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}},
         "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
         "resourceClaims": [{"name": "shared", "resourceClaimTemplateName": "tmpl"}]}]},
}

WORKLOAD_135 = {
    "apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
    "metadata": {"name": "wl", "namespace": "ns"},
    "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 2}}}]},
}

POD_GROUP = {
    "apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
    "metadata": {"name": "pg", "namespace": "ns"},
    "spec": {"schedulingPolicy": {"basic": {}}, "priority": 10, "priorityClassName": "high",
             "resourceClaims": [{"name": "shared", "resourceClaimName": "claim"}]},
    "status": {"resourceClaimStatuses": [{"name": "shared", "resourceClaimName": "claim"}]},
}

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}
