"""`pytest -q` prints progress and results only: no test writes around pytest's capture, and the
session summaries of the suite (the fuzz case count) stay out of quiet runs. The realworld-corpus
summary is the one exception, on purpose: it says that part of the suite did not run
(tests/unit/test_realworld_absence.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve()
AROUND_CAPTURE = re.compile(r"capsys\.disabled\(|capfd\.disabled\(|sys\.__stdout__|sys\.__stderr__")
# Tests that used to print (timings, fuzz counts), run here the way the suite runs them.
PRINTED = [
    "tests/simulate/test_groupbacktrack.py::test_gang_of_16_pods_on_500_nodes",
    "tests/simulate/test_groupconstraints.py::test_gang_of_16_pods_on_500_nodes_finishes",
    "tests/fuzz/test_fuzz_loader.py::test_parse_source_never_raises",
]
PROGRESS = re.compile(r"^[.sxXFE]+\s*\[\s*\d+%\]$")
RESULT = re.compile(r"^\d+ passed( in [\d.]+s)?(\s*\(.*\))?$")


def test_no_test_writes_around_the_capture():
    found = [f"{path.relative_to(REPO)}:{text.count(chr(10), 0, m.start()) + 1}"
             for path in sorted((REPO / "tests").rglob("*.py")) if path != THIS
             for text in [path.read_text(encoding="utf-8")] for m in AROUND_CAPTURE.finditer(text)]
    assert found == []


def test_quiet_run_prints_progress_and_result_only():
    env = {**os.environ, "DRACTL_FUZZ_EXAMPLES": "5"}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *PRINTED],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:]
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert lines and RESULT.match(lines[-1]), lines
    assert [line for line in lines[:-1] if not PROGRESS.match(line)] == []
    assert result.stderr == ""
