"""Malformed documents through the installed entry point (a real process),
docs/decisions/0006-hostile-inputs.md.

Each case is a test: YAML tags with impossible values, wrong types deep in a pod
or a node, an enum value no enum has, a lone surrogate in a JSON string, ObjectMeta that the API
server rejects, and a claim with a huge number of requests (peak memory of the spawned process,
findings bounded). Each run must report a finding at file:line:column on the bad document, go on
with the other documents, and print nothing raw on any stream.
"""

from __future__ import annotations

import json
import re

import pytest
from cli_harness import UNSAFE_CHARS, assert_ok, run_subprocess

GOOD_CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: good, namespace: default}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]}}
"""
TAGS = f"""apiVersion: !!float 'x'
kind: ResourceClaim
metadata: {{name: a}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: b, namespace: !!bool ''}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: c}}
spec: {{devices: {{requests: [{{name: r, exactly: {{deviceClassName: gpu, count: !!int ''}}}}]}}}}
---
{GOOD_CLAIM}"""
TYPES = f"""apiVersion: v1
kind: Node
metadata: {{name: n1}}
spec: {{taints: true}}
---
apiVersion: v1
kind: Pod
metadata: {{name: p1, namespace: default}}
spec:
  containers:
  - name: c
    image: x
    env: 1.5
---
apiVersion: v1
kind: Pod
metadata: {{name: p2, namespace: default}}
spec:
  containers: 5
---
apiVersion: v1
kind: Pod
metadata: {{name: p3, namespace: default}}
spec:
  tolerations: [{{key: a, operator: maybe, effect: maybe}}]
  containers: [{{name: c, image: x}}]
---
apiVersion: v1
kind: Node
metadata: {{name: n2}}
spec: {{taints: [{{key: a, effect: maybe}}]}}
---
{GOOD_CLAIM}"""
SURROGATE = ('{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"p\\ud800",'
             '"namespace":"default","labels":{"k":"v\\udfff"}},"spec":{"devices":{"requests":'
             '[{"name":"r","exactly":{"deviceClassName":"gpu.example.com"}}]}}}')

FORMATS = {"validate": ["text", "json", "sarif", "junit", "github"],
           "allocate": ["text", "json", "yaml", "sarif", "junit", "github"],
           "env": ["text", "json"]}
RUNS = [(c, f) for c, fs in FORMATS.items() for f in fs]


def _run(tmp_path, name: str, text: str, command: str, fmt: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    args = [command, str(path), "-o", fmt] + (["-i", "builtin:example-gpu"] if command != "validate" else [])
    run = run_subprocess(args, cwd=tmp_path, timeout=120)
    assert_ok(run, fmt)
    return run


def _findings(tmp_path, name, text):
    run = _run(tmp_path, name, text, "validate", "json")
    return {(f["line"], f["column"], f["field"], f["message"]) for f in json.loads(run.out)["findings"]}


@pytest.mark.parametrize("command,fmt", RUNS)
def test_yaml_tags_with_impossible_values_are_findings(tmp_path, command, fmt):
    _run(tmp_path, "tags.yaml", TAGS, command, fmt)


def test_yaml_tags_findings_point_at_the_tag_and_the_rest_is_checked(tmp_path):
    found = _findings(tmp_path, "tags.yaml", TAGS)
    messages = {(line, col, msg) for line, col, _, msg in found}
    assert (1, 13, "cannot decode !!str `x` as a !!float") in messages
    assert (7, 32, "cannot decode !!null `` as a !!bool") in messages
    assert any(m == "cannot decode !!null `` as a !!int" and line == 12 for line, _, m in messages)
    # the fourth document, which is fine, was still checked (its missing class is reported)
    assert any("gpu.example.com" in m and line > 13 for line, _, _, m in found)


@pytest.mark.parametrize("command,fmt", RUNS)
def test_wrong_types_deep_in_pods_and_nodes_are_findings(tmp_path, command, fmt):
    _run(tmp_path, "types.yaml", TYPES, command, fmt)


def test_wrong_types_are_reported_with_the_api_server_wording(tmp_path):
    found = _findings(tmp_path, "types.yaml", TYPES)
    assert (4, 8, "spec.taints", "Invalid value: true: must be of type array") in found
    assert (13, 5, "spec.containers[0].env", "Invalid value: 1.5: must be of type array") in found
    assert (19, 3, "spec.containers", "Invalid value: 5: must be of type array") in found


def test_allocate_schedules_the_good_pod_beside_the_broken_ones(tmp_path):
    run = _run(tmp_path, "types.yaml", TYPES, "allocate", "json")
    pods = {p["name"]: p["status"] for p in json.loads(run.out)["pods"]}
    assert pods["p1"] == pods["p2"] == "Invalid" and pods["p3"] != "Invalid"


@pytest.mark.parametrize("command,fmt", RUNS)
def test_lone_surrogate_is_a_finding_and_escaped_everywhere(tmp_path, command, fmt):
    run = _run(tmp_path, "sur.json", SURROGATE, command, fmt)
    for text in (run.out, run.err):
        assert not re.search("[\ud800-\udfff]", text) and not UNSAFE_CHARS.search(text)


def test_lone_surrogate_finding_names_the_field_and_the_escape(tmp_path):
    found = _findings(tmp_path, "sur.json", SURROGATE)
    lone = sorted((line, col, field, msg) for line, col, field, msg in found if "surrogate" in msg)
    assert [f[2] for f in lone] == ["metadata.name", "metadata.labels.k"]
    assert lone[0][:2] == (1, 80) and '"p\\ud800"' in lone[0][3]
    # the API server reads "p\ufffd": not a DNS subdomain
    assert any(f == "metadata.name" and "\ufffd" in m and "RFC 1123" in m for _, _, f, m in found)


META = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu
  labels: {"bad key!": v, ok: "bad value!"}
  annotations: {big: "%s", "no good": x}
---
apiVersion: v1
kind: Namespace
metadata: {name: My.NS}
""" % ("x" * (257 * 1024))


