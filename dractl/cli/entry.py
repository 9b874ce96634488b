"""The console script. Kept apart from the CLI library so that `dractl --version` (which
pre-commit and CI scripts call to check the install) answers without loading it."""

from __future__ import annotations

import os
import sys


def entry() -> None:
    """Run the CLI, then exit without tearing the heap down object by object.

    A cluster-sized run leaves millions of small objects; freeing them one by one at interpreter
    shutdown took 0.6 s of a 3 s run, for nothing. Streams are flushed first, so no output is
    lost; a flush that fails (a full disk, `> /dev/full`) is exit status 2 with one line on
    stderr. Tests call dractl.cli.app.main() instead, which returns normally.
    """
    if sys.argv[1:] == ["--version"] or sys.argv[1:] == ["version"]:
        from dractl import __version__

        status = _write(f"dractl {__version__}\n")
    else:
        from dractl.cli import methodcache

        try:
            methodcache.install()  # before the CLI's modules define their dataclasses
            import dractl.cli
            from dractl.cli.app import main

            dractl.cli.SHORT_LIVED = True
            main()
            status = 0
        except SystemExit as exc:
            status = exc.code
            if status is not None and not isinstance(status, int):
                _say(str(status))  # SystemExit("text") prints, exits 1, as Python does
                status = 1
        except KeyboardInterrupt:  # Ctrl-C while the CLI library is still loading
            _say("dractl: interrupted")
            status = 130
        methodcache.save()
    status = _flush_all(status or 0)
    os._exit(status)


def _flush_all(status: int) -> int:
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            continue
        try:
            stream.flush()
        except BrokenPipeError:  # the reader went away: quiet
            pass
        except (OSError, ValueError) as exc:
            if name == "stdout":
                reason = os.strerror(exc.errno).lower() if getattr(exc, "errno", None) else str(exc)
                _say(f"dractl: cannot write to standard output: {reason}")
            status = 2
    return status


def _say(line: str) -> None:
    """One line on stderr if that works, else nowhere (never a traceback)."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def _write(text: str) -> int:
    if sys.stdout is None or sys.stderr is None:  # `dractl --version >&-`
        line = f"dractl: standard {'output' if sys.stdout is None else 'error'} is closed\n"
        try:
            (sys.stderr or sys.stdout).write(line)
            (sys.stderr or sys.stdout).flush()
        except (OSError, ValueError, AttributeError):
            pass
        return 2
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    except BrokenPipeError:
        return 0
    except (OSError, ValueError) as exc:
        reason = os.strerror(exc.errno).lower() if getattr(exc, "errno", None) else str(exc)
        _say(f"dractl: cannot write to standard output: {reason}")
        return 2
