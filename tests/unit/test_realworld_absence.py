"""A fresh clone has no third-party corpus: the tests that need it are skipped and the pytest
summary says how many (with the path and how to point at a copy); under CI=true they fail.

Every test module that reads the corpus finds it through tests/realworld_corpus.py (so
`$DRACTL_REALWORLD` is obeyed everywhere and the summary counts every such skip), and one test
of each of those modules runs here without the corpus."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
NEEDS_CORPUS = [
    "tests/cluster/test_inventory_lints.py::test_gpu_test6_index_is_not_published_by_the_a100_dump",
    "tests/cluster/test_inventory_state.py::test_unusable_inventory_object_is_reported_once_with_its_place",
    "tests/fuzz/test_fuzz_seeds.py::test_realworld_manifests_are_fuzz_seeds",
    "tests/integration/test_realworld.py::test_realworld_manifests_on_1_37",
    "tests/integration/test_realworld_demos.py",
    "tests/integration/test_realworld_inventories.py::test_kep4815_counter_slice_is_left_out_once_and_said_so",
    "tests/simulate/test_workloads.py::test_realworld_podgroup_demo",
    "tests/unit/cel/test_parser_differential.py::test_whole_corpus_agrees[realworld]",
    "tests/unit/test_fastread.py::test_realworld_files_read_the_same",
    "tests/unit/test_schema.py::test_realworld_version_subtleties",
]
# Modules that only pass the corpus on (fuzz_seeds.py) or report on it (conftest.py) are
# exercised through the tests that use them.
HELPERS = {"tests/conftest.py", "tests/realworld_corpus.py", "tests/fuzz/fuzz_seeds.py", "tests/unit/test_realworld_absence.py"}
# A path to the corpus built anywhere but realworld_corpus.py: "shared" / "realworld",
# "shared/realworld" at the end of a string, or the environment variable read directly.
OWN_PATH = re.compile(r"""["']shared["']\s*/\s*["']realworld["']|shared/realworld["']|DRACTL_REALWORLD["']""")


def _corpus_modules() -> set[str]:
    found = set()
    for path in sorted(TESTS.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "realworld_corpus" in text or "REALWORLD" in text:
            found.add(path.relative_to(REPO).as_posix())
    return found - HELPERS


def run_pytest(tmp_path, ci: bool):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["DRACTL_REALWORLD"] = str(tmp_path / "no-corpus-here")
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NEEDS_CORPUS],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def test_every_corpus_module_is_run_here():
    assert {node.split("::")[0] for node in NEEDS_CORPUS} == _corpus_modules()


def test_only_realworld_corpus_py_knows_where_the_corpus_is():
    own = [path.relative_to(REPO).as_posix() for path in sorted(TESTS.rglob("*.py"))
           if path.name not in ("realworld_corpus.py", "test_realworld_absence.py")
           and OWN_PATH.search(path.read_text(encoding="utf-8"))]
    assert own == []
    assert OWN_PATH.search('REALWORLD = REPO.parent / "shared" / "realworld"')   # the pattern bites


def test_absent_corpus_is_counted_in_the_summary(tmp_path):
    result = run_pytest(tmp_path, ci=False)
    assert result.returncode == 0, result.stdout[-2000:]
    assert "realworld corpus" in result.stdout
    line = next(l for l in result.stdout.splitlines() if "third-party realworld corpus absent at" in l)
    assert str(tmp_path / "no-corpus-here") in line and "DRACTL_REALWORLD" in line
    last = result.stdout.strip().splitlines()[-1]
    assert "failed" not in last and "passed" not in last, last     # every selected test needs it
    skipped = int(re.search(r"(\d+) skipped", last).group(1))
    assert line.startswith(f"{skipped} test(s) skipped:"), (line, last)
    assert skipped >= len(NEEDS_CORPUS)


def test_absent_corpus_fails_under_ci(tmp_path):
    result = run_pytest(tmp_path, ci=True)
    assert result.returncode == 1, result.stdout[-2000:]
    assert "third-party realworld corpus absent under CI=true" in result.stdout
    last = result.stdout.strip().splitlines()[-1]
    assert "skipped" not in last and "passed" not in last, last
    assert int(re.search(r"(\d+) failed", last).group(1)) >= len(NEEDS_CORPUS)
