"""`dractl capacity`: pool status, --fit equal to what `allocate` schedules with that many copies
in total plus one, --add-nodes/--like, --need, and the HTML picture in a real browser."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
import yaml
from browser_helpers import browser_dom
from cli_helpers import run

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

# (inventory, example file): pods with one GPU, MIG partitions with firstAvailable and shared
# counters, a NIC-aligned GPU pair (matchAttribute across drivers), shareable partitions with
# consumable capacity, exclusive CPUs, all TPU chips of a node, SR-IOV VFs of one PF, and a
# firstAvailable across two drivers; and for the two built-ins without an example of that kind,
# whole NVIDIA GPUs and exclusive CPUs.
SHAPES = [
    ("example-gpu", "gpu-pod.yaml"),
    ("nvidia-mig", "mig.yaml"),
    ("mixed", "gpu-nic-aligned.yaml"),
    ("example-gpu-partitioned", "gpu-pair.yaml"),
    ("tpu", "tpu-pod.yaml"),
    ("sriov-nic", "sriov-vfs.yaml"),
    ("intel-gpu", "intel-accelerator.yaml"),
    ("nvidia-gpu", "../tests/cli/data/fit-nvidia-gpu.yaml"),   # one full GPU per pod
    ("cpu", "../tests/cli/data/fit-cpu.yaml"),                 # 16 exclusive CPUs per pod (consumable capacity)
]


def _fit(inventory: str, target: Path, *extra: str) -> dict:
    r = run("capacity", "-i", f"builtin:{inventory}", "--fit", str(target), "-o", "json", *extra)
    assert r.code == 0, r.err
    return json.loads(r.out)


def _copies(target: Path, count: int, tmp_path: Path) -> Path:
    """The target file with its pod maker run `count` times: a controller's replicas set to
    count, or the Pod and count - 1 copies named as --fit names its replicas."""
    docs = [d for d in yaml.safe_load_all(target.read_text()) if d]
    out = []
    for doc in docs:
        if doc["kind"] == "Pod":
            out.append(doc)
            for i in range(1, count):
                pod = copy.deepcopy(doc)
                pod["metadata"]["name"] = f"{doc['metadata']['name']}-fit-{i}"
                out.append(pod)
        elif doc["kind"] in ("Deployment", "ReplicaSet", "StatefulSet"):
            doc["spec"]["replicas"] = count
            out.append(doc)
        else:
            out.append(doc)
    path = tmp_path / f"copies-{count}.yaml"
    path.write_text(yaml.safe_dump_all(out, sort_keys=False))
    return path


@pytest.mark.parametrize("inventory, example", SHAPES, ids=[s[1] for s in SHAPES])
def test_fit_equals_what_allocate_schedules(inventory, example, tmp_path):
    fit = _fit(inventory, EXAMPLES / example)["fit"]
    n, total = fit["replicas"], fit["total"]
    assert not fit["bounded"] and total == fit["declaredPlaced"] + n
    plan = run("allocate", "-i", f"builtin:{inventory}", str(_copies(EXAMPLES / example, total + 1, tmp_path)), "-o", "json")
    doc = json.loads(plan.out)
    statuses = [p["status"] for p in doc["pods"]]
    assert statuses.count("Scheduled") == total, (example, total, statuses)
    assert len(statuses) == total + 1 and statuses[-1] != "Scheduled"
    # The replicas' placements are the dry run's: same nodes, same devices, in the same order.
    placed = [(p["node"], sorted(d for c in doc["claims"] if c["name"] in {x["resourceClaimName"] for x in p["claims"]}
                                 and c["allocation"] for d in
                                 [f"{r['driver']}/{r['pool']}/{r['device']}" for r in c["allocation"]["devices"]["results"]]))
              for p in doc["pods"] if p["status"] == "Scheduled"][total - n:]
    assert placed == [(p["node"], sorted(p["devices"])) for p in fit["placements"]]
    assert fit["stoppedBy"]["status"] == "Unschedulable" and fit["stoppedBy"]["message"]


def test_pool_status_after_a_workload():
    r = run("capacity", "-i", "builtin:nvidia-mig", str(EXAMPLES / "mig.yaml"), "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    [pool] = doc["pools"]
    assert pool["driver"] == "gpu.nvidia.com" and pool["totalDevices"] == 52
    assert pool["allocatedDevices"] == 3 and pool["availableDevices"] == 49
    # Without a partitionTypeAttribute the pool reports its counter sets (dractl's own view).
    assert {cs["name"] for cs in pool["counterSets"]} == {"gpu-0-counter-set", "gpu-1-counter-set"}
    text = run("capacity", "-i", "builtin:nvidia-mig", str(EXAMPLES / "mig.yaml")).out
    assert "pool gpu.nvidia.com/a100-mig-node-1" in text and "counter set gpu-0-counter-set used:" in text
    assert text.rstrip().endswith("1 pool(s), 52 device(s): 3 allocated, 49 available, 0 unavailable")


def test_filters():
    everything = json.loads(run("capacity", "-i", "builtin:mixed", "-o", "json").out)
    assert len({p["driver"] for p in everything["pools"]}) > 1
    one = json.loads(run("capacity", "-i", "builtin:mixed", "--driver", "gpu.nvidia.com", "-o", "json").out)
    assert one["pools"] and {p["driver"] for p in one["pools"]} == {"gpu.nvidia.com"}
    node = everything["pools"][0]["nodeName"]
    by_node = json.loads(run("capacity", "-i", "builtin:mixed", "--node", node, "-o", "json").out)
    assert {p.get("nodeName") for p in by_node["pools"]} == {node}


def test_add_nodes_and_need():
    base = _fit("example-gpu", EXAMPLES / "gpu-pod.yaml")["fit"]["total"]
    like = "dra-example-driver-cluster-worker"
    more = _fit("example-gpu", EXAMPLES / "gpu-pod.yaml", "--add-nodes", "2", "--like", like)
    assert more["fit"]["total"] == base + 2 * 8 and more["fit"]["addedNodes"] == 2
    added = [n["name"] for n in more["nodes"] if n["name"].startswith("template-node-for-")]
    assert added == [f"template-node-for-{like}-1", f"template-node-for-{like}-2"]
    need = _fit("example-gpu", EXAMPLES / "gpu-pod.yaml", "--like", like, "--need", str(base + 17))["fit"]["need"]
    assert need == {"replicas": base + 17, "nodes": 3}
    bad = run("capacity", "-i", "builtin:example-gpu", "--fit", str(EXAMPLES / "gpu-pod.yaml"),
              "--add-nodes", "1", "--like", "no-such-node")
    assert bad.code == 2 and "no such node" in bad.err


def test_gang_fits_or_not(tmp_path):
    manifests = tmp_path / "gang.yaml"
    manifests.write_text("""
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: trainers, namespace: default}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: default}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: train, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: t}}
  template:
    metadata: {labels: {app: t}}
    spec:
      schedulingGroup: {podGroupName: trainers}
      resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]
      containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
""")
    r = run("capacity", "-i", "builtin:example-gpu", "--kube-version", "1.36", "--feature-gates",
            "GenericWorkload=true,GangScheduling=true", "--fit", "train", str(manifests), "-o", "json")
    assert r.code == 0, r.err
    fit = json.loads(r.out)["fit"]
    assert fit["gang"] is True and fit["replicas"] == 1 and len(fit["placements"]) == 2


def test_html_picture_in_headless_chromium(tmp_path):
    page = tmp_path / "capacity.html"
    r = run("capacity", "-i", "builtin:nvidia-mig", str(EXAMPLES / "mig.yaml"), "-o", "html")
    assert r.code == 0, r.err
    page.write_text(r.out)
    assert '<body data-nodes="1" data-devices="52">' in r.out
    dom = browser_dom(page, tmp_path)
    assert re.search(r'<p id="selfcheck"[^>]*>ok</p>', dom), dom[-1500:]
    html = run("allocate", "-i", "builtin:example-gpu", str(EXAMPLES / "gpu-pod.yaml"), "-o", "html")
    assert html.code == 0 and 'data-nodes="2" data-devices="16"' in html.out
