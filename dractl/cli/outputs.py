"""Producing an output: the chosen format (dractl.report.registry) as stable text or on a
terminal, golden files, and the exit status.

Everything here emits what the pipeline decided and the reporters rendered; the decisions
themselves live elsewhere.
"""

from __future__ import annotations

import difflib
import io
import os
import stat
import sys
from typing import TYPE_CHECKING, Callable

import typer

from dractl.cli import common

if TYPE_CHECKING:
    from rich.console import Console

    from dractl.pipeline.result import Result

_MAX_GOLDEN_BYTES = 256 * 1024 * 1024


def stable_text(render: Callable[[Console], None], plain: bool = False) -> str:
    """Text output as files and golden tests need it: no colour, no terminal-dependent width or
    line drawing (the same bytes on every machine, terminal or not). plain: the report prints
    only strings and Styled lines, which need no rich (report/styled.py)."""
    if plain:
        from dractl.report.styled import PlainConsole

        console = PlainConsole()
        render(console)  # type: ignore[arg-type]
        return console.getvalue()
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=10_000, color_system=None, no_color=True,
                      force_terminal=False, force_interactive=False, highlight=False, markup=False,
                      emoji=False, soft_wrap=True, legacy_windows=False, record=False)
    render(console)
    return "\n".join(line.rstrip() for line in buffer.getvalue().split("\n"))


def write(text: str) -> None:
    sys.stdout.write(text)


# -- golden files ------------------------------------------------------------------------------

def golden(path: str, text: str, update: bool) -> bool:
    """Compare `text` with FILE (print a unified diff; False when they differ) or rewrite FILE."""
    if update:
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise common.UsageError(f"--golden {path}: directory {directory} does not exist")
        # Atomic: a crash or Ctrl-C never leaves a half-written golden file.
        import tempfile  # here: only --update needs it (start-up, issue #19)

        try:
            fd, tmp = tempfile.mkstemp(prefix=".dractl-golden-", dir=directory)
        except OSError as exc:
            raise common.UsageError(f"--golden {path}: {(exc.strerror or str(exc)).lower()}") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            try:
                os.chmod(tmp, 0o644 & ~_umask())
            except OSError:
                pass
            os.replace(tmp, path)
        except BaseException as exc:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            if isinstance(exc, OSError):
                raise common.UsageError(f"--golden {path}: {(exc.strerror or str(exc)).lower()}") from None
            raise
        typer.echo(f"dractl: wrote {path}", err=True)
        return True
    try:
        # Golden files come from repositories, possibly a stranger's pull request: never open a
        # FIFO (it would block) or read /dev/zero (endless); bound the size.
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise common.UsageError(f"--golden {path}: not a regular file")
        if st.st_size > _MAX_GOLDEN_BYTES:
            raise common.UsageError(f"--golden {path}: larger than {_MAX_GOLDEN_BYTES} bytes")
        with open(path, encoding="utf-8", newline="") as fh:
            expected = fh.read(_MAX_GOLDEN_BYTES + 1)
    except FileNotFoundError:
        raise common.UsageError(f"--golden {path}: no such file (create it with --update)") from None
    except UnicodeDecodeError:
        raise common.UsageError(f"--golden {path}: not UTF-8 text") from None
    except OSError as exc:
        raise common.UsageError(f"--golden {path}: {(exc.strerror or str(exc)).lower()}") from None
    # A checkout with CRLF line endings (git autocrlf) still matches.
    expected = expected.replace("\r\n", "\n")
    if expected == text:
        return True
    from dractl.report.sanitize import safe_text

    diff = difflib.unified_diff(expected.splitlines(keepends=True), text.splitlines(keepends=True),
                                fromfile=path, tofile="dractl output")
    for line in diff:
        sys.stdout.write(safe_text(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"))
    typer.echo(f"dractl: output differs from {path} (rerun with --update to accept it)", err=True)
    return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def emit(result: "Result", output: str, *, quiet: bool = False, explain: str | None = None,
         golden: str | None = None, update: bool = False, no_color: bool = False) -> None:
    """Render `result` in format `output`, emit it and exit with the contract's status."""
    from dractl.report.registry import View, render

    rendered = render(output, result, View(quiet=quiet, explain=explain))
    if isinstance(rendered, str):
        text, draw = rendered, None
    elif golden or not common.is_terminal(sys.stdout):
        text, draw = stable_text(rendered.draw, plain=rendered.plain), None
    else:
        text, draw = None, rendered.draw
    finish(text, draw, golden=golden, update=update, no_color=no_color,
           usage_errors=result.usage_errors, usage_failed=result.usage_failed,
           failed=result.failed())


def finish(text: str | None, render_text: Callable, *, golden: str | None, update: bool,
           no_color: bool, usage_errors: list[str], usage_failed: bool, failed: bool) -> None:
    """Emit the output (or compare it with a golden file) and exit with the contract's status:
    2 usage/I/O error, then with --golden the comparison's result, else 1 when `failed`."""
    matched = True
    if golden:
        matched = golden_compare(golden, text, update)
    elif text is not None:
        write(text)
    else:
        render_text(common.make_console(no_color))
    for message in usage_errors:
        typer.echo(f"dractl: {message}", err=True)
    if usage_failed:
        raise typer.Exit(2)
    if golden:
        raise typer.Exit(0 if matched else 1)
    raise typer.Exit(1 if failed else 0)


golden_compare = golden  # finish() has a parameter named golden
