"""`dractl dump`'s command line works on any cluster from 1.34 on: kinds a cluster does not serve
(DeviceTaintRules, PodGroups, Workloads on most 1.34-1.37 clusters) are left out, not fatal. Run
by the real kubectl against a fake API server (fake_apiserver.py) that serves what a release
serves, and by bash and sh with a kubectl stub that refuses unknown types as kubectl does. And
`dump -w` drops the bookkeeping that dractl would otherwise report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dractl.pipeline.dump import RESOURCES, kubectl_command
from tests.cluster.fake_apiserver import FakeCluster, Resource, Serving

REPO = Path(__file__).resolve().parents[2]
GOLDEN_INVENTORIES = REPO / "tests" / "golden" / "inventories"
WORKLOAD = REPO / "tests" / "golden" / "scenarios" / "40-allocated-claim-as-inventory.yaml"
# The command line as `dractl dump` prints it (the first line of its output).
PRINTED = subprocess.run([sys.executable, "-m", "dractl", "dump"], capture_output=True, text=True,
                         cwd=REPO, timeout=120).stdout.splitlines()[0]
OLD_COMMAND = ("kubectl get resourceslices.resource.k8s.io,deviceclasses.resource.k8s.io,"
               "resourceclaims.resource.k8s.io,nodes,devicetaintrules.resource.k8s.io,"
               "podgroups.scheduling.k8s.io -A -o yaml > cluster.yaml")


def kubectl() -> str:
    exe = shutil.which("kubectl")
    if exe is None:
        message = "kubectl is not installed: the dump command is not run against the fake API server"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return exe


def test_printed_command_is_the_library_one_and_valid_shell():
    assert PRINTED == kubectl_command()
    for shell in ("bash", "sh"):
        checked = subprocess.run([shell, "-n", "-c", PRINTED], capture_output=True, text=True)
        assert checked.returncode == 0, (shell, checked.stderr)


# -- the clusters ------------------------------------------------------------------------------

def _slices_and_claims() -> list[dict]:
    docs = []
    for name in ("eks-a100-like.yaml", "eks-a100-allocated-claim.yaml"):
        for doc in yaml.safe_load_all((GOLDEN_INVENTORIES / name).read_text()):
            docs.extend(doc.get("items") or [] if doc.get("kind") == "List" else [doc])
    return docs


def _cluster(minor: int, *, taint_rules: bool, scheduling: bool) -> FakeCluster:
    docs = _slices_and_claims()

    def items(kind: str) -> list[dict]:
        return [{k: v for k, v in d.items() if k not in ("apiVersion", "kind")} for d in docs if d["kind"] == kind]

    node = {"metadata": {"name": "ip-192-168-153-160.ec2.internal", "uid": "7c1e2a4b-0000-4000-8000-00000000000a",
                         "labels": {"kubernetes.io/hostname": "ip-192-168-153-160.ec2.internal"}},
            "status": {"allocatable": {"cpu": "96", "memory": "1000Gi", "pods": "250"}}}
    resources = [
        Resource("", "v1", "nodes", "Node", False, [node]),
        Resource("", "v1", "pods", "Pod", True),
        Resource("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", False, items("DeviceClass")),
        Resource("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", False, items("ResourceSlice")),
        Resource("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", True, items("ResourceClaim")),
        Resource("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", True),
        Resource("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False),
    ]
    if taint_rules:
        resources.append(Resource("resource.k8s.io", "v1", "devicetaintrules", "DeviceTaintRule", False, [
            {"metadata": {"name": "maintenance"}, "spec": {"deviceSelector": {"driver": "gpu.nvidia.com", "device": "gpu-7"},
                                                           "taint": {"key": "maintenance", "effect": "NoSchedule"}}}]))
    if scheduling:
        resources.append(Resource("scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", True))
        resources.append(Resource("scheduling.k8s.io", "v1beta1", "workloads", "Workload", True))
    return FakeCluster(minor, resources)


def _run_with_kubectl(command: str, cluster: FakeCluster, tmp_path: Path, shell: str = "bash"):
    kubectl()
    with Serving(cluster, tmp_path) as config:
        env = {**os.environ, "KUBECONFIG": str(config), "HOME": str(tmp_path)}
        return subprocess.run([shell, "-c", command], capture_output=True, text=True, cwd=tmp_path,
                              env=env, timeout=180)


def _kinds(path: Path) -> list[str]:
    [listed] = list(yaml.safe_load_all(path.read_text()))
    return [item["kind"] for item in listed["items"]]


def test_the_fake_cluster_refuses_unserved_types_like_a_real_one(tmp_path):
    # What the old command did on a 1.34 cluster: kubectl refuses the whole list.
    done = _run_with_kubectl(OLD_COMMAND, _cluster(34, taint_rules=False, scheduling=False), tmp_path)
    assert done.returncode != 0
    assert 'the server doesn\'t have a resource type "devicetaintrules"' in done.stderr


@pytest.mark.parametrize("shell", ["bash", "sh"])
def test_printed_command_on_a_134_cluster_gets_what_it_serves(tmp_path, shell):
    done = _run_with_kubectl(PRINTED, _cluster(34, taint_rules=False, scheduling=False), tmp_path, shell)
    assert done.returncode == 0, done.stderr
    assert sorted(_kinds(tmp_path / "cluster.yaml")) == ["DeviceClass", "Node", "ResourceClaim", "ResourceSlice"]


def test_printed_command_on_a_cluster_serving_every_kind(tmp_path):
    cluster = _cluster(37, taint_rules=True, scheduling=True)
    done = _run_with_kubectl(PRINTED, cluster, tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(_kinds(tmp_path / "cluster.yaml")) == ["DeviceClass", "DeviceTaintRule", "Node", "ResourceClaim",
                                                         "ResourceSlice"]
    # Workloads and PodGroups were asked for (there are none), Pods and PriorityClasses were not.
    asked = set(cluster.requests)
    assert {"/apis/scheduling.k8s.io/v1beta1/workloads", "/apis/scheduling.k8s.io/v1beta1/podgroups"} <= asked
    assert not {"/api/v1/pods", "/apis/scheduling.k8s.io/v1/priorityclasses"} & asked
    # The dump feeds `dractl dump -w` and the dry run.
    inventory = tmp_path / "inventory.yaml"
    trimmed = subprocess.run([sys.executable, "-m", "dractl", "dump", str(tmp_path / "cluster.yaml"), "-w",
                              str(inventory)], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert trimmed.returncode == 0, trimmed.stderr
    plan = subprocess.run([sys.executable, "-m", "dractl", "allocate", "--no-config", "-o", "json", "-i",
                           str(inventory), str(WORKLOAD)], capture_output=True, text=True, cwd=REPO, timeout=120)
    pods = json.loads(plan.stdout)["pods"]
    # gpu-6 is held by the dumped claim, gpu-7 is tainted by the dumped rule: 6 of the 8 workers fit.
    assert [p["status"] for p in pods].count("Scheduled") == 6, plan.stdout[-2000:]


# -- a stub kubectl: no kubectl needed ---------------------------------------------------------

STUB = """#!/bin/sh
# Serves nodes, deviceclasses, resourceslices, resourceclaims (a 1.34 cluster); refuses other
# types as kubectl does: "error: the server doesn't have a resource type".
served="nodes pods deviceclasses.resource.k8s.io resourceslices.resource.k8s.io resourceclaims.resource.k8s.io"
if [ "$1" = api-resources ]; then
  for r in $served; do echo "$r"; done
  exit 0
