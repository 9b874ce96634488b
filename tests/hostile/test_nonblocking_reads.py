"""A file is opened without blocking and read only when its descriptor is a regular file: a
file swapped for a FIFO (or a socket, a device) between the directory walk's stat and the open
is DRA0013, exactly what a stat would have said; the run goes on. And `--deadline` ends a run
whatever its main thread is blocked in: a system call (reading a pipe nobody writes), or code
that does not unwind (after a grace period)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
import types

import pytest
from cli_harness import assert_ok, dractl_command, run_inproc

from dractl.load import reader

GOOD = b"apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"


def _stat_as_regular(monkeypatch, swapped: set[str]):
    """reader's os.stat sees `swapped` paths as the regular files they were a moment ago."""
    real = os.stat
    regular = real(__file__)

    def fake_stat(path, *args, **kwargs):
        return regular if str(path) in swapped else real(path, *args, **kwargs)

    proxy = types.SimpleNamespace(**{k: getattr(os, k) for k in dir(os) if not k.startswith("__")})
    proxy.stat = fake_stat
    monkeypatch.setattr(reader, "os", proxy)


@pytest.mark.parametrize("explicit", [True, False], ids=["named", "walked"])
def test_file_swapped_for_a_fifo_is_dra0013_and_never_blocks(explicit, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("tree")
    os.mkfifo("tree/swapped.yaml")
    (tmp_path / "tree" / "z.yaml").write_bytes(GOOD)
    _stat_as_regular(monkeypatch, {"tree/swapped.yaml"})
    args = ["validate", "tree/swapped.yaml", "tree/z.yaml"] if explicit else ["validate", "tree"]
    run = run_inproc(args + ["-o", "json", "--no-config"], time_limit=20)
    assert_ok(run, "json")
    if explicit:  # a named path that is no regular file is a usage error, as at stat time
        assert run.code == 2
        assert "tree/swapped.yaml: not a regular file or directory (a FIFO)" in run.err
    else:
        assert run.code == 0
        assert '"not a regular file (a FIFO); skipped"' in run.out and '"DRA0013"' in run.out
        assert '"documents": 1' in run.out  # z.yaml was read


def test_read_regular_refuses_what_fstat_says_is_not_a_file(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(reader.NotRegularFile) as info:
        reader.read_regular(str(tmp_path / "fifo"), 100)
    assert info.value.kind == "a FIFO"
    with pytest.raises(reader.NotRegularFile):
        reader.read_regular("/dev/null", 100)
    (tmp_path / "f").write_bytes(b"x" * 10)
    assert reader.read_regular(str(tmp_path / "f"), 100) == b"x" * 10
    with pytest.raises(reader.FileTooLarge):
        reader.read_regular(str(tmp_path / "f"), 5)
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode)


def test_deadline_ends_a_main_thread_blocked_in_a_read(tmp_path):
    """Standard input is a pipe whose writer never writes nor closes: the main thread sits in
    read(2). The deadline's signal reaches it there."""
    read_end, write_end = os.pipe()
    try:
        start = time.monotonic()
        proc = subprocess.run([*dractl_command(), "validate", "-", "--deadline", "1", "--no-config"],
                              stdin=read_end, capture_output=True, text=True, timeout=60,
                              cwd=tmp_path)
        elapsed = time.monotonic() - start
    finally:
        os.close(read_end)
        os.close(write_end)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "dractl: stopped: the run took longer than --deadline 1 seconds\n"
    assert elapsed < 8


def test_deadline_ends_a_main_thread_that_does_not_unwind():
    """A main thread that swallows the interrupt (a blocking call retried whatever happens)
    never unwinds: the run ends after the grace period, with the deadline's message and status.
    (Inside one C call that holds the interpreter lock no Python thread runs at all; every such
    call on user input is linear in it: dractl/load/scan.py.)"""
    code = ("import time\nfrom dractl import deadline\ndeadline.HARD_STOP_GRACE = 0.5\n"
            "with deadline.Deadline(0.5):\n"
            "    while True:\n"
            "        try:\n"
            "            time.sleep(10)\n"
            "        except KeyboardInterrupt:\n"
            "            pass\n"
            "print('never here')\n")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "dractl: stopped: the run took longer than --deadline 0.5 seconds\n"
    assert time.monotonic() - start < 15
