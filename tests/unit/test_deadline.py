"""The whole-run deadline interrupts busy Python code like Ctrl-C, and says it was the deadline."""

import pytest

from dractl import deadline


def test_deadline_interrupts_a_busy_loop_and_reports_itself():
    with pytest.raises(KeyboardInterrupt):
        with deadline.Deadline(0.2) as d:
            while True:  # a CEL expression that never ends, as far as Python can tell
                pass
    assert d.expired and deadline.expired()  # still known after the block, for the message
    with deadline.Deadline(None):
        assert not deadline.expired()  # reset by the next command


def test_no_deadline_never_fires():
    with deadline.Deadline(None) as d:
        assert d.remaining() == float("inf")
        deadline.check()
    assert not d.expired


def test_check_raises_once_the_time_is_up():
    with deadline.Deadline(0.05) as d:
        with pytest.raises((deadline.DeadlineExceeded, KeyboardInterrupt)):
            while True:
                deadline.check()
    assert d.expired


def test_deadline_fires_when_sigint_was_ignored_at_start():
    """`dractl ... &` in a non-interactive shell starts with SIGINT ignored: the deadline still
    interrupts (its own SIGINT is honoured), a SIGINT from anyone else stays ignored, and the
    ignored disposition is back after the block."""
    import subprocess
    import sys

    code = (
        "import os, signal\n"
        "from dractl import deadline\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "with deadline.Deadline(30):\n"
        "    os.kill(os.getpid(), signal.SIGINT)  # not the deadline: ignored\n"
        "try:\n"
        "    with deadline.Deadline(0.2):\n"
        "        while True:\n"
        "            pass\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', deadline.expired())\n"
        "print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:2] == ["interrupted True", "True"]
