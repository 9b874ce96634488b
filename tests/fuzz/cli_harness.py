"""Run the real `dractl` entry point in-process (fast) or as a subprocess, and judge the result.

Shared by tests/fuzz and tests/hostile (tests/hostile/conftest.py puts this folder on sys.path).

"Crashed" means what issue #10 says a user must never see: a Python traceback, an exit status
other than 0/1/2, or an "internal error" message (dractl's last line of defence, and the CEL and
rule layers' guards, turn bugs into such messages).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from unittest import mock

from dractl.cli import app as cli_app

TRACEBACK = "Traceback (most recent call last)"
INTERNAL = "internal error"
ALLOWED_EXIT = {0, 1, 2}


@dataclass
class Run:
    args: list
    code: int
    out: str
    err: str
    seconds: float

    def problems(self) -> list[str]:
        found = []
        if self.code not in ALLOWED_EXIT:
            found.append(f"exit status {self.code}")
        for stream, text in (("stdout", self.out), ("stderr", self.err)):
            if TRACEBACK in text:
                found.append(f"traceback on {stream}")
            if INTERNAL in text.lower():
                line = next(l for l in text.splitlines() if INTERNAL in l.lower())
                found.append(f"internal error on {stream}: {line[:300]}")
        return found

    def assert_clean(self) -> None:
        problems = self.problems()
        assert not problems, (f"dractl {' '.join(map(str, self.args))}: {problems}\n"
                              f"--- stdout ---\n{self.out[-3000:]}\n--- stderr ---\n{self.err[-3000:]}")


class _Stream(io.TextIOWrapper):
    def isatty(self) -> bool:  # like a CI log: never a terminal
        return False


def _stream(data: bytes = b"") -> _Stream:
    return _Stream(io.BytesIO(data), encoding="utf-8", errors="surrogateescape", newline="")


@contextmanager
def _no_debug_env():
    saved = os.environ.pop("DRACTL_DEBUG", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["DRACTL_DEBUG"] = saved


def run_inproc(args: list, stdin: bytes = b"") -> Run:
    """`dractl ARGS` through `dractl.cli.app.main` (the console entry point), in this process.

    Exceptions that escape main() (it catches everything but BaseException subclasses) are
    reported as a traceback, like Python would print one.
    """
    args = [str(a) for a in args]
    out, err, inp = _stream(), _stream(), _stream(stdin)
    start = time.perf_counter()
    code = None
    with _no_debug_env(), mock.patch.object(sys, "argv", ["dractl", *args]), \
            mock.patch.object(sys, "stdout", out), mock.patch.object(sys, "stderr", err), \
            mock.patch.object(sys, "stdin", inp):
        try:
            cli_app.main()
            code = 0
        except SystemExit as exc:
            c = exc.code
            code = 0 if c is None else (c if isinstance(c, int) else 1)
        except BaseException as exc:  # noqa: BLE001 - that is what we are looking for
            import traceback
            err.write(TRACEBACK + " (escaped main())\n" + "".join(traceback.format_exception(exc)))
            code = -1
        finally:
            out.flush()
            err.flush()
    seconds = time.perf_counter() - start
    return Run(args, code, _text(out), _text(err), seconds)


def _text(stream: _Stream) -> str:
    return stream.buffer.getvalue().decode("utf-8", "replace")


def dractl_command() -> list[str]:
    exe = shutil.which("dractl")
    return [exe] if exe else [sys.executable, "-m", "dractl"]


def run_subprocess(args: list, stdin: bytes | None = b"", timeout: float = 60, env: dict | None = None,
                   **kw) -> Run:
    """The installed `dractl` entry point as a real process (no DRACTL_DEBUG)."""
    full_env = {k: v for k, v in os.environ.items() if k != "DRACTL_DEBUG"}
    full_env.update(env or {})
    args = [str(a) for a in args]
    start = time.perf_counter()
    proc = subprocess.run(dractl_command() + args, input=stdin, capture_output=True,
                          timeout=timeout, env=full_env, **kw)
    return Run(args, proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"), time.perf_counter() - start)
