"""least-/most-allocated try nodes in usage order and stop at the first feasible one (dractl's
own shortcut); the plan must be exactly the one of scoring every feasible node."""

from __future__ import annotations

import pytest

from dractl.report import plan_json
from dractl.simulate import scheduler

# Nodes with 1-4 devices, some tainted, some labelled; pods with and without node selectors,
# two device models, more pods than devices.
NODES = "".join(f"""---
apiVersion: v1
kind: Node
metadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}, zone: z{i % 3}}}}}
spec: {{taints: {[{"key": "gpu", "effect": "NoSchedule"}] if i == 4 else []}}}
status: {{allocatable: {{cpu: "{2 + i % 3}", memory: 8Gi, pods: "110"}}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: n{i}-gpus}}
spec:
  driver: gpu.example.com
  nodeName: n{i}
  pool: {{name: n{i}, generation: 1, resourceSliceCount: 1}}
  devices:
""" + "".join(f"  - {{name: gpu-{k}, attributes: {{model: {{string: {'big' if (i + k) % 4 == 0 else 'small'}}}}}}}\n"
              for k in range(1 + i % 4))
    for i in range(9)) + """---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
""" + "".join(f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: {name}, namespace: default}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com{selector}
""" for name, selector in (("any", ""), ("big", "\n          selectors:\n          - cel: "
                                                  "{expression: 'device.attributes[\"gpu.example.com\"].model == \"big\"'}")))

PODS = "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: p{i:02d}, namespace: default}}
spec:
  {"nodeSelector: {zone: z" + str(i % 3) + "}" if i % 5 == 0 else "priority: 0"}
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: {"big" if i % 4 == 0 else "any"}}}]
""" for i in range(26))


@pytest.mark.parametrize("order", ["least-allocated", "most-allocated"])
def test_same_plan_as_scoring_every_node(dry_run, monkeypatch, order):
    fast = dry_run(NODES + PODS, inventory=None, node_order=order)
    monkeypatch.setattr(scheduler.Simulation, "SCAN_BY_USAGE", False)
    full = dry_run(NODES + PODS, inventory=None, node_order=order)
    assert plan_json.plan_document(fast, []) == plan_json.plan_document(full, [])
    placed = [p.node for p in fast.pods if p.node]
    assert len(set(placed)) > 3 and len(placed) < len(fast.pods)  # spread, and some do not fit
