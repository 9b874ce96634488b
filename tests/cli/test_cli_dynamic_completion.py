"""What `dractl --install-completion bash` installs completes builtin: inventory names in a real
bash, where COMP_WORDBREAKS splits `builtin:exa` at the colon (Typer's own script sent the split
words and completed nothing; `dractl completion bash` always did)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_subprocess

SESSION = r'''
source "$HOME/.bash_completions/dractl.sh"
ask() {  # ask "<line up to the cursor>": what TAB would offer
    COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
    read -r -a COMP_WORDS <<< "${COMP_LINE//:/ : }"; COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    [[ "$COMP_LINE" == *" " ]] && { COMP_WORDS+=(""); COMP_CWORD=${#COMP_WORDS[@]}; COMP_CWORD=$((COMP_CWORD - 1)); }
    _dractl_completion dractl
    printf '%s\n' "${COMPREPLY[@]}"; echo ---
}
ask "dractl allocate --inventory builtin:exa"
ask "dractl allocate -i builtin:"
ask "dractl validate --ignore DRA100"
ask "dractl validate --kube-version "
'''


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_installed_bash_script_completes_builtin_names(tmp_path):
    env = {"HOME": str(tmp_path), "SHELL": "/bin/bash"}
    installed = run_subprocess("--install-completion", "bash", env=env)
    assert installed.code == 0, installed.err
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    done = subprocess.run(["bash", "-c", SESSION], env={**os.environ, "HOME": str(tmp_path), "PATH": path},
                          capture_output=True, text=True, timeout=120)
    answers = [part.split() for part in done.stdout.split("---\n")[:4]]
    assert answers[0] == ["example-gpu", "example-gpu-partitioned"], done.stdout + done.stderr
    assert "nvidia-mig" in answers[1] and "builtin:nvidia-mig" not in answers[1]
    assert answers[2][:2] == ["DRA1001", "DRA1002"]
    assert answers[3] == ["1.34", "1.35", "1.36", "1.37", "1.38"]
