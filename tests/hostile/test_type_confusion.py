"""A wrong type at any field path of any kind is a finding on that document, never an internal
error, and never costs the other documents of the run (docs/decisions/0006-hostile-inputs.md).

The sweep: for every field path of every kind dractl reads (from the kind's JSON Schema, see
tests/fuzz/schema_paths.py), a document holding a value of a type the field cannot hold, plus a
string that no enum holds ("maybe") in every string field and -1 in every integer field. All the
documents of a kind go through one run, each on its own line, so each finding names its document
by line. `validate` must report a "must be of type" finding at the exact path on that document;
`allocate` and `env` (simulate, env resolution) and every reporter must run to the end with no
internal error, traceback or malformed output.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict

import pytest
import yaml
from cli_harness import assert_ok, run_inproc
from fuzz_seeds import EXAMPLES, inventory_docs
from schema_paths import SAMPLES, field_paths, put, wrong_values

from dractl.findings import render_path

# Minimal valid documents of the kinds the examples and inventories do not hold.
_MINIMAL = {
    "Namespace": {"metadata": {"name": "ns"}},
    "DeviceTaintRule": {"metadata": {"name": "r"}, "spec": {
        "deviceSelector": {"driver": "gpu.example.com"}, "taint": {"key": "k", "effect": "NoSchedule"}}},
    "Workload": {"metadata": {"name": "w", "namespace": "default"}, "spec": {}},
    "PodGroup": {"metadata": {"name": "g", "namespace": "default"}, "spec": {}},
}


def _seeds() -> dict[str, dict]:
    seeds: dict[str, dict] = {}
    docs = list(inventory_docs("example-gpu"))
    for path in sorted(EXAMPLES.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    for d in docs:
        seeds.setdefault(d.get("kind"), d)
    return seeds


def _seed(api_version: str, kind: str, seeds: dict) -> dict:
    base = seeds.get(kind) if seeds.get(kind, {}).get("apiVersion") == api_version else None
    doc = dict(base or _MINIMAL.get(kind) or {"metadata": {"name": "x", "namespace": "default"}})
    doc["apiVersion"], doc["kind"] = api_version, kind
    return doc


# The pod spec inside a controller's template is the Pod's spec, swept in full for kind Pod; in
# the controllers (six kinds, ~1,400 paths each) the sweep keeps every path outside it and every
# tenth inside (CI time). DRACTL_SWEEP=full keeps them all.
_POD_SPEC_IN = {"CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
                "DaemonSet": ("spec", "template", "spec"), "Deployment": ("spec", "template", "spec"),
                "Job": ("spec", "template", "spec"), "ReplicaSet": ("spec", "template", "spec"),
                "StatefulSet": ("spec", "template", "spec")}
FULL = os.environ.get("DRACTL_SWEEP") == "full"


def _swept(field, counter: list) -> bool:
    inner = _POD_SPEC_IN.get(field.kind)
    if FULL or inner is None or field.path[:len(inner)] != inner:
        return True
    counter[0] += 1
    return counter[0] % 10 == 0


def _cases():
    """(api_version, kind) -> [(document, concrete path, expect a type finding)]."""
    seeds = _seeds()
    by_kind = defaultdict(list)
    counter = [0]
    for field in field_paths():
        if not _swept(field, counter):
            continue
        seed = _seed(field.api_version, field.kind, seeds)
        path = field.concrete()
        for value in wrong_values(field)[:1]:
            by_kind[(field.api_version, field.kind)].append((put(seed, path, value), path, True))
        if "string" in field.types and field.format is None:
            by_kind[(field.api_version, field.kind)].append((put(seed, path, "maybe"), path, False))
        if "integer" in field.types:
            by_kind[(field.api_version, field.kind)].append((put(seed, path, -1), path, False))
    return by_kind


CASES = _cases()
KINDS = sorted(CASES)
ALLOCATE_FORMATS = ["json", "yaml", "text", "junit", "sarif", "github"]
ENV_FORMATS = ["json", "text"]


def _stream(docs: list[dict]) -> bytes:
    """One document per line pair (`---` then the document as JSON): doc i is on line 2i+2."""
    return "".join("---\n" + json.dumps(d, ensure_ascii=False) + "\n" for d in docs).encode()


@pytest.mark.parametrize("api_version,kind", KINDS, ids=[f"{a}/{k}" for a, k in KINDS])
def test_wrong_type_at_every_path(api_version, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cases = CASES[(api_version, kind)]
    stdin = _stream([doc for doc, _, _ in cases])
    run = run_inproc(["validate", "-", "-o", "json"], stdin=stdin, time_limit=300)
    assert_ok(run, "json")
    report = json.loads(run.out)
    fields_by_line = defaultdict(set)
    for f in report["findings"]:
        fields_by_line[f["line"]].add((f["field"], f["message"]))
    missing = []
    for i, (_, path, expect_type) in enumerate(cases):
        if not expect_type:
            continue
        want = render_path(path)
        got = fields_by_line.get(2 * i + 2, set())
        if not any(field == want and "must be of type" in message for field, message in got):
            missing.append(f"{want}: {sorted(got)[:3]}")
    assert not missing, f"{len(missing)} wrong types without a finding, e.g. {missing[:5]}"
    assert report["summary"]["documents"] == len(cases)

    n = KINDS.index((api_version, kind))
    for command, fmt in (("allocate", ALLOCATE_FORMATS[n % len(ALLOCATE_FORMATS)]),
                         ("env", ENV_FORMATS[n % len(ENV_FORMATS)])):
        run = run_inproc([command, "-", "-i", "builtin:example-gpu", "-o", fmt, "--timeout", "5"],
                         stdin=stdin, time_limit=300)
        assert_ok(run, fmt)


def test_sweep_covers_every_kind_and_type():
    kinds = {k for _, k in KINDS}
    assert {"Pod", "Node", "ResourceClaim", "ResourceSlice", "DeviceClass", "Deployment",
            "DeviceTaintRule", "Workload", "PodGroup", "Namespace"} <= kinds
    assert sum(len(c) for c in CASES.values()) > 5_000
    assert set(SAMPLES) == {"object", "array", "boolean", "string", "number", "integer"}


# A collection tag on the wrong kind of node at every field path: a mapping tagged !!seq, a
# sequence tagged !!map (verbatim too), a scalar tagged !!map or !!seq. Each is a DRA0001
# finding at its line and column; the other documents of the run are read as usual.
_MISMATCHED = {"object": ("tag:yaml.org,2002:seq", "sequence node, but found mapping"),
               "array": ("tag:yaml.org,2002:map", "mapping node, but found sequence")}
_ON_SCALAR = [("tag:yaml.org,2002:map", "mapping node, but found scalar"),
              ("tag:yaml.org,2002:seq", "sequence node, but found scalar")]


def _tagged_line(doc: dict, path: tuple, tag: str) -> str:
    """`doc` as one line of flow YAML, the node at `path` carrying `tag`."""
    dumper = yaml.SafeDumper(None, default_flow_style=True)
    root = node = dumper.represent_data(doc)
    for elem in path:
        if isinstance(elem, int):
            node = node.value[elem]
        else:
            node = next(v for k, v in node.value if k.value == str(elem))
    node.tag = tag
    return yaml.serialize(root, Dumper=yaml.SafeDumper, width=10**9).strip()


def _tag_cases(api_version: str, kind: str) -> list[tuple[str, tuple, str]]:
    seeds = _seeds()
    seed = _seed(api_version, kind, seeds)
    out, n = [], 0
    for field in field_paths():
        if (field.api_version, field.kind) != (api_version, kind):
            continue
        path = field.concrete()
        json_type = next((t for t in field.types if t in _MISMATCHED), None)
        value = SAMPLES[json_type] if json_type else "x"
        tag, problem = _MISMATCHED[json_type] if json_type else _ON_SCALAR[n % 2]
        n += 1
        out.append((_tagged_line(put(seed, path, value), path, tag), path, problem))
    return out


TAG_KINDS = [("resource.k8s.io/v1", "ResourceClaim"), ("resource.k8s.io/v1", "ResourceSlice"),
             ("resource.k8s.io/v1", "DeviceClass"), ("v1", "Pod"), ("v1", "Node")]


@pytest.mark.parametrize("api_version,kind", TAG_KINDS, ids=[k for _, k in TAG_KINDS])
def test_mismatched_collection_tag_at_every_path(api_version, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cases = _tag_cases(api_version, kind)
    good = json.dumps(_seed(api_version, kind, _seeds()))
    lines = []
    for text, _, _ in cases:
        lines += ["---", text, "---", good]  # tagged document on line 4i+2, a good one after it
    run = run_inproc(["validate", "-", "-o", "json"], stdin=("\n".join(lines) + "\n").encode(),
                     time_limit=300)
    assert_ok(run, "json")
    report = json.loads(run.out)
    by_line = defaultdict(list)
    for f in report["findings"]:
        by_line[f["line"]].append(f)
    missing = []
    for i, (_, path, problem) in enumerate(cases):
        got = [f for f in by_line.get(4 * i + 2, []) if f["code"] == "DRA0001"]
        if not any(problem in f["message"] and f["column"] > 1 for f in got):
            missing.append(f"{render_path(path)}: {[f['message'] for f in got]}")
        assert not any(f["code"] == "DRA0001" for f in by_line.get(4 * i + 4, [])), "good doc hurt"
    assert not missing, f"{len(missing)} mismatched tags without a finding, e.g. {missing[:5]}"
    assert report["summary"]["documents"] == 2 * len(cases)
