"""Exit codes 0/1/2, never a traceback, through the console entry point."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from cli_helpers import CLAIM_OK, run_subprocess

FORMATS = {"validate": ["text", "json", "junit", "sarif", "github"],
           "allocate": ["text", "json", "yaml", "junit", "sarif", "github"]}


def well_formed(fmt: str, out: str) -> None:
    if fmt in ("json", "sarif"):
        json.loads(out)
    elif fmt == "junit":
        ET.fromstring(out.encode())
    elif fmt == "github":
        assert all(line.startswith("::") for line in out.splitlines())
    elif fmt == "yaml":
        import yaml

        list(yaml.safe_load_all(out))
    assert "\x1b" not in out


@pytest.mark.parametrize("command", sorted(FORMATS))
def test_every_format_on_hostile_input(dractl, tree, command):
    for fmt in FORMATS[command]:
        extra = ("-i", "builtin:example-gpu") if command == "allocate" else ()
        result = dractl(command, tree.name, *extra, "-o", fmt, cwd=tree.parent)
        assert result.code == 1, (fmt, result.err)
        assert "Traceback" not in result.err and "internal error" not in result.err
        well_formed(fmt, result.out)


def test_exit_codes(dractl, tmp_path):
    (tmp_path / "ok.yaml").write_text(CLAIM_OK)
    assert dractl("validate", "ok.yaml", cwd=tmp_path).code == 0
    assert dractl("validate", "ok.yaml", "missing.yaml", "-o", "junit", cwd=tmp_path).code == 2
    assert dractl("validate", "ok.yaml", "-o", "xml", cwd=tmp_path).code == 2
    assert dractl("validate", "ok.yaml", "--kube-version", "1.20", cwd=tmp_path).code == 2
    assert dractl("validate", "ok.yaml", "--feature-gates", "Bogus=true", cwd=tmp_path).code == 2
    assert dractl("allocate", "ok.yaml", "-i", "builtin:nope", cwd=tmp_path).code == 2
    assert dractl("allocate", cwd=tmp_path).code == 2


def test_console_script_smoke(tmp_path):
    (tmp_path / "ok.yaml").write_text(CLAIM_OK)
    result = run_subprocess("validate", "ok.yaml", "-o", "sarif", cwd=tmp_path)
    assert result.code == 0 and json.loads(result.out)["version"] == "2.1.0"
    help_text = run_subprocess("validate", "--help").out
    for option in ("--jobs", "--config", "--golden", "--exclude", "junit", "sarif", "github"):
        assert option in help_text


def test_broken_pipe_is_quiet(tmp_path):
    for i in range(300):
        (tmp_path / f"c{i}.yaml").write_text(CLAIM_OK.replace("name: good", f"name: good-{i}"))
    cmd = f"{sys.executable} -m dractl validate . -o sarif --jobs 2 | head -c 10 >/dev/null"
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr


def test_pre_commit_hooks_run(dractl, tmp_path):
    import yaml
    from cli_helpers import REPO

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"dractl-validate", "dractl-allocate"}
    (tmp_path / "ok.yaml").write_text(CLAIM_OK)
    for hook in hooks:
        assert hook["language"] == "python" and hook["require_serial"] is True
        argv = hook["entry"].split()
        assert argv[0] == "dractl"
        extra = ["--inventory", "builtin:example-gpu"] if argv[1] == "allocate" else []
        result = dractl(*argv[1:], *extra, "ok.yaml", cwd=tmp_path)  # pre-commit appends file names
        assert result.code == 0, (hook["id"], result.out, result.err)


def test_codes_formats(dractl):
    text = dractl("codes").out
    table = json.loads(dractl("codes", "-o", "json").out)
    markdown = dractl("codes", "-o", "markdown").out.splitlines()
    assert len(table) == len(text.splitlines()) == len(markdown) - 2
    assert {"DRA0001", "DRA5001"} <= {row["code"] for row in table}
    assert markdown[0].startswith("| Code |")
