"""Numeric options are validated before anything runs: `inf`, `nan`, negative values and values
beyond what the platform's timers or reads take are usage errors (exit 2, one line naming the
option), never a traceback of a timer thread nor a limit that silently never fires."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cli_helpers import REPO, run

EXAMPLE = str(REPO / "examples" / "gpu-pod.yaml")
BAD_SECONDS = ["inf", "-inf", "nan", "1e300", str(int(threading.TIMEOUT_MAX) + 10), "0", "-1"]


@pytest.mark.parametrize("value", BAD_SECONDS)
@pytest.mark.parametrize("command,option", [("validate", "--deadline"), ("allocate", "--deadline"),
                                            ("env", "--deadline"), ("capacity", "--deadline"),
                                            ("allocate", "--timeout"), ("env", "--timeout"),
                                            ("capacity", "--timeout")])
def test_bad_seconds_are_a_usage_error(command, option, value, tmp_path):
    args = [command, EXAMPLE, f"{option}={value}", "--no-config"]
    if command != "validate":
        args += ["-i", "builtin:example-gpu"]
    result = run(*args, cwd=tmp_path)
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.err and "internal error" not in result.err
    assert result.err.startswith(f"dractl: {option}") and result.err.count("\n") == 1, result.err
    assert result.out == ""


def test_largest_timer_is_still_accepted(tmp_path):
    limit = f"{threading.TIMEOUT_MAX:.0f}"
    result = run("allocate", EXAMPLE, "-i", "builtin:example-gpu", "--deadline", limit,
                 "--timeout", limit, "--no-config", cwd=tmp_path)
    assert result.code == 0, result.err
    assert result.err == ""


@pytest.mark.parametrize("value", ["99999999999999999999G", "9223372036854775807"])
def test_max_file_size_beyond_a_read_is_a_usage_error(value, tmp_path):
    result = run("validate", EXAMPLE, "--max-file-size", value, "--no-config", cwd=tmp_path)
    assert result.code == 2, result.err
    assert result.err.startswith("dractl: --max-file-size") and "internal error" not in result.err


def test_installed_entry_point_refuses_deadline_inf(tmp_path):
    installed = Path(sys.executable).parent / "dractl"
    command = [str(installed)] if installed.exists() else [shutil.which("dractl") or "dractl"]
    proc = subprocess.run([*command, "validate", EXAMPLE, "--deadline", "inf", "--no-config"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == "dractl: --deadline inf: not a finite number of seconds\n"
