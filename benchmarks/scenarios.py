"""Generators for scheduler_perf-shaped DRA scenarios, written as ordinary manifests.

The shapes follow kubernetes/test/integration/scheduler_perf (dra.go and dra/templates/*.yaml):

* nodes `scheduler-perf-dra-<i>` labelled `node-with-dra: "true"` (the label the partitionable
  templates select on), capacity pods 110 / cpu 4 / memory 32Gi;
* the `createResourceDriver` op: one ResourceSlice per node, named after the node, pool = node,
  driver `test-driver.cdi.k8s.io`, devices `instance-<k>` with attributes model=A100,
  family=GPU, driverVersion=1.2.3, dra.example.com/numa=<k> and capacity memory=1Gi;
  maxClaimsPerNode (devices per node) is 10 in the 5000pods_500nodes workload;
* DeviceClass `test-class` (device.driver == "test-driver.cdi.k8s.io");
* ResourceClaimTemplate `test-claim-template` with one request `req-0` for one device of
  test-class, created in the namespaces `init` and `test` (the workload's initPods/measurePods);
* pods `test-dra-<i>` running pause with one pod claim `resource` from that template.

Every scenario is a directory: `cluster.yaml` (what already exists: Nodes, DeviceClasses,
ResourceSlices, DeviceTaintRules, allocated ResourceClaims), `workload.yaml` (templates and
pods, each pod its own YAML document, or a Deployment) and `scenario.txt` (its parameters, as
JSON). `dractl allocate <dir> -o json` runs it like a user would.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

DRIVER = "test-driver.cdi.k8s.io"
NODE_PREFIX = "scheduler-perf-dra-"
NAMESPACES = ("init", "test")  # scheduler_perf: initPods go to "init", measurePods to "test"
IN_CLUSTER_PODS_PER_SECOND = 50.0  # SchedulingWithResourceClaimTemplate/5000pods_500nodes, real control plane


@dataclass
class Scenario:
    name: str
    kind: str                      # "allocate" or "validate"
    description: str
    directory: str = ""
    nodes: int = 0
    pods: int = 0                  # pods dractl should schedule (expanded from controllers too)
    documents: int = 0
    args: list[str] = field(default_factory=list)   # extra dractl arguments
    expect_all_scheduled: bool = True
    upstream: str = ""             # the scheduler_perf workload it is shaped like
    note: str = ""

    def write_meta(self) -> None:
        # Not *.json: dractl reads every .yaml/.yml/.json file of the directory as a manifest.
        Path(self.directory, "scenario.txt").write_text(json.dumps(asdict(self), indent=2) + "\n")


def node_name(i: int) -> str:
    return f"{NODE_PREFIX}{i}"


# ---------------------------------------------------------------------- document templates ------
def node_doc(i: int) -> str:
    name = node_name(i)
    return f"""apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels:
    kubernetes.io/hostname: {name}
    node-with-dra: "true"
spec: {{}}
status:
  capacity:
    pods: "110"
    cpu: "4"
    memory: 32Gi
  allocatable:
    pods: "110"
    cpu: "4"
    memory: 32Gi
"""


def device_class_doc(name: str = "test-class", expression: str = f'device.driver == "{DRIVER}"',
                     extended_resource_name: str | None = None) -> str:
    extra = f"\n  extendedResourceName: {extended_resource_name}" if extended_resource_name else ""
    return f"""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: {name}
spec:
  selectors:
  - cel:
      expression: '{expression}'{extra}
"""


def node_slice_doc(i: int, devices: int) -> str:
    """dra.go resourceSlice(driverName, nodeName, capacity)."""
    name = node_name(i)
    out = [f"""apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: {name}
spec:
  driver: {DRIVER}
  nodeName: {name}
  pool:
    name: {name}
    generation: 1
    resourceSliceCount: 1
  devices:
"""]
    for k in range(devices):
        out.append(f"""  - name: instance-{k}
    attributes:
      model:
        string: A100
      family:
        string: GPU
      driverVersion:
        version: 1.2.3
      dra.example.com/numa:
        int: {k}
    capacity:
      memory:
        value: 1Gi
""")
    return "".join(out)


def claim_template_doc(namespace: str, requests: str | None = None,
                       name: str = "test-claim-template") -> str:
    requests = requests or """      - name: req-0
        exactly:
          deviceClassName: test-class
