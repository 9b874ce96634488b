"""A fresh clone has no third-party corpus: the tests that need it are skipped and the pytest
summary says so (with the path and how to point at a copy); under CI=true they fail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NEEDS_CORPUS = ["tests/integration/test_realworld_demos.py", "tests/unit/test_schema.py::test_realworld_version_subtleties"]


def run_pytest(tmp_path, ci: bool):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["DRACTL_REALWORLD"] = str(tmp_path / "no-corpus-here")
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NEEDS_CORPUS],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def test_absent_corpus_is_named_in_the_summary(tmp_path):
    result = run_pytest(tmp_path, ci=False)
    assert result.returncode == 0, result.stdout[-2000:]
    assert "realworld corpus" in result.stdout
    line = next(l for l in result.stdout.splitlines() if "third-party realworld corpus absent at" in l)
    assert str(tmp_path / "no-corpus-here") in line and "DRACTL_REALWORLD" in line
    last = result.stdout.strip().splitlines()[-1]
    assert " skipped" in last and "failed" not in last


def test_absent_corpus_fails_under_ci(tmp_path):
    result = run_pytest(tmp_path, ci=True)
    assert result.returncode == 1, result.stdout[-2000:]
    assert "third-party realworld corpus absent under CI=true" in result.stdout
    assert "skipped" not in result.stdout.splitlines()[-1]
