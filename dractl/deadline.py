"""A deadline for the whole run (`--deadline SECONDS`), beside the allocator's per-node timeout.

`--timeout` bounds one pod on one node, as kube-scheduler's filterTimeout does; it does not bound
a run of a thousand pods on a thousand nodes, nor a CEL expression that the API server's cost
check accepts but that costs 65 ms per device. The deadline does: when it passes, the main thread
is interrupted exactly like Ctrl-C interrupts it (a real SIGINT, sent to the main thread, so a main
thread blocked in a system call or waiting for worker processes wakes up too), and the command
reports the deadline instead of an interruption; a main thread that cannot unwind (inside one
long C call) is ended after a grace period with the same message. Everything that already ends cleanly on Ctrl-C (workers, temporary files, partial
output) ends cleanly on the deadline. dractl's own option: upstream has no such limit.

Stages that loop for long may also call `check()` to stop at a point of their choosing.
"""

from __future__ import annotations

import os
import signal
import threading
import time

DEFAULT_SECONDS = 3600.0


class DeadlineExceeded(KeyboardInterrupt):
    """Raised by check() once the deadline has passed: unwinds like Ctrl-C (no `except
    Exception` guard of a stage mistakes it for a bug in one document)."""


class Deadline:
    """`with Deadline(seconds):` interrupts the main thread when `seconds` have passed."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds if seconds and seconds > 0 else None
        self.expired = False
        self._end = None
        self._timer: threading.Timer | None = None
        self._active = False
        self._ignored_sigint = False

    def __enter__(self) -> "Deadline":
        global _current, _expired_after
        _current = self
        _expired_after = None
        if self.seconds is not None:
            self._end = time.monotonic() + self.seconds
            self._active = True
            self._listen_when_sigint_is_ignored()
            self._timer = threading.Timer(self.seconds, self._fire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        global _current
        self._active = False
        if self._timer is not None:
            self._timer.cancel()
        if self._ignored_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            self._ignored_sigint = False
        if _current is self:
            _current = None

    def _listen_when_sigint_is_ignored(self) -> None:
        """A process started in the background by a non-interactive shell (`dractl ... &` in a
        CI script) inherits SIGINT ignored, and the deadline's SIGINT would never arrive. Then
        SIGINT raises only once the deadline has fired; any other SIGINT stays ignored."""
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            signal.signal(signal.SIGINT, _interrupt_if_expired)
            self._ignored_sigint = True

    def _fire(self) -> None:
        global _expired_after
        if not self._active:
            return
        self.expired = True
        _expired_after = self.seconds
        main = threading.main_thread()
        if not main.is_alive():
            return
        # To the main thread itself: a signal sent to the process may be delivered to this
        # timer thread, and a main thread blocked in a system call (openat on a FIFO, a read)
        # would never see it. Delivered to the main thread, the call fails with EINTR, Python
        # runs the SIGINT handler and the KeyboardInterrupt unwinds the run.
        signal.pthread_kill(main.ident, signal.SIGINT)
        # A main thread busy inside one long C call runs the handler only when the call
        # returns. If it has not unwound after HARD_STOP_GRACE seconds, the run ends here, with
        # the same message and status (worker processes die with their parent: PDEATHSIG).
        time.sleep(HARD_STOP_GRACE)
        if self._active and main.is_alive():
            _hard_stop(self.seconds)

    def remaining(self) -> float:
        if self._end is None:
            return float("inf")
        return max(0.0, self._end - time.monotonic())


# Seconds the main thread has to unwind after the deadline's SIGINT before the process ends.
HARD_STOP_GRACE = 10.0


def _hard_stop(seconds: float | None) -> None:
    message = f"dractl: stopped: the run took longer than --deadline {seconds or 0:g} seconds\n"
    try:
        os.write(2, message.encode())
    finally:
        os._exit(2)


_current: Deadline | None = None
_expired_after: float | None = None  # seconds of the last deadline that fired (for the message)


def _interrupt_if_expired(signum, frame) -> None:
    if _current is not None and _current.expired:
        raise KeyboardInterrupt


def current() -> Deadline | None:
    """The deadline of the running command, if any."""
    return _current


def expired() -> bool:
    """Whether the last deadline fired (still true after its `with` block was left by the
    interruption it caused, which is when the command reports it)."""
    return _expired_after is not None or (_current is not None and _current.expired)


def expired_after() -> float:
    return _expired_after if _expired_after is not None else (
        _current.seconds if _current is not None and _current.seconds else 0.0)


def check() -> None:
    global _expired_after
    if _current is not None and (_current.expired or _current.remaining() <= 0):
        _current.expired = True
        _expired_after = _current.seconds
        raise DeadlineExceeded(f"the run took longer than --deadline {_current.seconds:g} s")
