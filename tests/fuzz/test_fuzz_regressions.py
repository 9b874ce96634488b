"""Minimal reproducers of what fuzzing and the hostile-input work found
(docs/decisions/0006-hostile-inputs.md).

Each test is a bug that is fixed now: in dractl/load and dractl/report by the fuzzing work, the
others by their owners after a report. A newly found bug outside tests/ gets a strict xfail test
here (and, if the fuzzer keeps hitting it, an entry in KNOWN_BUGS in test_fuzz_cli.py) until it
is fixed.
"""

from __future__ import annotations

import json
import os

import pytest
from cli_harness import assert_ok, run_inproc, run_subprocess

POD = ("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n"
       "  containers: [{{name: c, image: x}}]\n")


def bad_class(name):
    return f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: {name}}}\n" \
           "spec: {selectors: [{cel: {expression: 'device.nope'}}]}\n"


def findings(run):
    return json.loads(run.out)["findings"]


@pytest.fixture(autouse=True)
def _no_config_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


# ---- fixed in dractl/load and dractl/report ------------------------------------------------------

@pytest.mark.parametrize("suffix", [".yaml", ".json", ""])
def test_integer_over_4300_digits_is_a_finding(tmp_path, suffix):
    """Was: `internal error: ValueError: Exceeds the limit (4300 digits)`, whole run lost."""
    big = "9" * 5000
    if suffix == ".json":
        text = '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"priority": %s}}' % big
    else:
        text = POD.format(name="p") + f"  priority: {big}\n"
    path = tmp_path / f"big{suffix or '.yml'}"
    path.write_text(text)
    other = tmp_path / "other.yaml"
    other.write_text(bad_class("Other_Bad"))
    run = run_inproc(["validate", path, other, "-o", "json"])
    assert_ok(run, "json")
    found = findings(run)
    assert any(f["code"] == "DRA0001" and "too large" in f["message"] for f in found), found
    assert any(f["name"] == "Other_Bad" for f in found)


def test_control_character_hides_no_other_document():
    """Was: one ESC in document 3 of 5 dropped documents 1-2 and reported the error three times
    at wrong lines (libyaml refuses the whole stream before yielding anything)."""
    docs = [bad_class(f"Bad_{i}") for i in range(5)]
    docs[2] = docs[2].replace("Bad_2", '"Bad_2\x1b[31m"')
    run = run_inproc(["validate", "-", "-o", "json"], stdin="---\n".join(docs).encode())
    assert_ok(run, "json")
    found = findings(run)
    control = [f for f in found if f["code"] == "DRA0001"]
    assert len(control) == 1 and control[0]["line"] == 13 and "x001b" in control[0]["message"]
    assert {f["name"] for f in found if f["name"]} == {"Bad_0", "Bad_1", "Bad_3", "Bad_4"}
    assert json.loads(run.out)["summary"]["documents"] == 5


@pytest.mark.parametrize("broken", ["a: b: c\n", "a: \x01\n", "a: [\n", "{\n"])
def test_many_broken_documents_stay_linear(broken):
    """Was: recovery re-split the rest of the file after every broken document (quadratic):
    20,000 broken documents (240 KB) took 75 s."""
    text = ("---\n" + broken) * 20_000
    run = run_inproc(["validate", "-", "-o", "json"], stdin=text.encode(), time_limit=30)
    assert_ok(run, "json")
    assert run.seconds < 15, f"{run.seconds:.1f} s"
    if "[" not in broken and "{" not in broken:  # an unclosed flow collection swallows `---`
        assert json.loads(run.out)["summary"]["documents"] == 20_000


def test_fifo_in_a_directory_is_reported(tmp_path):
    """Was: skipped silently."""
    os.mkfifo(tmp_path / "pipe.yaml")
    run = run_inproc(["validate", tmp_path, "-o", "json"], time_limit=10)
    assert_ok(run, "json")
    assert [(os.path.basename(f["file"]), f["code"]) for f in findings(run)] == [("pipe.yaml", "DRA0013")]


@pytest.mark.parametrize("field", ["metadata: null", "metadata: [x]", "status: [1]", "status: abc",
                                   "spec: null"])
def test_allocate_yaml_with_wrong_typed_pod_fields(field):
    """Was (report/plan_yaml.py): `metadata: null` on a Pod -> AttributeError in -o yaml."""
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
            "spec: {containers: [{name: c, image: x}]}\n")
    key = field.split(":")[0]
    text = "\n".join(l for l in text.splitlines() if not l.startswith(key + ":")) + "\n" + field + "\n"
    run = run_inproc(["allocate", "-", "-i", "builtin:example-gpu", "-o", "yaml"], stdin=text.encode())
    assert_ok(run, "yaml")
    assert run.out.count("kind: Pod") == 1


