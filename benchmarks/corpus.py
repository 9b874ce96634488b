"""A validation corpus: N mixed DRA manifests (default 10,000) in files of 100 documents.

The mix is what a cluster's DRA manifests look like: ResourceSlices published by drivers
(node-local GPUs, NICs, partitionable GPUs), DeviceClasses with CEL selectors and config,
ResourceClaims and ResourceClaimTemplates (exactly / count / All / firstAvailable, selectors,
matchAttribute constraints, opaque config), Pods and Deployments that use them, Nodes,
Namespaces and DeviceTaintRules, mostly resource.k8s.io/v1 with some v1beta2 and v1beta1.
About 5% of the documents carry one deliberate defect (a bad name, a CEL syntax error, a
malformed quantity, a missing required field, a count of 0, a duplicate request name), so both
validators have something to report. Deterministic for a given size (seeded).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from benchmarks.scenarios import Scenario, _done, _mkdir

DOCS_PER_FILE = 100
DRIVERS = ("gpu.example.com", "nic.example.com", "tpu.example.com", "fpga.example.com")
NAMESPACES = 50

# kind -> weight per 100 documents
MIX = (("ResourceSlice", 18), ("ResourceClaim", 18), ("ResourceClaimTemplate", 14), ("Pod", 24),
       ("Deployment", 6), ("DeviceClass", 8), ("DeviceTaintRule", 3), ("Node", 7), ("Namespace", 2))
DEFECT_RATE = 0.05


def _selector(rnd: random.Random, driver: str) -> str:
    choice = rnd.randrange(6)
    if choice == 0:
        return f'device.attributes["{driver}"].index == {rnd.randrange(8)}'
    if choice == 1:
        return (f'device.capacity["{driver}"].memory.compareTo(quantity("{rnd.choice((10, 20, 40, 80))}Gi"))'
                " >= 0")
    if choice == 2:
        return f'device.attributes["{driver}"].model == "{rnd.choice(("A100", "H100", "L4", "T4"))}"'
    if choice == 3:
        return (f'device.attributes["{driver}"].driverVersion.isGreaterThan(semver("1.{rnd.randrange(5)}.0"))')
    if choice == 4:
        return f'"uuid" in device.attributes["{driver}"] && device.driver == "{driver}"'
    return f'device.attributes["{driver}"].numa in [0, {rnd.randrange(1, 4)}]'


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + line + "\n" if line else "\n" for line in text.splitlines())


class _Corpus:
    def __init__(self, size: int, seed: int):
        self.rnd = random.Random(seed)
        self.size = size
        self.counter = 0
        self.classes: list[str] = []
        self.templates: dict[str, list[str]] = {}

    def name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter}"

    def ns(self) -> str:
        return f"team-{self.rnd.randrange(NAMESPACES)}"

    def api(self, kinds_v1beta: bool = True) -> str:
        r = self.rnd.random()
        if kinds_v1beta and r < 0.05:
            return "resource.k8s.io/v1beta2"
        if kinds_v1beta and r < 0.07:
            return "resource.k8s.io/v1beta1"
        return "resource.k8s.io/v1"

    # ------------------------------------------------------------------ kinds -----------------
    def device_class(self) -> str:
        name = self.name(self.rnd.choice(DRIVERS).split(".")[0] + "-class")
        driver = self.rnd.choice(DRIVERS)
        self.classes.append(name)
        config = ""
        if self.rnd.random() < 0.3:
            config = f"""  config:
  - opaque:
      driver: {driver}
      parameters:
        apiVersion: {driver}/v1
        kind: DeviceConfig
        sharing:
          strategy: TimeSlicing
"""
        return f"""apiVersion: {self.api()}
kind: DeviceClass
metadata:
  name: {name}
spec:
  selectors:
  - cel:
      expression: 'device.driver == "{driver}"'
  - cel:
      expression: '{_selector(self.rnd, driver)}'
{config}"""

    def slice_(self) -> str:
        node = f"node-{self.rnd.randrange(2000)}"
        driver = self.rnd.choice(DRIVERS)
        name = self.name(f"{node}-{driver.split('.')[0]}")
        api = self.api()
        basic = api == "resource.k8s.io/v1beta1"
        devices = []
        for k in range(self.rnd.choice((2, 4, 8))):
            body = f"""attributes:
  index:
    int: {k}
  model:
    string: {self.rnd.choice(("A100", "H100", "L4"))}
  uuid:
    string: {driver.split('.')[0]}-{self.counter}-{k}
  driverVersion:
    version: 1.{self.rnd.randrange(5)}.0
  resource.kubernetes.io/pcieRoot:
    string: pci0000:{k:02x}
