"""The upgrade check: `--kube-version 1.36,1.37,1.38` runs the inputs under each release and
reports what changes, in every output format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_helpers import run

REPO = Path(__file__).resolve().parents[2]
V1BETA1_CLASS = """\
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
"""


@pytest.fixture
def manifest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "class.yaml").write_text(V1BETA1_CLASS)
    return "class.yaml"


def test_text_names_what_appears_per_step(manifest):
    r = run("validate", "--kube-version", "1.36,v1.37,1.38.0", manifest)
    assert r.code == 1, r.err  # 1.38 does not serve resource.k8s.io/v1beta1
    lines = r.out.splitlines()
    assert lines[0] == "upgrade check (validate): Kubernetes 1.36 -> 1.37 -> 1.38 (preview)"
    assert "1.36 -> 1.37: no changes" in lines
    step = lines.index("1.37 -> 1.38:")
    assert lines[step + 1].startswith("  + class.yaml:1:1  DRA0105  error  apiVersion: resource.k8s.io/v1beta1 "
                                      "DeviceClass is not served by Kubernetes 1.38")


def test_json_and_ci_formats(manifest):
    doc = json.loads(run("validate", "--kube-version", "1.37,1.38", manifest, "-o", "json").out)
    assert doc["kubernetesVersions"] == ["1.37", "1.38"]
    assert [r["preview"] for r in doc["runs"]] == [False, True]
    [change] = doc["changes"]
    assert [f["code"] for f in change["appeared"]] == ["DRA0105"] and change["disappeared"] == []
    sarif = json.loads(run("validate", "--kube-version", "1.37,1.38", manifest, "-o", "sarif").out)
    messages = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    assert any(m.endswith("[Kubernetes 1.38 only]") for m in messages), messages
    github = run("validate", "--kube-version", "1.37,1.38", manifest, "-o", "github").out
    assert "::error file=class.yaml,line=1" in github and "[Kubernetes 1.38 only]" in github
    junit = ET.fromstring(run("validate", "--kube-version", "1.37,1.38", manifest, "-o", "junit").out)
    assert junit.iter("failure") is not None


def test_allocation_outcomes_that_differ():
    r = run("allocate", "--kube-version", "1.35,1.36", "-i", "builtin:cpu", str(REPO / "examples" / "cpu-pinning.yaml"),
            "-o", "json")
    doc = json.loads(r.out)
    [change] = doc["changes"]
    pods = [o for o in change["outcomes"] if o.get("pod") == "default/latency-critical"]
    assert pods and pods[0]["from"]["status"] == "Unschedulable" and pods[0]["to"]["status"] == "Scheduled"
    assert "DRAConsumableCapacity" in pods[0]["from"]["reason"]
    assert r.code == 1  # 1.35 leaves the pod pending


@pytest.mark.parametrize("args, message", [
    (("validate", "--kube-version", "1.37,1.37", "x.yaml"), "two or more different releases"),
    (("validate", "--kube-version", "1.37,1.30", "x.yaml"), "--kube-version 1.30"),
    (("env", "--kube-version", "1.36,1.37", "x.yaml"), "are for validate and allocate, not env"),
])
def test_usage_errors(args, message):
    r = run(*args)
    assert r.code == 2 and message in r.err, r.err
