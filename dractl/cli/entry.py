"""The console script. Kept apart from the CLI library so that `dractl --version` (which
pre-commit and CI scripts call to check the install) answers without loading it."""

from __future__ import annotations

import os
import sys


def entry() -> None:
    """Run the CLI, then exit without tearing the heap down object by object.

    A cluster-sized run leaves millions of small objects; freeing them one by one at interpreter
    shutdown took 0.6 s of a 3 s run, for nothing. Streams are flushed first, so no output is
    lost. Tests call dractl.cli.app.main() instead, which returns normally.
    """
    if sys.argv[1:] == ["--version"] or sys.argv[1:] == ["version"]:
        from dractl import __version__

        status = _write(f"dractl {__version__}\n")
    else:
        try:
            import dractl.cli
            from dractl.cli.app import main

            dractl.cli.SHORT_LIVED = True
            main()
            status = 0
        except SystemExit as exc:
            status = exc.code
            if status is not None and not isinstance(status, int):
                print(status, file=sys.stderr)  # SystemExit("text") prints, exits 1, as Python
                status = 1
        except KeyboardInterrupt:  # Ctrl-C while the CLI library is still loading
            print("dractl: interrupted", file=sys.stderr)
            status = 130
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # BrokenPipeError included: the reader went away
            pass
    os._exit(status or 0)


def _write(text: str) -> int:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    except BrokenPipeError:
        return 0
    except (OSError, ValueError):
        return 2
