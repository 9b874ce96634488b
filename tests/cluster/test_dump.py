"""`dractl dump` prints the kubectl command, or trims its output into an
inventory that the dry run reads the same way as the full dump."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from typer.testing import CliRunner

from dractl.cli.app import app

REPO = Path(__file__).resolve().parents[2]
INVENTORIES = REPO / "tests" / "golden" / "inventories"
WORKLOAD = REPO / "tests" / "golden" / "scenarios" / "40-allocated-claim-as-inventory.yaml"

EXTRA = """\
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: ip-192-168-153-160.ec2.internal
    uid: 7c1e2a4b-0000-4000-8000-000000000001
    resourceVersion: "5"
    labels: {node.kubernetes.io/instance-type: p4d.24xlarge}
    annotations: {node.alpha.kubernetes.io/ttl: "0"}
    managedFields: [{manager: kubelet}]
  spec:
    providerID: aws:///us-east-1a/i-0abc
  status:
    allocatable: {cpu: 95690m, memory: 1102488872Ki, pods: "250"}
    capacity: {cpu: "96"}
    conditions: [{type: Ready, status: "True"}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: pending, namespace: default, uid: 7c1e2a4b-0000-4000-8000-000000000002}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
"""


def kubectl_output() -> str:
    parts = [(INVENTORIES / n).read_text() for n in ("eks-a100-like.yaml", "eks-a100-allocated-claim.yaml")]
    return parts[0] + "---\n" + parts[1] + EXTRA


def test_prints_the_kubectl_command():
    result = CliRunner().invoke(app, ["dump"])
    assert result.exit_code == 0
    command, note, then = result.stdout.splitlines()
    # What the command does on clusters of every release: tests/cluster/test_dump_command.py.
    assert command.startswith('kubectl get "$(kubectl api-resources -o name | grep -x -e nodes ')
    assert command.endswith(' | paste -s -d, -)" -A -o yaml > cluster.yaml')
    assert "are left out of the list, not fatal" in note
    assert then == "# Then: dractl dump cluster.yaml -w inventory.yaml"


def test_trims_kubectl_output_from_stdin():
    result = CliRunner().invoke(app, ["dump", "-"], input=kubectl_output())
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("# Inventory written by `dractl dump` from stdin: 1 DeviceClass, 1 Node, "
                           "1 ResourceClaim, 1 ResourceSlice.\n# Left out: 1 Pod (not read by the "
                           "dry run), 1 ResourceClaim (not allocated).\n")
    objects = list(yaml.safe_load_all(text))
    assert [o["kind"] for o in objects] == ["Node", "DeviceClass", "ResourceSlice", "ResourceClaim"]
    node = objects[0]
    assert node == {"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": "ip-192-168-153-160.ec2.internal",
                                 "labels": {"node.kubernetes.io/instance-type": "p4d.24xlarge"}},
                    "status": {"allocatable": {"cpu": "95690m", "memory": "1102488872Ki",
                                               "pods": "250"}}}
    for obj in objects:
        assert not {"uid", "resourceVersion", "managedFields", "generation"} & set(obj["metadata"])
    claim = objects[3]
    assert claim["metadata"]["name"] == "nccl-test-dra-worker-0-gpu-7xk2p"
    assert claim["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-6"


def test_trimmed_inventory_schedules_like_the_dump(tmp_path):
    full = tmp_path / "cluster.yaml"
    full.write_text(kubectl_output())
    trimmed = tmp_path / "inventory.yaml"
    result = CliRunner().invoke(app, ["dump", str(full), "--write", str(trimmed)])
    assert result.exit_code == 0 and result.stdout == ""

    def placements(inventory: Path):
        run = CliRunner().invoke(app, ["allocate", "--no-config", "-o", "json", "-i", str(inventory),
                                       str(WORKLOAD)])
        report = json.loads(run.stdout)
        # The full dump also holds a Pod (kubectl output of a wider get): compare the workload.
        pods = [(p["status"], p["node"]) for p in report["pods"] if p["name"].startswith("workers")]
        return pods, sorted(r["device"] for c in report["claims"] if c.get("allocation")
                            for r in c["allocation"]["devices"]["results"])

    pods, devices = placements(trimmed)
    full_pods, full_devices = placements(full)
    assert pods == full_pods
    assert [s for s, _ in pods].count("Scheduled") == 7
    assert devices == sorted(f"gpu-{i}" for i in range(8))  # gpu-6 by the inventory claim
    assert full_devices == devices


def dractl(args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
    # The real entry point: it turns usage errors into exit status 2.
    return subprocess.run([sys.executable, "-m", "dractl", *args], input=stdin, text=True,
                          capture_output=True, cwd=REPO, timeout=120)


def test_unparsable_input_is_a_usage_error():
    result = dractl(["dump", "-"], "items: [\n")
    assert result.returncode == 2
    assert "cannot read the kubectl output: <stdin>:2:" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_file_is_a_usage_error(tmp_path):
    result = dractl(["dump", str(tmp_path / "nope.yaml")])
    assert result.returncode == 2 and "no such file or directory" in result.stderr
