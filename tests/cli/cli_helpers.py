"""Helpers for the CLI tests: running dractl in this process through the real entry point
(fast), or as a subprocess where the process boundary matters; sample manifest trees."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"


@dataclass
class Result:
    code: int
    out: str
    err: str


def _run_in_process(args, cwd, stdin: bytes | None, env: dict | None) -> Result:
    from dractl.cli.app import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    inp = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
    saved = sys.argv, sys.stdout, sys.stderr, sys.stdin, os.getcwd(), dict(os.environ)
    sys.argv = ["dractl", *map(str, args)]
    sys.stdout, sys.stderr, sys.stdin = out, err, inp
    os.environ.pop("NO_COLOR", None)
    os.environ.update(env or {})
    if cwd is not None:
        os.chdir(cwd)
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv, sys.stdout, sys.stderr, sys.stdin, cwd_before, environ = saved
        os.chdir(cwd_before)
        os.environ.clear()
        os.environ.update(environ)
    out.flush()
    err.flush()
    return Result(code, out.buffer.getvalue().decode("utf-8"), err.buffer.getvalue().decode("utf-8"))


def run(*args, cwd=None, stdin: bytes | None = None, env: dict | None = None) -> Result:
    """dractl with these arguments, in this process, through the real entry point."""
    return _run_in_process(args, cwd, stdin, env)


def run_subprocess(*args, cwd=None, env=None, stdin: bytes | None = None) -> Result:
    full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "dractl", *map(str, args)], cwd=cwd,
                          env=full_env, input=stdin or b"", capture_output=True, timeout=300)
    return Result(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                  proc.stderr.decode("utf-8", "replace"))


CLAIM_OK = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: good
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""

CLAIM_BAD = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: bad
  namespace: default
spec:
  devices:
    requests:
    - name: GPU_0
      exactly:
        deviceClassName: missing.example.com
        count: -1
"""

# Strings that must come out well-formed in every format: XML specials, workflow-command
# specials, ANSI escapes, bidi overrides, CR/LF, NUL.
HOSTILE = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n"
           "  name: \"x%0A::error::pwned,a:b]]>&<\\e[31m\\u202e\\r\\nY\\0\"\n"
           "  namespace: default\nspec:\n  devices:\n    requests:\n"
           "    - name: \"bad name %25 \\e]8;;http://x\\e\\\\\"\n"
           "      exactly:\n        deviceClassName: gpu.example.com\n")

SYNTAX_ERROR = "apiVersion: v1\nkind: Pod\nmetadata: {name: [unclosed\n"


def make_tree(tmp_path) -> Path:
    """A small manifest tree with valid, invalid, hostile and unparsable files."""
    root = tmp_path / "deploy"
    root.mkdir()
    (root / "ok.yaml").write_text(CLAIM_OK)
    (root / "bad.yaml").write_text(CLAIM_BAD)
    (root / "hostile, name:%.yaml").write_text(HOSTILE)
    (root / "syntax.yaml").write_text(SYNTAX_ERROR)
    return root
