"""Producing an output: the chosen format (dractl.report.registry) as stable text or on a
terminal, golden files, and the exit status.

Everything here emits what the pipeline decided and the reporters rendered; the decisions
themselves live elsewhere.
"""

from __future__ import annotations

import difflib
import io
import os  # noqa: F401 - tests patch outputs.os.fdopen (dractl/cli/goldenfile.py uses it)
import sys
from typing import TYPE_CHECKING, Callable

import typer

from dractl.cli import common

if TYPE_CHECKING:
    from rich.console import Console

    from dractl.pipeline.result import Result

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

def golden(path: str, text: str, update: bool, allow_outside: bool = False) -> bool:
    """Compare `text` with FILE (print a unified diff; False when they differ) or rewrite FILE.
    FILE is refused when it is a symlink, outside the working directory's tree (unless
    allow_outside) or not a regular file (dractl/cli/goldenfile.py says why)."""
    from dractl.cli import goldenfile

    try:
        if update:
            goldenfile.write(path, text, allow_outside)
            typer.echo(f"dractl: wrote {path}", err=True)
            return True
        expected = goldenfile.read(path, allow_outside)
    except goldenfile.GoldenError as exc:
        raise common.UsageError(str(exc)) from None
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


def emit(result: "Result", output: str, *, quiet: bool = False, explain: str | None = None,
         golden: str | None = None, update: bool = False, no_color: bool = False,
         color: str = "auto", exit_zero: bool = False, statistics: bool = False,
         golden_allow_outside: bool = False, verbose: bool = False) -> None:
    """Render `result` in format `output`, emit it and exit with the contract's status."""
    from dractl.report.registry import View, render

    mode = common.color_mode(no_color, getattr(color, "value", color))
    check_format(output, statistics, result.command)
    if statistics:
        from dractl.report.statistics import render as statistics_render

        rendered = statistics_render(output, result, View(quiet=quiet))
    else:
        rendered = render(output, result, View(quiet=quiet, explain=explain, verbose=verbose))
    if isinstance(rendered, str):
        text, draw = rendered, None
    elif golden or (not common.is_terminal(sys.stdout) and mode != "always"):
        text, draw = stable_text(rendered.draw, plain=rendered.plain), None
    else:
        text, draw = None, rendered.draw
    if output == "github" and not statistics and not golden:
        _step_summary(result)
    _preview_note(result)
    not_read = getattr(result, "not_read", None)
    if not_read is not None and not_read.hint() and not quiet:
        typer.echo(f"dractl: note: {not_read.hint()}", err=True)
    if result.files == 0 and not result.usage_failed:
        # Not an error (pre-commit passes only excluded files on some commits), but never a
        # silent "0 files" success either.
        typer.echo("dractl: warning: no files were checked (every path was excluded or holds no "
                   "*.yaml, *.yml or *.json)", err=True)
    finish(text, draw, golden=golden, update=update, no_color=mode == "never",
           usage_errors=[] if _findings_on_stdout(output, statistics, golden, result.command)
           else result.usage_errors,
           usage_failed=result.usage_failed,
           failed=result.failed() and not exit_zero, color=mode,
           golden_allow_outside=golden_allow_outside)


def _findings_on_stdout(output: str, statistics: bool, golden: str | None, command: str) -> bool:
    """Whether standard output already shows every unreadable path as a finding a person reads
    (text, concise): then it is not repeated on standard error. Machine formats (often redirected
    to a file), counts, golden comparisons and env --metadata (which shows no findings) keep the
    stderr line."""
    return output in ("text", "concise") and not statistics and not golden and command != "metadata"


def list_files(paths: list[str], settings) -> None:
    """--list-files: the files a run would read (after --exclude, .dractl.yaml's exclude and the
    default excludes), one per line, then exit: 0, or 2 when a path cannot be read."""
    from dractl.pipeline.notmanifests import NotRead
    from dractl.pipeline.sources import resolve_inventory, select_sources
    from dractl.report.sanitize import safe_line

    aliases: dict[str, str] = {}
    resolved = resolve_inventory(paths, aliases)
    options = settings.check_options()
    items = select_sources(resolved, options.limits, exclude=options.exclude,
                           explicit_excluded=options.explicit_excluded, aliases=aliases,
                           not_read=NotRead() if options.default_exclude else None)
    failed = False
    for item in items:
        if hasattr(item, "data"):
            sys.stdout.write(safe_line(item.name) + "\n")
        else:
            failed = failed or item.usage or item.code == "DRA0012"
            typer.echo(f"dractl: {safe_line(item.name)}: {item.message}", err=True)
    raise typer.Exit(2 if failed else 0)


def check_format(output: str, statistics: bool, command: str) -> None:
    """A format that cannot carry what was asked is a usage error, never output in another
    format: --statistics counts (text, concise, json, yaml), and the upgrade check compares
    findings (no html page)."""
    from dractl.report.registry import UPGRADE, names_for
    from dractl.report.statistics import FORMATS

    if statistics and output not in FORMATS:
        raise common.UsageError(f"--statistics prints counts per code as {', '.join(FORMATS)}; "
                                f"-o {output} is made for findings")
    if command == UPGRADE and output not in names_for(UPGRADE):
        raise common.UsageError(f"-o {output} is not available for the upgrade check (several "
                                f"--kube-version releases); use {', '.join(names_for(UPGRADE))}")


def _preview_note(result) -> None:
    """A run for a release that is not out yet says so (on stderr: outputs stay comparable)."""
    from dractl.api.versions import PREVIEW_VERSIONS

    versions = [r.version for r in getattr(result, "runs", ())] or \
        [getattr(getattr(result, "gates", None), "version", None)]
    previews = [v for v in versions if v in PREVIEW_VERSIONS]
    if previews:
        typer.echo(f"dractl: note: Kubernetes {', '.join(previews)} is a preview, modelled from its alpha "
                   "changelogs; the released behaviour may differ", err=True)


def _step_summary(result: "Result") -> None:
    """-o github in a GitHub Actions job: the findings (or the plan's counts) as Markdown in the
    job summary, when the runner provides $GITHUB_STEP_SUMMARY."""
    from dractl.report import step_summary

    if result.plan is None:
        text = step_summary.validate_summary(result.findings, result.files, result.documents_read)
    else:
        text = step_summary.allocate_summary(result.plan, result.ci_findings())
    problem = step_summary.write(text)
    if problem:
        typer.echo(f"dractl: warning: {problem}", err=True)


def finish(text: str | None, render_text: Callable, *, golden: str | None, update: bool,
           no_color: bool, usage_errors: list[str], usage_failed: bool, failed: bool,
           color: str = "auto",
           golden_allow_outside: bool = False) -> None:
    """Emit the output (or compare it with a golden file) and exit with the contract's status:
    2 usage/I/O error, then with --golden the comparison's result, else 1 when `failed`."""
    matched = True
    if golden:
        matched = golden_compare(golden, text, update, allow_outside=golden_allow_outside)
    elif text is not None:
        write(text)
    else:
        render_text(common.make_console(no_color, color=color))
    for message in usage_errors:
        typer.echo(f"dractl: {message}", err=True)
    if usage_failed:
        raise typer.Exit(2)
    if golden:
        raise typer.Exit(0 if matched else 1)
    raise typer.Exit(1 if failed else 0)


golden_compare = golden  # finish() has a parameter named golden