# ---- fixed by the owners of simulate/ ------------------------------------------------------------

# Was: simulate/scheduler.py _add_input_claim called metadata.setdefault on a ResourceClaim whose
# metadata is null or not a map -> 'internal error', nothing else printed (fixed by its owner).
@pytest.mark.parametrize("metadata", ["null", "[a]", "x"])
@pytest.mark.parametrize("command", ["allocate", "env"])
def test_claim_with_metadata_not_a_map(command, metadata):
    text = (f"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {metadata}\n"
            "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]}}\n")
    run = run_inproc([command, "-", "-i", "builtin:example-gpu"], stdin=text.encode())
    assert_ok(run)


@pytest.mark.parametrize("kind,field", [("Deployment", "replicas"), ("Job", "parallelism")])
def test_huge_replica_count_is_bounded(kind, field):
    """Was (simulate/pods.py): every replica expanded, unbounded; 10^9 replicas ran for minutes
    and took GBs (StatefulSet and ReplicaSet too). In-process with a 3 s alarm: should it
    regress, the alarm stops the loop before memory grows far."""
    group = "batch/v1" if kind == "Job" else "apps/v1"
    text = (f"apiVersion: {group}\nkind: {kind}\nmetadata: {{name: w, namespace: default}}\n"
            f"spec:\n  {field}: 1000000000\n  selector: {{matchLabels: {{a: b}}}}\n"
            "  template:\n    metadata: {labels: {a: b}}\n"
            "    spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n")
    run = run_inproc(["allocate", "-", "-i", "builtin:example-gpu", "-o", "json"],
                     stdin=text.encode(), time_limit=3)
    assert_ok(run, "json")


def _limit_memory(limit_bytes):
    def apply():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


# ---- fixed by the owners of validate/ ------------------------------------------------------------

ENV_POD = """apiVersion: v1
kind: Pod
metadata: {name: good, namespace: default}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: gpu}]
  containers:
  - name: c
    image: x
    resources: {claims: [{name: gpu}]}
    env:
    - {name: A, value: "1"}
    - {name: A, value: "2"}
"""


# Was: validate/envlints.py check_env_refs raised TypeError on wrong-typed fields (a list as
# deviceClassName or metadata.name, an int as resourceClaims); pipeline.py then attached one
# DRA0999 'internal error' to document 0 and dropped the env lints of every other document
# (fixed by its owner).
@pytest.mark.parametrize("broken", [
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resourceClaims: 1\n"
    "  containers: [{name: c, image: x}]\n",
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\n"
    "spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: [x]}}]}}}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
    "  resourceClaims: [{name: gpu, resourceClaimTemplateName: t}]\n"
    "  containers:\n  - name: c\n    image: x\n    resources: {claims: [{name: gpu}]}\n"
    "    env: [{name: X, valueFrom: {resourceSliceAttributeRef: "
    "{claimName: gpu, requestName: gpu, attribute: uuid}}}]\n",
])
def test_env_lints_survive_wrong_types(broken):
    run = run_inproc(["validate", "-", "-o", "json"], stdin=(broken + "---\n" + ENV_POD).encode())
    assert_ok(run, "json")
    assert any(f["code"] == "DRA6104" and f["name"] == "good" for f in findings(run))


# ---- fixed by the owners of cli/ -----------------------------------------------------------------

@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_golden_file_that_is_not_a_regular_file(tmp_path, target):
    golden = tmp_path / "golden.txt"
    if target == "fifo":  # in-process: the alarm interrupts the blocked open()
        os.mkfifo(golden)
        run = run_inproc(["allocate", "-i", "builtin:example-gpu", "--golden", golden], time_limit=3)
    else:  # a subprocess with 1 GiB of address space: fails fast instead of eating the machine
        os.symlink(target, golden)
        run = run_subprocess(["allocate", "-i", "builtin:example-gpu", "--golden", golden],
                             timeout=15, preexec_fn=_limit_memory(1 << 30))
    assert_ok(run)
    assert run.code == 2


# ---- open: reported to the owners of api/ and validate/ ----------------------------------------

@pytest.mark.parametrize("where", ["slice capacity", "claim capacity request"])
def test_quantity_with_5000_digits_is_a_finding(where):
    digits = "1" * 5000
    if where == "slice capacity":
        text = ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
                "  driver: d.example.com\n  nodeName: n1\n"
                "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
                f"  devices: [{{name: d0, capacity: {{mem: {{value: '{digits}'}}}}}}]\n")
    else:
        text = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: x, "
                f"capacity: {{requests: {{mem: '{digits}'}}}}}}}}]}}}}\n")
    run = run_inproc(["validate", "-", "-o", "json"], stdin=text.encode())
    assert_ok(run, "json")
    assert findings(run)