capacity:
  memory:
    value: {self.rnd.choice((16, 40, 80))}Gi
"""
            if basic:
                devices.append(f"- name: dev-{k}\n  basic:\n" + _indent(body, 4))
            else:
                devices.append(f"- name: dev-{k}\n" + _indent(body, 2))
        return f"""apiVersion: {api}
kind: ResourceSlice
metadata:
  name: {name}
spec:
  driver: {driver}
  nodeName: {node}
  pool:
    name: {node}
    generation: {self.rnd.randrange(1, 5)}
    resourceSliceCount: 1
  devices:
{_indent(''.join(devices), 2)}"""

    def _requests(self, api: str) -> str:
        cls = self.rnd.choice(self.classes) if self.classes else "gpu-class-0"
        driver = self.rnd.choice(DRIVERS)
        shape = self.rnd.randrange(5)
        if shape == 0 and api != "resource.k8s.io/v1beta1":
            return f"""- name: accel
  firstAvailable:
  - name: big
    deviceClassName: {cls}
    selectors:
    - cel:
        expression: '{_selector(self.rnd, driver)}'
  - name: small
    deviceClassName: {cls}
    count: 2
"""
        body = f"""deviceClassName: {cls}
allocationMode: {"All" if shape == 1 else "ExactCount"}
""" + ("" if shape == 1 else f"count: {self.rnd.randrange(1, 3)}\n") + f"""selectors:
- cel:
    expression: '{_selector(self.rnd, driver)}'
"""
        if api == "resource.k8s.io/v1beta1":
            return "- name: gpu\n" + _indent(body, 2)
        return "- name: gpu\n  exactly:\n" + _indent(body, 4)

    def _claim_spec(self, api: str) -> str:
        out = "devices:\n  requests:\n" + _indent(self._requests(api), 2)
        if self.rnd.random() < 0.3:
            out += f"""  constraints:
  - matchAttribute: resource.kubernetes.io/pcieRoot
  config:
  - requests: []
    opaque:
      driver: {self.rnd.choice(DRIVERS)}
      parameters:
        kind: Config
        replicas: {self.rnd.randrange(1, 4)}
"""
        return out

    def claim(self) -> str:
        api = self.api()
        return f"""apiVersion: {api}
kind: ResourceClaim
metadata:
  name: {self.name("claim")}
  namespace: {self.ns()}
spec:
{_indent(self._claim_spec(api), 2)}"""

    def template(self) -> str:
        api = self.api()
        ns, name = self.ns(), self.name("tmpl")
        self.templates.setdefault(ns, []).append(name)
        return f"""apiVersion: {api}
kind: ResourceClaimTemplate
metadata:
  name: {name}
  namespace: {ns}
spec:
  metadata:
    labels:
      app: bench
  spec:
{_indent(self._claim_spec(api), 4)}"""

    def _pod_spec(self, ns: str) -> str:
        templates = self.templates.get(ns)
        claims = ""
        if templates:
            claims = f"""resourceClaims:
- name: accel
  resourceClaimTemplateName: {self.rnd.choice(templates)}
"""
        return f"""containers:
- name: main
  image: registry.example.com/trainer:{self.rnd.randrange(1, 9)}.0
  command: ["python", "train.py"]
  env:
  - name: WORLD_SIZE
    value: "{self.rnd.randrange(1, 9)}"
  resources:
    requests:
      cpu: "{self.rnd.randrange(1, 8)}"
      memory: {self.rnd.choice((1, 2, 4, 8))}Gi
""" + ("""    claims:
    - name: accel
""" if templates else "") + claims + """tolerations:
- key: nvidia.com/gpu
  operator: Exists
  effect: NoSchedule
nodeSelector:
  kubernetes.io/os: linux
"""

    def pod(self) -> str:
        ns = self.ns()
        return f"""apiVersion: v1
