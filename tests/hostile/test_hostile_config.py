"""A `.dractl.yaml` arrives with the pull request like any manifest: hostile content in it ends
in a clear usage error (exit status 2), never a crash or a hang."""

from __future__ import annotations

import pytest
from cli_harness import assert_ok, run_inproc, run_subprocess

GOOD = b"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: Not_A_Name}\n"

CONFIGS = {
    "alias-bomb": b"exclude: &a [x, x, x, x, x, x, x, x, x, x]\nignore: [*a, *a, *a, *a, *a]\n",
    "deep": b"x: " + b"[" * 10_000 + b"]" * 10_000 + b"\n",
    "binary": bytes(range(256)) * 10,
    "latin-1": "exclude: [café]\n".encode("latin-1"),
    "control": b"exclude: [\"\x1b[31m\"]\n",
    "not-a-map": b"- a\n- b\n",
    "wrong-types": b"kubeVersion: [1]\nstrict: maybe\nignore: 5\n",
    "huge": b"ignore: [" + b"DRA0001," * 200_000 + b"DRA0001]\n",
    "big-int": b"kubeVersion: " + b"9" * 5000 + b"\n",
    "bad-globs": b"exclude: ['[', '[!', 'a[]b', '\\\\', '**/**', '']\n",
    "escape-in-gate": b"featureGates: {\"\\e[31mX\": true}\n",
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_hostile_config_file(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".dractl.yaml").write_bytes(CONFIGS[name])
    (tmp_path / "m.yaml").write_bytes(GOOD)
    # every command reads the file the same way; the cheap configs go through all three
    commands = ["validate"] if len(CONFIGS[name]) > 10_000 else ["validate", "allocate", "env"]
    for command in commands:
        run = run_inproc([command, "m.yaml"], time_limit=120)  # runaway guard, not a speed target
        assert_ok(run)
        assert run.code in (1, 2)


def test_catastrophic_glob_in_config(tmp_path):
    """Was (dractl/config.py): globs compiled for Python's backtracking `re`, so
    `**/**/**/...` or `*a*a*a...` against a deep path took hours; now RE2."""
    deep = tmp_path.joinpath(*["a"] * 25)
    deep.mkdir(parents=True)
    (deep / "b.yaml").write_bytes(GOOD)
    (tmp_path / ".dractl.yaml").write_text("exclude: ['" + "**/" * 12 + "nomatch.yaml', '"
                                           + "*a" * 14 + "z']\n")
    run = run_subprocess(["validate", "a"], cwd=tmp_path, timeout=60)  # backtracking takes hours
    assert_ok(run)
    assert run.code == 1