fi
[ "$1" = get ] || exit 2
for r in $(echo "$2" | tr , ' '); do
  case " $served " in *" $r "*) ;; *) echo "error: the server doesn't have a resource type \\"${r%%.*}\\"" >&2; exit 1;; esac
done
echo "asked: $2"
"""


@pytest.mark.parametrize("shell", ["bash", "sh"])
def test_printed_command_with_a_stub_kubectl(tmp_path, shell):
    stub = tmp_path / "bin" / "kubectl"
    stub.parent.mkdir()
    stub.write_text(STUB)
    stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{stub.parent}{os.pathsep}{os.environ['PATH']}"}
    old = subprocess.run([shell, "-c", OLD_COMMAND], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert old.returncode == 1 and "doesn't have a resource type" in old.stderr
    new = subprocess.run([shell, "-c", PRINTED], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert new.returncode == 0, new.stderr
    assert (tmp_path / "cluster.yaml").read_text() == (
        "asked: nodes,deviceclasses.resource.k8s.io,resourceslices.resource.k8s.io,resourceclaims.resource.k8s.io\n")


def test_every_kind_dump_keeps_is_in_the_command():
    assert set(RESOURCES) == {"nodes", "deviceclasses.resource.k8s.io", "devicetaintrules.resource.k8s.io",
                              "resourceslices.resource.k8s.io", "resourceclaims.resource.k8s.io",
                              "workloads.scheduling.k8s.io", "podgroups.scheduling.k8s.io"}
    assert all(f"-e {name} " in PRINTED for name in RESOURCES)


# -- dump -w drops the bookkeeping dractl reports ----------------------------------------------

BOOKKEEPING = ("metadata.ownerReferences", "metadata.managedFields", "status.devices")


def _validate(path: Path) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "dractl", "validate", "--no-config", "-o", "json", str(path)],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    return json.loads(done.stdout)["findings"]


def test_dump_w_drops_the_bookkeeping_dractl_reports(tmp_path):
    docs = _slices_and_claims()
    for doc in docs:
        doc["metadata"]["managedFields"] = [{"apiVersion": doc["apiVersion"], "fieldsType": "FieldsV1",
                                             "fieldsV1": {"f:spec": {}}, "manager": "kubelet",
                                             "operation": "Update", "time": "2026-02-10T18:22:31Z"}]
    full = tmp_path / "cluster.yaml"
    full.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": docs}))
    before = [f["field"] for f in _validate(full)]
    # The published dumps' owner references without uid and device conditions without
    # lastTransitionTime are reported on the full dump ...
    assert any(f.startswith("metadata.ownerReferences") for f in before)
    assert any(f.startswith("status.devices") for f in before)
    inventory = tmp_path / "inventory.yaml"
    done = subprocess.run([sys.executable, "-m", "dractl", "dump", str(full), "-w", str(inventory)],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    # ... and gone from the trimmed file; what remains is the data itself (no pool generation,
    # a reservedFor entry without uid: the dry run reads both).
    after = [f["field"] for f in _validate(inventory)]
    assert not [f for f in after if f.startswith(BOOKKEEPING)], after
    assert sorted(after) == ["spec.pool.generation", "status.reservedFor[0].uid"]
    objects = list(yaml.safe_load_all(inventory.read_text()))
    assert all("managedFields" not in o["metadata"] and "ownerReferences" not in o["metadata"] for o in objects)


def test_dump_w_keeps_a_claims_complete_owner_reference(tmp_path):
    claim = next(d for d in _slices_and_claims() if d["kind"] == "ResourceClaim")
    claim["metadata"]["ownerReferences"].append({"apiVersion": "v1", "kind": "Pod", "name": "other",
                                                 "uid": "7c1e2a4b-0000-4000-8000-000000000099"})
    source = tmp_path / "claim.yaml"
    source.write_text(yaml.safe_dump(claim))
    done = subprocess.run([sys.executable, "-m", "dractl", "dump", str(source)], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    [kept] = [o for o in yaml.safe_load_all(done.stdout) if o]
    assert kept["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "other",
                                                    "uid": "7c1e2a4b-0000-4000-8000-000000000099"}]
    assert "devices" not in kept["status"] and kept["status"]["reservedFor"]