kind: Pod
metadata:
  name: {self.name("worker")}
  namespace: {ns}
  labels:
    app: bench
spec:
{_indent(self._pod_spec(ns), 2)}"""

    def deployment(self) -> str:
        ns, name = self.ns(), self.name("inference")
        return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: {ns}
spec:
  replicas: {self.rnd.randrange(1, 4)}
  selector:
    matchLabels:
      app: {name}
  template:
    metadata:
      labels:
        app: {name}
    spec:
{_indent(self._pod_spec(ns), 6)}"""

    def taint_rule(self) -> str:
        return f"""apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata:
  name: {self.name("maintenance")}
spec:
  deviceSelector:
    driver: {self.rnd.choice(DRIVERS)}
    pool: node-{self.rnd.randrange(2000)}
  taint:
    key: example.com/maintenance
    value: planned
    effect: {self.rnd.choice(("NoSchedule", "NoExecute", "None"))}
"""

    def node(self) -> str:
        name = self.name("node")
        return f"""apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels:
    kubernetes.io/hostname: {name}
    topology.kubernetes.io/zone: zone-{self.rnd.randrange(3)}
spec:
  taints:
  - key: nvidia.com/gpu
    value: present
    effect: NoSchedule
status:
  allocatable:
    cpu: "64"
    memory: 512Gi
    pods: "110"
"""

    def namespace(self) -> str:
        return f"""apiVersion: v1
kind: Namespace
metadata:
  name: {self.name("ns")}
  labels:
    resource.kubernetes.io/admin-access: "{self.rnd.choice(("true", "false"))}"
"""

    # ------------------------------------------------------------------ defects ---------------
    def defect(self, doc: str) -> str:
        """One deliberate mistake a user makes, applied to a rendered document."""
        options = [lambda d: d.replace("\n  name: ", "\n  name: Bad_Name.", 1)]  # not a DNS subdomain
        if "expression: '" in doc:   # CEL syntax error
            options.append(lambda d: d.replace("expression: '", "expression: '(( ", 1))
        if "Gi\n" in doc:           # malformed quantity
            options.append(lambda d: d.replace("Gi\n", "GiB\n", 1))
        if "deviceClassName: " in doc:   # required field misspelt
            options.append(lambda d: d.replace("deviceClassName: ", "deviceClass: ", 1))
        if "count: " in doc:
            options.append(lambda d: re.sub(r"count: \d+", "count: 0", d, count=1))
        if "\nspec:\n" in doc:     # wrong type where an object is required
            options.append(lambda d: d.replace("\nspec:\n", "\nspec: enabled\nunused:\n", 1))
        return self.rnd.choice(options)(doc)

    def documents(self):
        kinds = [k for k, w in MIX for _ in range(w)]
        makers = {"ResourceSlice": self.slice_, "ResourceClaim": self.claim,
                  "ResourceClaimTemplate": self.template, "Pod": self.pod,
                  "Deployment": self.deployment, "DeviceClass": self.device_class,
                  "DeviceTaintRule": self.taint_rule, "Node": self.node, "Namespace": self.namespace}
        for i in range(self.size):
            # Classes and templates first in every block of 100, so references resolve.
            kind = sorted(kinds, key=lambda k: k not in ("DeviceClass", "ResourceClaimTemplate"))[i % 100] \
                if i < 100 else self.rnd.choice(kinds)
            doc = makers[kind]()
            if self.rnd.random() < DEFECT_RATE:
                doc = self.defect(doc)
            yield doc


def validation_corpus(out: Path, size: int = 10_000, seed: int = 9) -> Scenario:
    name = f"validation_{size}docs"
    d = _mkdir(out / name)
    corpus = _Corpus(size, seed)
    batch: list[str] = []
    files = 0

    def flush():
        nonlocal files, batch
        if batch:
            (d / f"corpus-{files:04d}.yaml").write_text("---\n".join(batch), encoding="utf-8")
            files += 1
            batch = []

    for doc in corpus.documents():
        batch.append(doc)
        if len(batch) == DOCS_PER_FILE:
            flush()
    flush()
    return _done(Scenario(name, "validate", f"{size} mixed DRA manifests in {files} files "
                          f"(~{int(DEFECT_RATE * 100)}% with one defect)", str(d), documents=size))
