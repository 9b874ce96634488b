"""The shipped examples run clean against the inventory each names on its first line: no
warning or error from `allocate` or `env` (examples teach; a warning in one teaches users to
ignore warnings). broken.yaml is the deliberate exception; nine-gpus.yaml is a deliberately
unschedulable pod (exit 1, but no finding)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (REPO / "examples").glob("*.yaml") if p.name != "broken.yaml")
UNSCHEDULABLE = {"nine-gpus.yaml"}


def inventory_of(path: Path) -> str:
    match = re.match(r"# Inventory: (builtin:[a-z0-9-]+)", path.read_text().splitlines()[0])
    assert match, f"{path.name}: the first line names no inventory"
    return match.group(1)


def dractl(*args) -> tuple[int, dict]:
    import io
    import sys

    from dractl.cli.app import main

    out = io.StringIO()
    saved = sys.argv, sys.stdout
    sys.argv, sys.stdout = ["dractl", *args], out
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.argv, sys.stdout = saved
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize("command", ["allocate", "env"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_without_warnings(path, command):
    code, result = dractl(command, "-i", inventory_of(path), str(path.relative_to(REPO)), "-o", "json")
    noisy = [(f["code"], f["message"]) for f in result["findings"] if f["severity"] != "info"]
    assert noisy == []
    if command == "allocate":
        assert code == (1 if path.name in UNSCHEDULABLE else 0)
        scheduled = {p["status"] for p in result["pods"]}
        assert scheduled == ({"Unschedulable"} if path.name in UNSCHEDULABLE else {"Scheduled"})
