"""The run's edges: standard streams that are closed, full or gone, and signals.

* Everything written to stderr goes through the one sanitiser (dractl.report.sanitize): messages
  quote file names, option values and node names from the inputs, and any of them may hold an
  OSC sequence or a right-to-left override. Newlines and tabs stay.
* A closed stdout or stderr (`dractl validate x.yaml >&-`), or one that cannot be written
  (`> /dev/full`), is exit status 2 with one line on whichever stream still works, never a
  traceback; a reader that went away (`| head -1`, SIGPIPE) is a quiet exit.
* SIGTERM ends the run like Ctrl-C does (every `finally` runs: worker processes are killed,
  temporary files removed), with exit status 143 instead of 130.
"""

from __future__ import annotations

import errno
import io
import os
import signal
import sys
import threading

from dractl.report.sanitize import safe_text


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: unwinds like Ctrl-C, ends with status 143."""


class SanitizingWriter(io.TextIOBase):
    """A text stream that escapes control, bidi and zero-width characters before writing."""

    def __init__(self, stream):
        self.raw_stream = stream  # for the progress bar's own escapes

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click probes with b"" to find binary streams
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.raw_stream.write(safe_text(text))
        return len(text)

    def flush(self) -> None:
        self.raw_stream.flush()

    def isatty(self) -> bool:
        try:
            return self.raw_stream.isatty()
        except (AttributeError, ValueError):
            return False

    def fileno(self) -> int:
        return self.raw_stream.fileno()

    @property
    def encoding(self):
        return getattr(self.raw_stream, "encoding", "utf-8")

    @property
    def buffer(self):
        return self.raw_stream.buffer

    def writable(self) -> bool:
        return True


def closed_stream() -> str | None:
    """"stdout"/"stderr" when one is closed: Python sets it to None when its descriptor was
    closed at start (`dractl validate x.yaml >&-`)."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            return name
    return None


def say(line: str) -> None:
    """One line on stderr if it works, else on stdout, else nowhere."""
    for stream in (sys.stderr, sys.stdout):
        if stream is None:
            continue
        try:
            stream.write(safe_text(line) + "\n")
            stream.flush()
            return
        except (OSError, ValueError, AttributeError):
            continue


def write_error_message(exc: OSError, what: str = "standard output") -> str:
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    return f"dractl: cannot write to {what}: {reason.lower()}"


def is_broken_pipe(exc: BaseException) -> bool:
    return isinstance(exc, BrokenPipeError) or (isinstance(exc, OSError) and exc.errno == errno.EPIPE)


class signals_as_exceptions:
    """`with signals_as_exceptions():` SIGTERM raises Terminated in the main thread."""

    def __enter__(self):
        TERMINATED[0] = False
        self._previous = None
        if threading.current_thread() is threading.main_thread():
            try:
                self._previous = signal.signal(signal.SIGTERM, _on_sigterm)
            except (ValueError, OSError):
                self._previous = None
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            try:
                signal.signal(signal.SIGTERM, self._previous)
            except (ValueError, OSError, TypeError):
                pass


TERMINATED = [False]  # set when SIGTERM arrived (the CLI library turns the exception into 130)


def _on_sigterm(signum, frame):
    TERMINATED[0] = True
    raise Terminated()


def sanitize_stderr() -> None:
    if sys.stderr is not None and not isinstance(sys.stderr, SanitizingWriter):
        sys.stderr = SanitizingWriter(sys.stderr)


def restore_stderr() -> None:
    if isinstance(sys.stderr, SanitizingWriter):
        sys.stderr = sys.stderr.raw_stream


def raw_stderr():
    """The real stderr (for the progress bar, whose terminal escapes are dractl's own)."""
    return sys.stderr.raw_stream if isinstance(sys.stderr, SanitizingWriter) else sys.stderr
