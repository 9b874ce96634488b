"""dractl's shortcuts (dractl/simulate/shortcuts.py) never change a result: every golden scenario
and every benchmark scenario shape at its smoke size gives byte-identical output with the
shortcuts on and with DRACTL_NO_SHORTCUTS=1 (everything computed for every pod)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dractl.cli.app import app

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # benchmarks/ is a top-level folder, not part of the package
    sys.path.insert(0, str(REPO))

from benchmarks import scenarios as S  # noqa: E402

GOLDEN = sorted((REPO / "tests" / "golden" / "scenarios").glob("*.yaml"))

# The benchmark suite's shapes at the size tests/unit/test_benchmarks.py runs them, plus the
# overcommitted and full steady-state shapes (unschedulable pods: failure reuse, explanations).
SMOKE = {
    "claim_template": lambda o: S.claim_template(o, 20, 5),
    "claim_template_deployment": lambda o: S.claim_template(o, 20, 5, deployment=True),
    "steady_state": lambda o: S.steady_state(o, 40, nodes=5, pods=10, label="tiny"),
    "steady_state_full": lambda o: S.steady_state(o, 49, nodes=5, pods=10, label="full"),
    "first_available": lambda o: S.first_available(o, 20, 5),
    "partitionable": lambda o: S.partitionable(o, 5),
    "device_taint": lambda o: S.device_taint(o, 20, 5),
    "extended_resource": lambda o: S.extended_resource(o, 20, 5),
    "overcommitted": lambda o: S.overcommitted(o, 80, 5),
}


def run(monkeypatch, argv: list[str], shortcuts: bool) -> tuple[int, str]:
    if shortcuts:
        monkeypatch.delenv("DRACTL_NO_SHORTCUTS", raising=False)
    else:
        monkeypatch.setenv("DRACTL_NO_SHORTCUTS", "1")
    result = CliRunner().invoke(app, argv, catch_exceptions=False)
    return result.exit_code, result.stdout


def both(monkeypatch, argv: list[str]) -> None:
    fast = run(monkeypatch, argv, True)
    slow = run(monkeypatch, argv, False)
    assert fast[1], f"no output from dractl {' '.join(argv)}"
    assert fast == slow, f"dractl {' '.join(argv)}: output differs without the shortcuts"


def golden_args(path: Path) -> list[str]:
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    return shlex.split(first[len("# args:"):])


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_scenario_same_without_shortcuts(path, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("DRACTL_DEBUG", raising=False)
    args = golden_args(path) + ["--no-config"]
    rel = str(path.relative_to(REPO))
    for fmt in ("text", "json"):
        extra = ["--no-color"] if fmt == "text" else []
        if args[0] == "allocate" and fmt == "text" and "--explain" not in args:
            extra += ["--explain", "*"]  # every node's verdict and explanation too
        both(monkeypatch, args + ["-o", fmt] + extra + [rel])


@pytest.mark.parametrize("shape", sorted(SMOKE))
@pytest.mark.parametrize("order", ["first", "least-allocated", "most-allocated"])
def test_benchmark_scenario_same_without_shortcuts(shape, order, tmp_path, monkeypatch):
    scenario = SMOKE[shape](tmp_path)
    base = ["allocate", scenario.directory, "--no-config", "--node-order", order, *scenario.args]
    both(monkeypatch, base + ["-o", "json"])
    both(monkeypatch, base + ["-o", "text", "--no-color", "--explain", "*"])
