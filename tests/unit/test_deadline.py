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
