"""Shell completions: committed scripts are current, and they complete what they should."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from cli_helpers import REPO, run_subprocess

SCRIPTS = {"bash": "dractl.bash", "zsh": "dractl.zsh", "fish": "dractl.fish"}


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_committed_completion_script_is_current(shell):
    from dractl.cli.completion import render

    committed = (REPO / "completions" / SCRIPTS[shell]).read_text(encoding="utf-8")
    assert committed == render(shell), (
        f"completions/{SCRIPTS[shell]} is stale: run `python scripts/gen_completions.py`")


def test_generator_check_mode(tmp_path):
    script = REPO / "scripts" / "gen_completions.py"
    ok = subprocess.run([os.sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    for name in SCRIPTS.values():
        (tmp_path / name).write_text("# old\n")
    stale = subprocess.run([os.sys.executable, str(script), "--check", "--dir", str(tmp_path)],
                           capture_output=True, text=True)
    assert stale.returncode == 1 and "stale" in stale.stderr
    subprocess.run([os.sys.executable, str(script), "--dir", str(tmp_path)], check=True,
                   capture_output=True)
    assert (tmp_path / "dractl.zsh").read_text() == (REPO / "completions" / "dractl.zsh").read_text()


def test_completion_command_prints_the_same_scripts(dractl):
    for shell, name in SCRIPTS.items():
        result = dractl("completion", shell)
        assert result.code == 0
        assert result.out == (REPO / "completions" / name).read_text(encoding="utf-8")


def test_scripts_mention_every_command_option_and_value():
    from dractl.cli.common import all_codes
    from dractl.cli.completion import model
    from dractl.inventories import list_inventories

    m = model()
    names = {c.name for c in m.commands}
    assert {"validate", "allocate", "env", "codes", "inventories", "completion", "version"} <= names
    for shell, file in SCRIPTS.items():
        text = (REPO / "completions" / file).read_text(encoding="utf-8")
        for c in m.commands:
            assert c.name in text
            for o in c.options:
                for n in o.names:
                    assert (n.lstrip("-") if shell == "fish" else n) in text, (shell, c.name, n)
        for code in ("DRA0001", all_codes()[-1].code):
            assert code in text
        for name, _ in list_inventories():
            assert f"builtin:{name}" in text or f"builtin\\:{name}" in text
        assert "1.34" in text and "1.37" in text and "junit" in text and "sarif" in text


BASH_HARNESS = r"""
source "$1"
COMP_WORDBREAKS=$' \t\n"'"'"'><=;|&(:'
t() {
  COMP_LINE="$1"; COMP_POINT=${#1}; COMPREPLY=()
  _dractl
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
  echo
}
t "dractl va"
t "dractl validate --kube-version "
t "dractl validate --kube-version=1.3"
t "dractl validate --ignore DRA000"
t "dractl allocate -i builtin:example-"
t "dractl allocate -o "
t "dractl validate --no-c"
t "dractl completion "
t "dractl allocate --node "
t "dractl --vers"
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_bash_completion_behaviour(tmp_path):
    harness = tmp_path / "t.sh"
    harness.write_text(BASH_HARNESS)
    out = subprocess.run(["bash", "--norc", str(harness), str(REPO / "completions" / "dractl.bash")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["validate"]
    assert lines[1].split() == ["1.34", "1.35", "1.36", "1.37", "1.38"]
    assert lines[2].split() == ["1.34", "1.35", "1.36", "1.37", "1.38"]
    assert "DRA0001" in lines[3].split() and all(w.startswith("DRA000") for w in lines[3].split())
    # bash completes only after the last ':' of the word
    assert lines[4].split() == ["example-gpu", "example-gpu-partitioned"]
    assert lines[5].split() == ["concise", "github", "gitlab", "html", "json", "junit", "sarif", "text",
                                "yaml"]
    assert lines[6].split() == ["--no-color", "--no-config"]
    assert lines[7].split() == ["bash", "fish", "zsh"]
    assert lines[8].split() == []
    assert lines[9].split() == ["--version"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish not installed")
def test_fish_completion_behaviour():
    script = REPO / "completions" / "dractl.fish"
    out = subprocess.run(
        ["fish", "--no-config", "-c", f"source {script}; "
         "complete -C 'dractl validate --kube-version '; echo ---; "
         "complete -C 'dractl allocate -i builtin:nvidia'; echo ---; "
         "complete -C 'dractl validate --ignore DRA100'; echo ---; complete -C 'dractl '"],
        capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    parts = [[line.split("\t")[0] for line in p.strip().splitlines()] for p in out.stdout.split("---")]
    assert parts[0] == ["1.34", "1.35", "1.36", "1.37", "1.38"]
    assert {"builtin:nvidia-gpu", "builtin:nvidia-mig"} <= set(parts[1])
    assert parts[2] and all(c.startswith("DRA100") for c in parts[2])
    assert {"validate", "allocate", "env"} <= set(parts[3])


@pytest.mark.parametrize("shell,check", [("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]),
                                         ("fish", ["fish", "--no-execute"])])
def test_scripts_parse_in_their_shell(shell, check):
    if shutil.which(check[0]) is None:
        pytest.skip(f"{shell} not installed")
    out = subprocess.run(check + [str(REPO / "completions" / SCRIPTS[shell])], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def test_typer_dynamic_completion_completes_values():
    """What `dractl --install-completion` installs calls back into dractl: same values."""
    env = {"_DRACTL_COMPLETE": "complete_bash", "COMP_WORDS": "dractl validate --ignore DRA100",
           "COMP_CWORD": "3"}
    codes = run_subprocess(env=env)
    assert codes.code == 0 and "DRA1001" in codes.out.split()
    env = {"_DRACTL_COMPLETE": "complete_bash", "COMP_WORDS": "dractl allocate --inventory builtin:",
           "COMP_CWORD": "3"}
    inventories = run_subprocess(env=env)
    assert "builtin:example-gpu" in inventories.out.split()
    env = {"_DRACTL_COMPLETE": "complete_bash", "COMP_WORDS": "dractl validate --kube-version ",
           "COMP_CWORD": "3"}
    assert run_subprocess(env=env).out.split() == ["1.34", "1.35", "1.36", "1.37", "1.38"]


def test_install_completion(tmp_path):
    env = {"HOME": str(tmp_path), "SHELL": "/bin/bash"}
    shown = run_subprocess("--show-completion", "bash", env=env)
    assert shown.code == 0 and "_DRACTL_COMPLETE=complete_bash" in shown.out
    installed = run_subprocess("--install-completion", "bash", env=env)
    assert installed.code == 0, installed.err
    assert "_DRACTL_COMPLETE" in "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
