"""`dractl capacity` answers a user can act on: fitted to the terminal like the other commands,
`--fit` counting the workload's own pods, the pool tables labelled before/after the fit, and a
summary saying how many input pods were placed and how many were not (with the first reason)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import run
from test_cli_terminal import _GUIDES, cells, on_terminal, piped

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

TERMINAL_COMMANDS = [
    ["capacity", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml"],
    ["capacity", "-i", "builtin:nvidia-mig", "examples/mig.yaml"],
    ["capacity", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml", "--fit", "inference"],
    ["capacity", "-i", "builtin:example-gpu", "examples/nine-gpus.yaml"],
    ["capacity", "-i", "builtin:example-gpu", "-i", "tests/cli/data/whatif/running-claims.yaml",
     "examples/gpu-pod.yaml", "--what-if", "tests/cli/data/whatif/worker-maintenance.yaml"],
]


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("args", TERMINAL_COMMANDS, ids=lambda a: " ".join(a[2:]).replace("tests/cli/data/", ""))
@pytest.mark.parametrize("color", [[], ["--no-color"]], ids=["color", "no-color"])
def test_capacity_fits_the_terminal_and_loses_nothing(args, columns, color):
    code, shown = on_terminal(args + color, columns)
    assert code == 0, shown
    lines = shown.rstrip("\n").split("\n")
    assert [line for line in lines if cells(line) > columns] == []
    # Only line ends, guides and indentation are added: every character of the piped output
    # (which is never broken) is on the terminal, in order.
    assert shown.translate(_GUIDES) == piped(args).translate(_GUIDES)


def test_pool_line_keeps_its_numbers_at_80_columns():
    _, shown = on_terminal(["capacity", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml"], 80)
    lines = shown.split("\n")
    first = next(i for i, line in enumerate(lines)
                 if line.startswith("pool gpu.example.com/dra-example-driver-cluster-worker "))
    # The continuation lines are indented under the label, and the numbers are all there.
    following = []
    for line in lines[first + 1:]:
        if not line.startswith("    "):
            break
        following.append(line.strip())
    joined = " ".join([lines[first]] + following)
    assert joined.endswith("8 devices, 2 allocated, 6 available, 0 unavailable"), joined


def _capacity_json(*args: str) -> dict:
    r = run("capacity", "--no-config", "-o", "json", *args)
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_fit_counts_the_workloads_own_pods_as_placed():
    plain = _capacity_json("-i", "builtin:example-gpu", str(EXAMPLES / "gpu-pod.yaml"))
    assert plain["summary"]["available"] == 14
    doc = _capacity_json("-i", "builtin:example-gpu", str(EXAMPLES / "gpu-pod.yaml"), "--fit", "inference")
    fit = doc["fit"]
    # 14 GPUs are free after the Deployment's 2 pods: 14 more, 16 in total.
    assert (fit["replicas"], fit["declared"], fit["declaredPlaced"], fit["total"]) == (14, 2, 2, 16)
    # The top-level pools are the state the plain run reports (before the fit); after it, full.
    assert doc["pools"] == plain["pools"] and doc["summary"] == plain["summary"]
    assert fit["after"]["summary"]["available"] == 0 and fit["after"]["summary"]["allocated"] == 16
    # The replicas get the GPUs the declared pods left free.
    assert fit["placements"][0]["devices"] == ["gpu.example.com/dra-example-driver-cluster-worker/gpu-2"]


def test_fit_given_as_a_file_counts_its_pods_too():
    fit = _capacity_json("-i", "builtin:example-gpu", "--fit", str(EXAMPLES / "gpu-pod.yaml"))["fit"]
    assert (fit["replicas"], fit["total"]) == (14, 16)


def test_fit_text_says_more_and_total_and_labels_the_tables():
    r = run("capacity", "--no-config", "-i", "builtin:example-gpu", str(EXAMPLES / "gpu-pod.yaml"),
            "--fit", "inference")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert "fit Deployment/default/inference: 14 more replica(s) (16 in total)" in lines
    before = lines.index("before --fit (the inputs placed):")
    after = lines.index("after --fit (14 more replica(s) of Deployment/default/inference):")
    assert before == 0 and after > before
    assert lines[before + 1].endswith("8 devices, 2 allocated, 6 available, 0 unavailable")
    assert lines[after + 1].endswith("8 devices, 8 allocated, 0 available, 0 unavailable")
    assert lines[-2] == "2 input pod(s): 2 placed, 0 not placed"


def test_need_counts_replicas_in_total():
    like = "dra-example-driver-cluster-worker"
    # 16 fit in total without new nodes; 8 more per added worker: 40 need 3.
    need = _capacity_json("-i", "builtin:example-gpu", "--fit", str(EXAMPLES / "gpu-pod.yaml"),
                          "--like", like, "--need", "40")["fit"]["need"]
    assert need == {"replicas": 40, "nodes": 3}
    assert _capacity_json("-i", "builtin:example-gpu", "--fit", str(EXAMPLES / "gpu-pod.yaml"),
                          "--like", like, "--need", "16")["fit"]["need"] == {"replicas": 16, "nodes": 0}


def test_declared_pods_that_do_not_fit_are_said(tmp_path):
    many = tmp_path / "many.yaml"
    many.write_text((EXAMPLES / "gpu-pod.yaml").read_text().replace("replicas: 2", "replicas: 20"))
    r = run("capacity", "--no-config", "-i", "builtin:example-gpu", str(many), "--fit", "inference", "-q")
    assert r.code == 0, r.err
    assert ("fit Deployment/default/inference: 0 more replica(s) (16 in total; 4 of its 20 declared "
            "pod(s) did not fit)") in r.out.splitlines()
    assert re.search(r"^20 input pod\(s\): 16 placed, 4 not placed; the first, default/inference-\S+: "
                     r"Unschedulable: 0/3 nodes are available", r.out, re.M), r.out


def test_summary_names_pods_that_were_not_placed():
    r = run("capacity", "--no-config", "-i", "builtin:example-gpu", str(EXAMPLES / "nine-gpus.yaml"))
    assert r.code == 0, r.err
    assert ("1 input pod(s): 0 placed, 1 not placed; the first, default/big: Unschedulable: 0/3 nodes are "
            "available: 1 node(s) had untolerated taint") in r.out
    doc = _capacity_json("-i", "builtin:example-gpu", str(EXAMPLES / "nine-gpus.yaml"))
    summary = doc["summary"]
    assert (summary["pods"], summary["placed"], summary["notPlaced"]) == (1, 0, 1)
    assert summary["firstNotPlaced"]["pod"] == "default/big" and summary["firstNotPlaced"]["code"] == "DRA5001"


def test_inventory_alone_has_no_pod_line():
    r = run("capacity", "--no-config", "-i", "builtin:example-gpu")
    assert r.code == 0 and "input pod(s)" not in r.out
    assert json.loads(run("capacity", "--no-config", "-i", "builtin:example-gpu", "-o", "json").out)["summary"]["pods"] == 0


def test_5000_pods_on_4000_gpus_states_placed_and_not_placed(tmp_path):
    from benchmarks import scenarios

    scenario = scenarios.claim_template(tmp_path, 5000, 500, devices=8)
    r = run("capacity", "--no-config", "-q", scenario.directory)
    assert r.code == 0, r.err
    lines = r.out.strip().splitlines()
    assert lines[-2].startswith("5000 input pod(s): 4000 placed, 1000 not placed; the first, test/")
    assert "0/500 nodes are available: 500 cannot allocate all claims" in lines[-2]
    assert lines[-1] == "500 pool(s), 4000 device(s): 4000 allocated, 0 available, 0 unavailable"