"""
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: {name}
  namespace: {namespace}
spec:
  spec:
    devices:
      requests:
{requests}"""


def pod_doc(i: int, namespace: str, template: str = "test-claim-template") -> str:
    """templates/pod-with-claim-template.yaml with a fixed name instead of generateName."""
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: test-dra-{i}
  namespace: {namespace}
spec:
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    resources:
      claims:
      - name: resource
  resourceClaims:
  - name: resource
    resourceClaimTemplateName: {template}
"""


def deployment_doc(namespace: str, replicas: int) -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: test-dra
  namespace: {namespace}
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: test-dra
  template:
    metadata:
      labels:
        app: test-dra
    spec:
      containers:
      - image: registry.k8s.io/pause:3.10.1
        name: pause
        resources:
          claims:
          - name: resource
      resourceClaims:
      - name: resource
        resourceClaimTemplateName: test-claim-template
"""


def allocated_claim_doc(i: int, node: str, device: str, namespace: str = "init") -> str:
    """templates/resourceclaim.yaml after the allocResourceClaims op: allocated, not reserved."""
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: test-claim-{i}
  namespace: {namespace}
spec:
  devices:
    requests:
    - name: req-0
      exactly:
        deviceClassName: test-class
status:
  allocation:
    devices:
      results:
      - request: req-0
        driver: {DRIVER}
        pool: {node}
        device: {device}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - key: metadata.name
          operator: In
          values:
          - {node}
"""


def partitionable_counter_slice_doc(i: int) -> str:
    """templates/resourceslice-partitionable-countersets.yaml, .Index = i."""
    return f"""kind: ResourceSlice
apiVersion: resource.k8s.io/v1
metadata:
  name: resourceslice-countersets-{i}
spec:
  pool:
    name: resourceslice-{i}
    generation: 1
    resourceSliceCount: 2
  driver: {DRIVER}
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions:
      - key: node-with-dra
        operator: In
        values:
        - "true"
  sharedCounters:
  - name: counter-set
    counters:
      counter1:
        value: "1"
      counter2:
        value: "1"
      counter3:
        value: "1"
      counter4:
        value: "1"
"""


def partitionable_device_slice_doc(i: int) -> str:
    """templates/resourceslice-partitionable-devices.yaml, .Index = i."""
    devices = [("device-2-counters-1", "true", "2", ("counter1", "counter2")),
               ("device-2-counters-2", "false", "2", ("counter3", "counter4")),
               ("device-1-counter-1", "false", "1", ("counter1",)),
               ("device-1-counter-2", "false", "1", ("counter2",)),
               ("device-1-counter-3", "false", "1", ("counter3",)),
               ("device-1-counter-4", "false", "1", ("counter4",))]
    out = [f"""kind: ResourceSlice
apiVersion: resource.k8s.io/v1
metadata:
  name: resourceslice-devices-{i}
spec:
  pool:
    name: resourceslice-{i}
    generation: 1
    resourceSliceCount: 2
  driver: {DRIVER}
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions:
      - key: node-with-dra
        operator: In
        values:
        - "true"
  devices:
"""]
    for name, preallocate, counters, consumed in devices:
        used = "".join(f"""        {c}:
          value: "1"
""" for c in consumed)
        out.append(f"""  - name: {name}
    attributes:
      preallocate:
        bool: {preallocate}
      dra.example.com/slice:
        int: {i}
    capacity:
      counters:
        value: "{counters}"
    consumesCounters:
    - counterSet: counter-set
      counters:
{used}""")
    return "".join(out)


def device_taint_rule_doc() -> str:
    return f"""apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata:
  name: taint-all-devices
spec:
  deviceSelector:
    driver: {DRIVER}
  taint:
    key: example.com/taint
    value: tainted
    effect: NoSchedule
"""


def extended_resource_pod_doc(i: int, namespace: str) -> str:
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: test-dra-{i}
  namespace: {namespace}
spec:
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    resources:
      requests:
        example.com/gpu: "1"
      limits:
        example.com/gpu: "1"
"""


# ---------------------------------------------------------------------- writing -----------------
def _write(path: Path, docs) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as fh:
        for doc in docs:
            if count:
                fh.write("---\n")
            fh.write(doc)
            count += 1
    return count


