"""Run the real `dractl` entry point in-process (fast) or as a subprocess, and judge the result.

Shared by tests/fuzz and tests/hostile (tests/hostile/conftest.py puts this folder on sys.path).

"Crashed" means what a user must never see (docs/decisions/0006-hostile-inputs.md): a Python
traceback, an exit status other than 0/1/2, or an "internal error" message (dractl's last line of
defence, and the CEL and rule layers' guards, turn bugs into such messages).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from dractl.cli import app as cli_app

TRACEBACK = "Traceback (most recent call last)"
INTERNAL = "internal error"
ALLOWED_EXIT = {0, 1, 2}
TIMED_OUT = -9
CASES: Counter = Counter()  # fuzz cases run, per test (printed by tests/fuzz/conftest.py)


def _unsafe_class() -> str:
    """What must never reach a terminal or a CI log raw from a manifest, a path or an option:
    C0/C1 controls (ESC, BEL, CR, backspace, CSI, NEL...) but tab and newline, DEL, and Unicode's
    format characters (bidi overrides and isolates, zero-width characters, tag characters), line
    and paragraph separators and surrogates. Computed here from unicodedata, independently of
    dractl's own sanitiser, which it checks."""
    import unicodedata

    ranges, start = [], None
    for cp in range(0x110001):
        bad = cp <= 0x10FFFF and unicodedata.category(chr(cp)) in ("Cc", "Cf", "Cs", "Zl", "Zp") \
            and chr(cp) not in "\t\n"
        if bad and start is None:
            start = cp
        elif not bad and start is not None:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(cp - 1))}")
            start = None
    return "".join(ranges)


UNSAFE_CHARS = re.compile(f"[{_unsafe_class()}]")


class HarnessTimeout(BaseException):
    """Raised in the main thread when an in-process run overruns its time limit."""


@dataclass
class Run:
    args: list
    code: int
    out: str
    err: str
    seconds: float

    max_rss_kb: int = 0

    def problems(self, fmt: str = "text") -> list[str]:
        found = []
        if self.code == TIMED_OUT:
            found.append(f"did not finish within its time limit ({self.seconds:.1f} s)")
        elif self.code not in ALLOWED_EXIT:
            found.append(f"exit status {self.code}")
        out = _without_sarif_rules(self.out) if fmt == "sarif" else self.out
        for stream, text in (("stdout", out), ("stderr", self.err)):
            if TRACEBACK in text:
                found.append(f"traceback on {stream}")
            for line in text.splitlines():
                if INTERNAL in line.lower():
                    found.append(f"internal error on {stream}: {line[:300]}")
                    break
        return found

    def assert_clean(self) -> None:
        problems = self.problems()
        assert not problems, (f"dractl {' '.join(map(str, self.args))}: {problems}\n"
                              f"--- stdout ---\n{self.out[-3000:]}\n--- stderr ---\n{self.err[-3000:]}")


def _without_sarif_rules(text: str) -> str:
    """SARIF lists the whole code table (DRA0999 "internal error ..." included) under
    runs[].tool: look for internal errors in the results only."""
    import json

    try:
        doc = json.loads(text)
        for run in doc.get("runs", []):
            run.pop("tool", None)
        return json.dumps(doc)
    except (ValueError, AttributeError, TypeError):
        return text


class _Stream(io.TextIOWrapper):
    tty = False  # like a CI log unless asked: not a terminal

    def isatty(self) -> bool:
        return self.tty


def _stream(data: bytes = b"", tty: bool = False) -> _Stream:
    stream = _Stream(io.BytesIO(data), encoding="utf-8", errors="surrogateescape", newline="")
    stream.tty = tty
    return stream


