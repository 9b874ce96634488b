"""The README's code table is generated from the registry and must stay current."""

import functools
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_code_table_is_current():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_readme_codes.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_readme_first_two_commands_are_the_contract():
    text = (ROOT / "README.md").read_text()
    blocks = [b.split("```", 1)[0].strip() for b in text.split("```sh\n")[1:3]]
    assert blocks[0] == "pip install . && dractl allocate --inventory builtin:example-gpu examples/gpu-pod.yaml"
    assert blocks[1] == "pip install '.[test]' && python -m pytest -q"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install --quiet '.[test]' && python -m pytest -q" in ci


# -- every command the documentation shows ----------------------------------------------------
#
# A `$ ` line in a fenced block of README.md or docs/*.md is a command; the lines after it, up to
# the next `$ ` line, are its output (stdout, then stderr). The commands of a block run in order
# in one scratch directory holding a copy of examples/. In expected output, a line `...` stands
# for any number of lines and a line ending in `...` for any line that starts with the rest.
# Commands in other blocks (install steps, CI snippets) are checked for subcommands and options
# that exist.

import os
import re
import shutil

import pytest

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)


def _sessions():
    out = []
    for path in DOCS:
        for block in _FENCE.findall(path.read_text()):
            lines = block.rstrip("\n").split("\n")
            if not lines or not lines[0].startswith("$ "):
                continue
            steps = []
            for line in lines:
                if line.startswith("$ "):
                    steps.append((line[2:], []))
                else:
                    steps[-1][1].append(line)
            out.append(pytest.param(steps, id=f"{path.name}: {steps[0][0][:60]}"))
    return out


def _matches(expected: list[str], actual: list[str]) -> bool:
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(_matches(rest, actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    if head.endswith("...") and len(head) > 3:
        ok = actual[0].startswith(head[:-3].rstrip()) or actual[0] == head
    else:
        ok = actual[0] == head
    return ok and _matches(rest, actual[1:])


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "GITHUB_STEP_SUMMARY")}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


@pytest.mark.parametrize("steps", _sessions())
def test_documented_command_output(steps, tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    for command, expected in steps:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=_env(), capture_output=True,
                              text=True, timeout=300)
        actual = (done.stdout + done.stderr).rstrip("\n").split("\n") if (done.stdout + done.stderr) else []
        while expected and expected[-1] == "":
            expected = expected[:-1]
        assert _matches(expected, actual), f"$ {command}\n--- documented\n" + "\n".join(expected) + \
            "\n--- actual\n" + "\n".join(actual)


def test_there_are_documented_sessions():
    assert len(_sessions()) >= 7


_MENTION = re.compile(r"\bdractl (validate|allocate|env|codes|inventories|completion|version)\b([^\n`'\"|)]*)")


def _mentions():
    seen = []
    for path in DOCS:
        for block in _FENCE.findall(path.read_text()):
            if block.startswith("$ "):
                continue
            for m in _MENTION.finditer(block):
                seen.append((path.name, m.group(1), m.group(2)))
    return seen


@functools.lru_cache(maxsize=None)
def _help(command: str) -> str:
    return subprocess.run([sys.executable, "-m", "dractl", command, "--help"], capture_output=True,
                          text=True, env=_env()).stdout


def test_commands_in_snippets_use_existing_options():
    mentions = _mentions()
    assert len(mentions) >= 10
    for name, command, rest in mentions:
        help_text = _help(command)
        assert "Usage: dractl " + command in help_text, (name, command)
        for option in re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-z])\b", rest):
            assert re.search(rf"(?<![\w-]){re.escape(option)}\b", help_text), f"{name}: dractl {command} {option}"
