"""Text output on a real terminal (a pseudo-terminal at 80 and 160 columns, through the
installed `dractl` entry point): lines are fitted to the width, never cut. Every character the
same command prints to a pipe (where nothing is wrapped) is on the terminal too, in order;
long tree labels continue indented under their guides, and a finding that does not fit puts its
message on its own indented lines."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import unicodedata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)")
_GUIDES = str.maketrans("", "", "│├└─ \t\r\n")


def entry_point() -> list[str]:
    installed = Path(sys.executable).with_name("dractl")
    if installed.exists():
        return [str(installed)]
    found = shutil.which("dractl")
    assert found, "the dractl entry point is not installed (pip install -e .)"
    return [found]


def on_terminal(args: list[str], columns: int, env: dict | None = None) -> tuple[int, str]:
    """Run dractl with stdout and stderr on a pseudo-terminal of `columns` columns."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    full_env.update({"TERM": "xterm-256color", **(env or {})})
    proc = subprocess.Popen(entry_point() + args, stdin=slave, stdout=slave, stderr=slave,
                            cwd=REPO, env=full_env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = proc.wait(timeout=120)
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    return code, _ANSI.sub("", text)


def piped(args: list[str]) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run(entry_point() + args, capture_output=True, text=True, cwd=REPO,
                          env=env).stdout


def cells(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1
               for c in line)


COMMANDS = [
    ["allocate", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml"],
    ["allocate", "-i", "builtin:example-gpu", "examples/nine-gpus.yaml", "--explain", "*"],
    ["allocate", "-i", "builtin:nvidia-mig", "examples/mig.yaml"],
    ["allocate", "-i", "builtin:example-gpu", "examples/broken.yaml"],
    ["validate", "examples/broken.yaml"],
    ["env", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml"],
]


@pytest.mark.parametrize("columns", [80, 160])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:4]))
@pytest.mark.parametrize("color", [[], ["--no-color"]], ids=["color", "no-color"])
def test_no_line_loses_text(args, columns, color):
    code, shown = on_terminal(args + color, columns)
    expected = piped(args)
    assert code in (0, 1), shown
    lines = shown.rstrip("\n").split("\n")
    too_long = [line for line in lines if cells(line) > columns]
    assert too_long == [], too_long
    # Breaks only add line ends and indentation: the printed characters are the same.
    assert shown.translate(_GUIDES) == expected.translate(_GUIDES)


def test_tree_labels_continue_indented_under_their_guides():
    _, shown = on_terminal(COMMANDS[0], 80)
    lines = shown.split("\n")
    head = next(i for i, line in enumerate(lines) if line.startswith("pod default/inference-"))
    assert lines[head].endswith("Scheduled on")
    # the pod has children: the guide continues, and the text is indented past it
    assert lines[head + 1] == "│     dra-example-driver-cluster-worker"


def test_validate_message_on_its_own_indented_lines():
    _, shown = on_terminal(["validate", "examples/broken.yaml"], 80)
    lines = [line for line in shown.split("\n") if line]
    header = next(i for i, line in enumerate(lines) if line.startswith("examples/broken.yaml:17:7"))
    assert lines[header].split() == ["examples/broken.yaml:17:7", "DRA1002", "error"]
    body = []
    for line in lines[header + 1:]:
        if not line.startswith("    "):
            break
        body.append(line.strip())
    assert " ".join(body).startswith('spec.devices.requests[0].name: Invalid value: "GPU_0": a '
                                     "lowercase RFC 1123 label")
    assert body[-1].endswith("(ResourceClaim broken-claim)")


def test_one_layout_for_every_finding_of_a_report():
    # At 200 columns some findings of broken.yaml fit on one line and others do not: they used
    # to alternate between one-line and two-line layouts. Now every finding has the same one.
    _, shown = on_terminal(["validate", "examples/broken.yaml"], 200)
    lines = shown.split("\n")
    headers = [line for line in lines if line.startswith("examples/broken.yaml:")]
    assert len(headers) == 13
    assert all(line.rstrip().endswith(("error", "warning")) for line in headers), headers
    assert "examples/broken.yaml:22:9  DRA1009  error" in lines


def test_wide_terminal_keeps_findings_on_one_line_when_all_fit(tmp_path):
    (tmp_path / "c.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                                     "spec:\n  devices:\n    requests:\n    - name: r\n      exactly:\n"
                                     "        deviceClassName: x\n        count: -1\n")
    _, shown = on_terminal(["validate", str(tmp_path / "c.yaml"), "--ignore", "DRA2003"], 250)
    assert any(line.endswith("spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater "
                              "than zero  (ResourceClaim c)") for line in shown.split("\n"))


def test_env_values_continue_indented():
    _, shown = on_terminal(["env", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml"], 80)
    lines = shown.split("\n")
    first = lines.index("  server: GPU_UUID=gpu-18db0e85-99e9-c746-8531-ffeb86328b39   from")
    assert lines[first + 1] == "      gpu.example.com/dra-example-driver-cluster-worker/gpu-0"