def _split(pods: int) -> list[tuple[str, range]]:
    """initPods then measurePods: the first half in namespace init, the rest in test."""
    half = pods // 2
    return [(NAMESPACES[0], range(0, half)), (NAMESPACES[1], range(half, pods))]


def _cluster(directory: Path, nodes: int, devices: int, extra=()) -> int:
    docs = [node_doc(i) for i in range(nodes)]
    docs.append(device_class_doc())
    docs.extend(extra)
    docs.extend(node_slice_doc(i, devices) for i in range(nodes))
    return _write(directory / "cluster.yaml", docs)


def _pods(namespaces: list[tuple[str, range]], template_requests: str | None = None,
          pod=pod_doc):
    for ns, _ in namespaces:
        yield claim_template_doc(ns, template_requests)
    for ns, indices in namespaces:
        for i in indices:
            yield pod(i, ns)


def claim_template(out: Path, pods: int, nodes: int | None = None, devices: int = 10,
                   deployment: bool = False, name: str | None = None) -> Scenario:
    """SchedulingWithResourceClaimTemplate: `pods` pods, pods/devices nodes, cluster fills up."""
    nodes = nodes if nodes is not None else -(-pods // devices)
    name = name or (f"claim_template{'_deployment' if deployment else ''}_{pods}pods_{nodes}nodes")
    d = _mkdir(out / name)
    docs = _cluster(d, nodes, devices)
    split = _split(pods)
    if deployment:
        workload = [claim_template_doc(ns) for ns, _ in split]
        workload += [deployment_doc(ns, len(r)) for ns, r in split]
    else:
        workload = list(_pods(split))
    docs += _write(d / "workload.yaml", workload)
    return _done(Scenario(name, "allocate", f"{pods} pods, each one claim from a template for 1 of "
                          f"{devices} devices per node, {nodes} nodes"
                          + (" (2 Deployments)" if deployment else " (Pods as separate documents)"),
                          str(d), nodes, pods, docs,
                          upstream=f"SchedulingWithResourceClaimTemplate/{pods}pods_{nodes}nodes"))


def overcommitted(out: Path, pods: int, nodes: int, devices: int = 10) -> Scenario:
    """dractl's own shape, not scheduler_perf's: twice as many pods as devices. Half the pods
    stay Pending, each with kube-scheduler's summary and dractl's per-request explanation --
    the run a user gets from an over-committed cluster."""
    name = f"overcommitted_{pods}pods_{nodes}nodes"
    d = _mkdir(out / name)
    docs = _cluster(d, nodes, devices)
    docs += _write(d / "workload.yaml", list(_pods(_split(pods))))
    return _done(Scenario(name, "allocate", f"{pods} pods for {nodes * devices} devices: "
                          f"{pods - nodes * devices} stay unschedulable, each explained",
                          str(d), nodes, pods, docs, expect_all_scheduled=False,
                          note=f"{nodes * devices} of {pods} pods fit; the others are explained"))


def steady_state(out: Path, allocated: int, nodes: int = 500, devices: int = 10, pods: int = 10,
                 label: str | None = None, seed: int = 9) -> Scenario:
    """SteadyStateClusterResourceClaimTemplate: `allocated` claims already hold devices spread at
    random (like allocResourceClaimsOp's shuffled node order), then `pods` more pods."""
    label = label or {0: "empty", nodes * devices // 2: "half"}.get(allocated, f"{allocated}claims")
    name = f"steady_state_{label}_{nodes}nodes"
    d = _mkdir(out / name)
    slots = [(n, k) for n in range(nodes) for k in range(devices)]
    taken = random.Random(seed).sample(slots, allocated)
    claims = [allocated_claim_doc(i, node_name(n), f"instance-{k}") for i, (n, k) in enumerate(taken)]
    docs = _cluster(d, nodes, devices, claims)
    docs += _write(d / "workload.yaml", _pods([("test", range(pods))]))
    return _done(Scenario(name, "allocate", f"{nodes} nodes x {devices} devices, {allocated} "
                          f"allocated claims in the inventory, then {pods} pods", str(d), nodes, pods,
                          docs, upstream=f"SteadyStateClusterResourceClaimTemplate ({label})"))


FIRST_AVAILABLE_REQUESTS = """      - name: req-0
        firstAvailable:
        - name: sub-0
          deviceClassName: test-class-h100
        - name: sub-1
          deviceClassName: test-class
"""


def first_available(out: Path, pods: int, nodes: int | None = None, devices: int = 10) -> Scenario:
    """templates/resourceclaimtemplate-first-available.yaml: the first subrequest cannot be
    satisfied, so every allocation falls back to sub-1. Upstream names a class that does not
    exist (`no-such-class`), which kube-scheduler's PreFilter rejects outright; here sub-0 names
    a class that exists but matches no device (model H100), so the fallback path is exercised."""
    nodes = nodes if nodes is not None else -(-pods // devices)
    name = f"first_available_{pods}pods_{nodes}nodes"
    d = _mkdir(out / name)
    h100 = device_class_doc("test-class-h100", f'device.driver == "{DRIVER}" && '
                            f'device.attributes["{DRIVER}"].model == "H100"')
    docs = _cluster(d, nodes, devices, [h100])
    docs += _write(d / "workload.yaml", _pods(_split(pods), FIRST_AVAILABLE_REQUESTS))
    return _done(Scenario(name, "allocate", f"prioritized list (firstAvailable: H100 class with no "
                          f"devices, then test-class), {pods} pods, {nodes} nodes", str(d), nodes,
                          pods, docs, upstream="resourceclaimtemplate-first-available.yaml",
                          note="DRA Score prefers earlier subrequests; sub-0 matches no device "
                               "anywhere, so the scan stops at the first node offering sub-1"))


def partitionable(out: Path, pools: int, nodes: int | None = None, pods: int | None = None) -> Scenario:
    """resourceslice-partitionable-{countersets,devices}.yaml: per index a pool of two slices
    (shared counters counter1..4 = 1, six devices consuming them), visible on every node through
    nodeSelector node-with-dra=true. Each pool fits two one-device claims (device-2-counters-1
    and -2 use up all four counters), so 2 x pools pods fill the cluster."""
    nodes = nodes if nodes is not None else pools
    pods = pods if pods is not None else 2 * pools
    name = f"partitionable_{pods}pods_{pools}pools"
    d = _mkdir(out / name)
    docs = [node_doc(i) for i in range(nodes)] + [device_class_doc()]
    for i in range(pools):
        docs += [partitionable_counter_slice_doc(i), partitionable_device_slice_doc(i)]
    n = _write(d / "cluster.yaml", docs)
    n += _write(d / "workload.yaml", _pods(_split(pods)))
    return _done(Scenario(name, "allocate", f"partitionable devices with shared counters: {pools} "
                          f"network-attached pools (2 slices each), {nodes} nodes, {pods} pods", str(d),
                          nodes, pods, n, upstream="resourceslice-partitionable-*.yaml"))


TOLERATION_REQUESTS = """      - name: req-0
        exactly:
          deviceClassName: test-class
          tolerations:
          - key: example.com/taint
            operator: Exists
            effect: NoSchedule
"""


def device_taint(out: Path, pods: int, nodes: int | None = None, devices: int = 10) -> Scenario:
    """A DeviceTaintRule taints every device of the driver (NoSchedule); the claim template
    tolerates it, so everything still schedules, through the taint checks."""
    nodes = nodes if nodes is not None else -(-pods // devices)
    name = f"device_taint_{pods}pods_{nodes}nodes"
    d = _mkdir(out / name)
    docs = _cluster(d, nodes, devices, [device_taint_rule_doc()])
    docs += _write(d / "workload.yaml", _pods(_split(pods), TOLERATION_REQUESTS))
    return _done(Scenario(name, "allocate", f"tolerated DeviceTaintRule (NoSchedule on all devices), "
                          f"{pods} pods, {nodes} nodes", str(d), nodes, pods, docs,
                          upstream="DeviceTaintRule + claim tolerations"))


def extended_resource(out: Path, pods: int, nodes: int | None = None, devices: int = 10) -> Scenario:
    """DRAExtendedResource: DeviceClass.spec.extendedResourceName example.com/gpu; pods ask for
    the extended resource in resources.limits, with no resourceClaims. The scheduler would
    create a special claim per pod and allocate one device for it."""
    nodes = nodes if nodes is not None else -(-pods // devices)
    name = f"extended_resource_{pods}pods_{nodes}nodes"
    d = _mkdir(out / name)
    cls = device_class_doc("test-class-extended", extended_resource_name="example.com/gpu")
    docs = _cluster(d, nodes, devices, [cls])
    workload = [extended_resource_pod_doc(i, ns) for ns, r in _split(pods) for i in r]
    docs += _write(d / "workload.yaml", workload)
    return _done(Scenario(name, "allocate", f"extended resource example.com/gpu backed by a DeviceClass, "
                          f"{pods} pods, {nodes} nodes", str(d), nodes, pods, docs,
                          upstream="DRAExtendedResource",
                          note="no resourceClaims in the pods: each allocated claim in the claims "
                               "column is the special extended-resource claim dractl creates"))


# The costliest selector shape the API server accepts: 160,000 inner iterations, estimate
# 962,001 of 1,000,000 (tests/unit/cel/test_cel_at_the_limit.py).
CEL_AT_THE_LIMIT = ('device.driver == "' + DRIVER + '" && lists.range(400).all(i, lists.range(400)'
                    '.all(j, device.driver != ""))')


def cel_at_the_limit(out: Path, pods: int = 1000, nodes: int = 100, devices: int = 10) -> Scenario:
    """dractl's own: the DeviceClass selector is the most expensive one the API server accepts,
    and every device is distinct (a serial attribute), so each of the nodes x devices devices
    is evaluated once: a 1,000-device inventory."""
    name = f"cel_at_the_limit_{nodes * devices}devices"
    d = _mkdir(out / name)
    docs = [node_doc(i) for i in range(nodes)]
    docs.append(device_class_doc(expression=CEL_AT_THE_LIMIT))
    docs.extend(node_slice_doc(i, devices).replace("      dra.example.com/numa:\n        int: ",
                                                   f"      serial:\n        string: n{i}-")
                for i in range(nodes))
    docs = _write(d / "cluster.yaml", docs)
    docs += _write(d / "workload.yaml", _pods(_split(pods)))
    return _done(Scenario(name, "allocate", f"DeviceClass selector at the API server's cost limit "
                          f"(400 x 400 comprehension), {nodes * devices} distinct devices, {pods} pods",
                          str(d), nodes, pods, docs, upstream="dractl's own (issue: CEL at the limit)"))


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.yaml"):
        stale.unlink()
    return path


def _done(s: Scenario) -> Scenario:
    s.write_meta()
    return s


# ---------------------------------------------------------------------- the suites --------------
Builder = Callable[[Path], Scenario]


def scheduling_suite(quick: bool = False, large: bool = False) -> list[tuple[str, Builder]]:
    """(name, builder) in the order the runner reports them."""
    if quick:
        return [
            ("claim_template_1000pods_100nodes", lambda o: claim_template(o, 1000)),
            ("steady_state_full_500nodes", lambda o: steady_state(o, 4990, label="full")),
        ]
    suite = [
        ("claim_template_1000pods_100nodes", lambda o: claim_template(o, 1000)),
        ("claim_template_2000pods_200nodes", lambda o: claim_template(o, 2000)),
        ("claim_template_5000pods_500nodes", lambda o: claim_template(o, 5000)),
        ("claim_template_10000pods_1000nodes", lambda o: claim_template(o, 10000)),
    ]
    if large:
        suite.append(("claim_template_20000pods_2000nodes", lambda o: claim_template(o, 20000)))
    suite += [
        ("claim_template_deployment_5000pods_500nodes", lambda o: claim_template(o, 5000, deployment=True)),
        ("steady_state_empty_500nodes", lambda o: steady_state(o, 0)),
        ("steady_state_half_500nodes", lambda o: steady_state(o, 2500)),
        ("steady_state_full_500nodes", lambda o: steady_state(o, 4990, label="full")),
        ("first_available_1000pods_100nodes", lambda o: first_available(o, 1000)),
        ("partitionable_200pods_100pools", lambda o: partitionable(o, 100)),
        ("device_taint_1000pods_100nodes", lambda o: device_taint(o, 1000)),
        ("extended_resource_1000pods_100nodes", lambda o: extended_resource(o, 1000)),
        ("overcommitted_10000pods_500nodes", lambda o: overcommitted(o, 10000, 500)),
        ("cel_at_the_limit_1000devices", lambda o: cel_at_the_limit(o)),
    ]
    return suite
