"""The benchmark generators (benchmarks/) keep producing meaningful scenarios.

At a tiny scale (5 nodes, 20 pods) every scenario shape must be valid and fully schedulable by
the installed `dractl allocate`, so a benchmark can never get fast by silently failing. No
timings are asserted here, ever.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # benchmarks/ is a top-level folder, not part of the package
    sys.path.insert(0, str(REPO))

from benchmarks import runner  # noqa: E402
from benchmarks import scenarios as S  # noqa: E402
from benchmarks.corpus import validation_corpus  # noqa: E402

TINY = {
    "claim_template": lambda o: S.claim_template(o, 20, 5),
    "claim_template_deployment": lambda o: S.claim_template(o, 20, 5, deployment=True),
    "steady_state": lambda o: S.steady_state(o, 40, nodes=5, pods=10, label="tiny"),
    "first_available": lambda o: S.first_available(o, 20, 5),
    "partitionable": lambda o: S.partitionable(o, 5),
    "device_taint": lambda o: S.device_taint(o, 20, 5),
    "extended_resource": lambda o: S.extended_resource(o, 20, 5),
}


def dractl(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("dractl")
    cmd = [exe] if exe else [sys.executable, "-m", "dractl"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRACTL_")}
    return subprocess.run(cmd + list(args), capture_output=True, text=True, encoding="utf-8",
                          cwd=REPO, env=env, timeout=300)


def allocate_json(directory: str) -> tuple[int, dict]:
    proc = dractl("allocate", directory, "-o", "json")
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("shape", sorted(TINY))
def test_tiny_scenario_schedules_everything(tmp_path, shape):
    scenario = TINY[shape](tmp_path)
    code, plan = allocate_json(scenario.directory)
    summary = plan["summary"]
    unscheduled = [(p["name"], [r["message"] for r in p["reasons"]]) for p in plan["pods"]
                   if p["status"] != "Scheduled"]
    assert summary["errors"] == 0, plan["findings"][:3]
    assert summary["pods"] == scenario.pods
    assert summary["scheduled"] == scenario.pods, unscheduled[:3]
    assert code == 0
    # Every pod got its own device: no device is handed out twice, nor one already in use.
    devices = [(r["driver"], r["pool"], r["device"]) for c in plan["claims"] if c["allocation"]
               for r in c["allocation"]["devices"]["results"]]
    assert len(devices) == len(set(devices))
    new = [c for c in plan["claims"] if c["status"] == "Allocated"]
    assert len(new) == scenario.pods


def test_steady_state_keeps_the_inventory(tmp_path):
    scenario = S.steady_state(tmp_path, 45, nodes=5, pods=5, label="almost-full")
    code, plan = allocate_json(scenario.directory)
    assert code == 0
    statuses = [c["status"] for c in plan["claims"]]
    assert statuses.count("AlreadyAllocated") == 45
    assert statuses.count("Allocated") == 5   # exactly the 5 devices left


def test_generated_manifests_are_deterministic(tmp_path):
    for run in ("a", "b"):
        S.steady_state(tmp_path / run, 30, nodes=5, pods=10, label="x")
        S.partitionable(tmp_path / run, 3)
        validation_corpus(tmp_path / run, 300)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.yaml"))
    assert files
    for rel in files:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel


def test_validation_corpus_is_read_and_checked(tmp_path):
    scenario = validation_corpus(tmp_path, 300)
    proc = dractl("validate", scenario.directory, "-o", "json")
    data = json.loads(proc.stdout)
    assert data["summary"]["documents"] == 300
    assert data["summary"]["files"] == 3
    # The deliberate defects are found (exit 1), and most documents are clean.
    assert proc.returncode == 1
    assert 0 < len({(f["file"], f["name"]) for f in data["findings"]}) < 300 // 4


def test_runner_measures_a_tiny_scenario(tmp_path):
    scenario = S.claim_template(tmp_path, 20, 5)
    command, _ = runner.dractl_command()
    result = runner.run_scenario(scenario, 1, command, tmp_path, stages=True, baseline_docs=-1,
                                 log=lambda _: None)
    assert result.problems == []
    assert result.scheduled == 20 and result.claims_allocated == 20
    assert set(result.stages) == {"load", "validate", "simulate", "report"}
    assert len(result.runs) == 1 and result.runs[0].rc == 0
    text = runner.table([result])
    assert scenario.name in text and "vs 50 pods/s" in text


def test_micro_measurements_run(tmp_path):
    from benchmarks import micro

    allocation = micro.allocation_us(batches=1, per_batch=20)  # raises if the claim does not fit
    assert allocation["us_median"] > 0 and allocation["allocations"] == 20
    command, _ = runner.dractl_command()
    startup = micro.startup_ms(command, runs=1)                # raises if a command fails
    assert set(startup) == {"python -c pass", "dractl --version", "dractl validate FILE",
                            "dractl validate FILE -o json"}


def test_targets_report_linearity_from_the_series(tmp_path):
    def fake(pods: int, work: float) -> runner.Result:
        s = S.Scenario(f"claim_template_{pods}pods_{pods // 10}nodes", "allocate", "", str(tmp_path),
                       pods // 10, pods, 0)
        stages = {"load": work / 4, "validate": work / 4, "simulate": work / 4, "report": work / 4}
        return runner.Result(s, runs=[runner.Run(work + 0.3, work + 0.3, 50.0, 0)],
                             stages=stages, stages_cpu=stages, work_cpu=work)

    linear = runner.targets([fake(1000, 0.3), fake(2000, 0.62), fake(5000, 1.5)])
    assert any("cost grows linearly" in line and line.rstrip().endswith(")") and "-> MET" in line
               for line in linear), linear
    quadratic = runner.targets([fake(1000, 0.3), fake(2000, 0.9), fake(5000, 4.0)])
    assert any("cost grows linearly" in line and "NOT MET" in line for line in quadratic)


def test_overcommitted_scenario_explains_the_pods_that_do_not_fit(tmp_path):
    scenario = S.overcommitted(tmp_path, 40, 2)
    code, plan = allocate_json(scenario.directory)
    assert code == 1 and plan["summary"]["scheduled"] == 20 and plan["summary"]["pods"] == 40
    pending = [p for p in plan["pods"] if p["status"] != "Scheduled"]
    assert len(pending) == 20
    for pod in pending:  # every one carries its own claim's name in the explanation
        claim = pod["claims"][0]["resourceClaimName"]
        assert any(claim in line for r in pod["reasons"] for line in r.get("details", [])), pod