def test_object_meta_is_validated_like_the_api_server(tmp_path):
    found = {(f, m.split(":")[0], m) for _, _, f, m in _findings(tmp_path, "meta.yaml", META)}
    fields = {(f, kind) for f, kind, _ in found}
    assert ("metadata.annotations", "Too long") in fields
    assert any(f == "metadata.labels" and '"bad key!"' in m for f, _, m in found)
    assert any(f == "metadata.labels" and '"bad value!"' in m for f, _, m in found)
    assert any(f == "metadata.annotations" and '"no good"' in m for f, _, m in found)
    assert any(f == "metadata.name" and "RFC 1123 label" in m for f, _, m in found)


def _many_requests(n: int) -> str:
    head = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: big\n"
            "  namespace: default\nspec:\n  devices:\n    requests:\n")
    return head + "".join(f"    - name: r{i}\n      exactly:\n        deviceClassName: gpu.example.com\n"
                          for i in range(n))


def test_a_claim_with_many_requests_is_bounded_in_memory_and_findings(tmp_path):
    """60,000 requests (4.5 MB: the big-file path) -- the 1,000,000-request case of the issue,
    scaled to CI. Peak memory of the spawned process, above what dractl needs for the same claim
    with 100 requests (the interpreter, the schemas, the rules), stays within 20 times the
    input; one missing-class warning per request is collapsed."""
    small = tmp_path / "small.yaml"
    small.write_text(_many_requests(100))
    big = tmp_path / "big.yaml"
    big.write_text(_many_requests(60_000))
    base = run_subprocess(["validate", str(small)], cwd=tmp_path, timeout=120)
    run = run_subprocess(["validate", str(big)], cwd=tmp_path, timeout=600)
    assert_ok(run)
    size_kb = big.stat().st_size // 1024
    assert base.max_rss_kb and run.max_rss_kb
    assert run.max_rss_kb - base.max_rss_kb <= 20 * size_kb, (run.max_rss_kb, base.max_rss_kb, size_kb)
    lines = run.out.splitlines()
    assert len(lines) < 200 and "Too many: 60000: must have at most 32 items" in run.out
    assert "59900 more DRA2003 finding(s)" in run.out
