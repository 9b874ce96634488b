"""A deadline for the whole run (`--deadline SECONDS`), beside the allocator's per-node timeout.

`--timeout` bounds one pod on one node, as kube-scheduler's filterTimeout does; it does not bound
a run of a thousand pods on a thousand nodes, nor a CEL expression that the API server's cost
check accepts but that costs 65 ms per device. The deadline does: when it passes, the main thread
is interrupted exactly like Ctrl-C interrupts it (a real SIGINT, so a main thread blocked waiting
for worker processes wakes up too), and the command reports the deadline instead of an
interruption. Everything that already ends cleanly on Ctrl-C (workers, temporary files, partial
output) ends cleanly on the deadline. dractl's own option: upstream has no such limit.

Stages that loop for long may also call `check()` to stop at a point of their choosing.
"""

from __future__ import annotations

import os
import signal
import threading
import time

DEFAULT_SECONDS = 3600.0


class DeadlineExceeded(Exception):
    """Raised by check() once the deadline has passed."""


class Deadline:
    """`with Deadline(seconds):` interrupts the main thread when `seconds` have passed."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds if seconds and seconds > 0 else None
        self.expired = False
        self._end = None
        self._timer: threading.Timer | None = None
        self._active = False

    def __enter__(self) -> "Deadline":
        global _current
        _current = self
        if self.seconds is not None:
            self._end = time.monotonic() + self.seconds
            self._active = True
            self._timer = threading.Timer(self.seconds, self._fire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        global _current
        self._active = False
        if self._timer is not None:
            self._timer.cancel()
        if _current is self:
            _current = None

    def _fire(self) -> None:
        if not self._active:
            return
        self.expired = True
        if threading.main_thread().is_alive():
            os.kill(os.getpid(), signal.SIGINT)

    def remaining(self) -> float:
        if self._end is None:
            return float("inf")
        return max(0.0, self._end - time.monotonic())


_current: Deadline | None = None


def current() -> Deadline | None:
    """The deadline of the running command, if any."""
    return _current


def expired() -> bool:
    return _current is not None and _current.expired


def check() -> None:
    if _current is not None and (_current.expired or _current.remaining() <= 0):
        _current.expired = True
        raise DeadlineExceeded(f"the run took longer than --deadline {_current.seconds:g} s")
