"""Manifests of the podgroup-constraints tests (dractl's extension, issue #21)."""

from __future__ import annotations

GATES = "GenericWorkload=true,DRAWorkloadResourceClaims=true"
DOMAIN = "gpu.example.com/nvlinkDomain"

CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
"""


def node(name: str, gpus: int, attribute: str, value) -> str:
    devices = "".join(f"  - name: gpu-{i}\n    attributes:\n      {attribute}: {{string: {value(i)}}}\n"
                      for i in range(gpus))
    return f"""apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
status:
  allocatable: {{cpu: "64", memory: 512Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}-gpus}}
spec:
  driver: gpu.example.com
  nodeName: {name}
  pool: {{name: {name}, generation: 1, resourceSliceCount: 1}}
  devices:
{devices}"""


def template(count: int) -> str:
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: gpus, namespace: default}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {{deviceClassName: gpu.example.com, count: {count}}}
"""


def podgroup(name: str, policy: str, constraints: str) -> str:
    return f"""apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {{name: {name}, namespace: default}}
spec:
  schedulingPolicy:
    {policy}
  resourceClaims:
  - name: gpus
    resourceClaimTemplateName: gpus
{constraints}"""


def match(attribute: str = DOMAIN) -> str:
    return f"    constraints:\n    - matchAttribute: {attribute}\n"


def pods(group: str, n: int) -> str:
    return "---\n".join(f"""apiVersion: v1
kind: Pod
metadata: {{name: {group}-{i}, namespace: default}}
spec:
  schedulingGroup: {{podGroupName: {group}}}
  resourceClaims:
  - {{name: gpus, resourceClaimTemplateName: gpus}}
  containers:
  - name: worker
    image: busybox
    resources: {{claims: [{{name: gpus}}]}}
""" for i in range(n))


def domains(shape) -> list[str]:
    return [node(name, gpus, "nvlinkDomain", lambda i, d=domain: d) for name, gpus, domain in shape]