@contextmanager
def _no_debug_env():
    saved = os.environ.pop("DRACTL_DEBUG", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["DRACTL_DEBUG"] = saved


@contextmanager
def _alarm(seconds: float | None):
    """Interrupt the main thread after `seconds` (SIGALRM; Python code is interruptible)."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    active = [True]

    def fire(signum, frame):
        if active[0]:
            raise HarnessTimeout()

    previous = signal.signal(signal.SIGALRM, fire)
    # Repeating: an exception raised while Python runs a finalizer (__del__, a GC callback) is
    # swallowed ("Exception ignored in ..."), so one alarm alone can be lost.
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.2)
    try:
        yield
    finally:
        active[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_inproc(args: list, stdin: bytes = b"", time_limit: float | None = 30, tty: bool = False) -> Run:
    """`dractl ARGS` through `dractl.cli.app.main` (the console entry point), in this process.

    Exceptions that escape main() (it catches everything but BaseException subclasses) are
    reported as a traceback, like Python would print one. A run that overruns `time_limit`
    is interrupted and reported with code TIMED_OUT.
    """
    args = [str(a) for a in args]
    out, err, inp = _stream(tty=tty), _stream(tty=tty), _stream(stdin)
    start = time.perf_counter()
    code = None
    with _no_debug_env(), mock.patch.object(sys, "argv", ["dractl", *args]), \
            mock.patch.object(sys, "stdout", out), mock.patch.object(sys, "stderr", err), \
            mock.patch.object(sys, "stdin", inp):
        try:
            with _alarm(time_limit):
                try:
                    cli_app.main()
                    code = 0
                except SystemExit as exc:
                    c = exc.code
                    code = 0 if c is None else (c if isinstance(c, int) else 1)
        except HarnessTimeout:
            code = TIMED_OUT
        except BaseException as exc:  # noqa: BLE001 - that is what we are looking for
            import traceback
            err.write(TRACEBACK + " (escaped main())\n" + "".join(traceback.format_exception(exc)))
            code = -1
        finally:
            try:
                out.flush()
                err.flush()
            except ValueError:
                pass
    seconds = time.perf_counter() - start
    return Run(args, code, _text(out), _text(err), seconds)


def _text(stream: _Stream) -> str:
    return stream.buffer.getvalue().decode("utf-8", "replace")


def dractl_command() -> list[str]:
    exe = shutil.which("dractl")
    return [exe] if exe else [sys.executable, "-m", "dractl"]


# dractl is started by benchmarks/spawn.py, which reports its own peak memory: Linux carries a
# process's peak RSS across exec(), so a dractl started straight from a big pytest process
# would report pytest's size.
_SPAWN = Path(__file__).resolve().parents[2] / "benchmarks" / "spawn.py"


def run_subprocess(args: list, stdin: bytes = b"", timeout: float = 60, env: dict | None = None,
                   cwd=None, preexec_fn=None, stdin_file=None, wrapper: list | None = None) -> Run:
    """The installed `dractl` entry point as a real process (no DRACTL_DEBUG).

    Output goes to files (no pipe can fill up), the child's own peak memory is measured (see
    _SPAWN), and a child that overruns `timeout` is killed and reported with code TIMED_OUT.
    """
    full_env = {k: v for k, v in os.environ.items() if k != "DRACTL_DEBUG"}
    full_env.update(env or {})
    args = [str(a) for a in args]
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, \
            tempfile.TemporaryFile() as ferr, tempfile.TemporaryDirectory() as tmp:
        fin.write(stdin)
        fin.seek(0)
        peak_file = os.path.join(tmp, "usage")
        command = [sys.executable, str(_SPAWN), peak_file] + (wrapper or []) + \
            dractl_command() + args
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdin=stdin_file or fin, stdout=fout, stderr=ferr,
                                env=full_env, cwd=cwd, preexec_fn=preexec_fn,
                                start_new_session=True)
        deadline = start + timeout
        while True:
            pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.perf_counter() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)  # the helper and dractl under it
                os.wait4(proc.pid, 0)
                code = TIMED_OUT
                break
            time.sleep(0.01)
        proc.returncode = code  # reaped by wait4: keep Popen from waiting again
        seconds = time.perf_counter() - start
        try:
            with open(peak_file) as f:
                peak_kb = int(f.read().split()[2])
        except (OSError, ValueError, IndexError):
            peak_kb = 0  # killed before it could report
        fout.seek(0)
        ferr.seek(0)
        return Run(args, code, fout.read().decode("utf-8", "replace"),
                   ferr.read().decode("utf-8", "replace"), seconds, peak_kb)


# ---- output well-formedness --------------------------------------------------------------------

def check_output(run: Run, fmt: str) -> list[str]:
    """Problems with the shape of `run.out` for output format `fmt` (and raw control characters)."""
    import json
    import xml.etree.ElementTree as ET

    import yaml

    problems = []
    bad = UNSAFE_CHARS.search(run.out)
    if bad:
        problems.append(f"raw control character {bad.group()!r} in {fmt} output at "
                        f"{bad.start()}: {run.out[max(0, bad.start() - 60):bad.start() + 20]!r}")
    bad = UNSAFE_CHARS.search(run.err)
    if bad:
        problems.append(f"raw control character {bad.group()!r} on stderr: "
                        f"{run.err[max(0, bad.start() - 60):bad.start() + 20]!r}")
    if not run.out.strip():
        return problems  # nothing printed (usage error, or an empty plan)
    try:
        if fmt in ("json", "sarif"):
            doc = json.loads(run.out)
            if fmt == "sarif":
                assert doc.get("version") == "2.1.0" and isinstance(doc.get("runs"), list)
        elif fmt == "yaml":
            list(yaml.safe_load_all(run.out))
        elif fmt == "junit":
            ET.fromstring(run.out.encode("utf-8"))
        elif fmt == "github":
            for line in run.out.splitlines():
                if line and not _GITHUB_LINE.match(line):
                    problems.append(f"not a workflow command: {line[:200]!r}")
    except Exception as exc:  # noqa: BLE001
        problems.append(f"{fmt} output does not parse: {type(exc).__name__}: {str(exc)[:300]}")
    return problems


# ::error file=x,line=1,col=2,title=DRA0001::message  (message: no raw CR/LF; properties: no , or :)
_GITHUB_LINE = re.compile(r"^::(error|warning|notice)( ([a-z]+=[^,:\r\n]*)(,[a-z]+=[^,:\r\n]*)*)?::[^\r\n]*$")


def assert_ok(run: Run, fmt: str = "text") -> None:
    problems = run.problems(fmt) + check_output(run, fmt)
    assert not problems, (f"dractl {' '.join(map(str, run.args))[:300]}: {problems}\n"
                          f"--- stdout ---\n{run.out[-2000:]}\n--- stderr ---\n{run.err[-2000:]}")
