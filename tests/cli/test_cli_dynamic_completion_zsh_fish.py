"""What `dractl --install-completion zsh|fish` installs, run in the real shells: dynamic values
for options (choices, finding codes, builtin: inventories), option and command names, file
names where dractl has no candidate, `--option=value`, one-line descriptions. The shells are
optional on a developer machine: without one, its tests are skipped (and say so)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import REPO, run_subprocess

VERSIONS = ["1.34", "1.35", "1.36", "1.37", "1.38"]
NO_DETECTION = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}

# zsh HARNESS FPATH_DIR OUTFILE LINE...: an interactive zsh on a pseudo-terminal (zpty) with
# compinit and the installed _dractl on its fpath; for each LINE it presses TAB at the end and
# appends to OUTFILE every match the completion system adds (compadd -O: the real matching),
# then "<END>" once the widget has finished.
ZSH_HARNESS = r"""
zmodload zsh/zpty
dir=$1 out=$2; shift 2
: > $out
zpty z zsh -f -i
zpty -w z "PS1='%% '; setopt no_auto_list no_beep; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "compadd() { local -a __m; builtin compadd -O __m \"\$@\"; (( \$#__m )) && print -rl -- \${^__m} >> ${(q)out}; builtin compadd \"\$@\"; }"
zpty -w z "_t_tab() { zle complete-word; print -r -- '<END>' >> ${(q)out}; }; zle -N _t_tab; bindkey '^I' _t_tab"
integer n=0 tries
for line in "$@"; do
  (( n++ ))
  zpty -n -w z "$line"$'\t'
  tries=0
  while (( tries++ < 1200 )) && [[ $(grep -c '^<END>$' $out) -lt $n ]]; do
    zpty -r -t z chunk 2>/dev/null; sleep 0.05
  done
  zpty -n -w z $'\C-e\C-u'
done
zpty -w z "exit"
zpty -d z
"""

LINES = [
    "dractl validate --kube-version ",
    "dractl validate --kube-version=1.3",
    "dractl allocate -i builtin:nv",
    "dractl validate --ignore DRA100",
    "dractl ",
    "dractl validate --no-c",
    "dractl validate exa",
    "dractl allocate -i ./exa",
    "dractl allocate --inventory ",
]


def _path_env(home: Path) -> dict:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return {**os.environ, "HOME": str(home), "PATH": path}


def _install(shell: str, home: Path) -> Path:
    done = run_subprocess("--install-completion", shell, env={"HOME": str(home), **NO_DETECTION})
    assert done.code == 0, done.err
    installed = {"zsh": home / ".zfunc" / "_dractl",
                 "fish": home / ".config" / "fish" / "completions" / "dractl.fish"}[shell]
    assert "_DRACTL_COMPLETE=complete_" + shell in installed.read_text()
    return installed


def _groups(text: str) -> list[list[str]]:
    groups = []
    for part in text.split("<END>\n")[:-1]:
        groups.append(list(dict.fromkeys(line for line in part.splitlines() if line)))
    return groups


def _check(answers: list[list[str]], shell: str) -> None:
    kube, kube_eq, builtin, codes, commands, options, files, inventory_file, inventories = answers
    assert kube == VERSIONS
    # zsh moves "--kube-version=" out of the word it matches; fish wants the whole word
    assert kube_eq == (VERSIONS if shell == "zsh" else [f"--kube-version={v}" for v in VERSIONS])
    assert builtin == ["builtin:nvidia-gpu", "builtin:nvidia-mig"]
    assert codes and all(c.startswith("DRA100") for c in codes) and "DRA1001" in codes
    assert {"validate", "allocate", "env", "capacity"} <= set(commands)
    assert sorted(options) == ["--no-color", "--no-config"]
    assert [f.rstrip("/") for f in files] == ["examples"]             # no candidate: file names
    # zsh's _files keeps the typed "./" out of the match, fish prints the whole word
    assert [f.rstrip("/").removeprefix("./") for f in inventory_file] == ["examples"]
    assert inventories and all(i.startswith("builtin:") for i in inventories)  # one line each


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh not installed: zsh completion not run")
def test_installed_zsh_completion_in_real_zsh(tmp_path):
    installed = _install("zsh", tmp_path)
    harness, out = tmp_path / "harness.zsh", tmp_path / "matches"
    harness.write_text(ZSH_HARNESS)
    done = subprocess.run(["zsh", "-f", str(harness), str(installed.parent), str(out), *LINES],
                          cwd=REPO, env=_path_env(tmp_path), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    answers = _groups(out.read_text())
    assert len(answers) == len(LINES), out.read_text()
    _check(answers, "zsh")


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish not installed: fish completion not run")
def test_installed_fish_completion_in_real_fish(tmp_path):
    installed = _install("fish", tmp_path)
    script = f"source {installed}; " + "; ".join(f"complete -C '{line}'; echo '<END>'" for line in LINES)
    done = subprocess.run(["fish", "--no-config", "-c", script], cwd=REPO, env=_path_env(tmp_path),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    answers = [[line.split("\t")[0] for line in group] for group in _groups(done.stdout)]
    assert len(answers) == len(LINES), done.stdout
    _check(answers, "fish")
    described = _groups(done.stdout)[2]
    assert described[0].startswith("builtin:nvidia-gpu\tNVIDIA DRA driver")


def test_candidate_lines_are_one_line_each():
    from types import SimpleNamespace as Item

    from dractl.cli.completion import candidate_lines

    items = [Item(value="builtin:x", help="two\nlines  of help", type="plain"),
             Item(value="1.34", help=None, type="plain"),
             Item(value="ignored", help="", type="file")]
    assert candidate_lines(items) == ["builtin:x\ttwo lines of help", "1.34"]


def test_zsh_and_fish_ask_dractl_for_one_line_candidates():
    env = {"_DRACTL_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": "dractl allocate --inventory "}
    zsh = run_subprocess(env=env)
    assert zsh.code == 0
    lines = [line for line in zsh.out.splitlines() if line]
    assert lines and all(line.startswith("builtin:") and line.count("\t") == 1 for line in lines)
    env = {"_DRACTL_COMPLETE": "complete_fish", "_TYPER_COMPLETE_ARGS": "dractl validate --kube-version "}
    assert run_subprocess(env=env).out.split() == VERSIONS
