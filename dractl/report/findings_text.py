"""Human-readable findings: `file:line:column  CODE  severity  field: message`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dractl.report.sanitize import safe_line
from dractl.report.styled import Styled
from dractl.findings import ERROR, INFO, WARNING, Finding

if TYPE_CHECKING:
    from rich.console import Console

    from dractl.pipeline.result import Result
    from dractl.report.registry import Drawing, View
    from dractl.report.styled import PlainConsole

_STYLE = {ERROR: "bold red", WARNING: "yellow"}


def finding_line(f: Finding) -> Styled:
    where = safe_line(f.file or "<input>")
    if f.line:
        where += f":{f.line}:{f.column}"
    text = Styled()
    text.append(where, style="bold")
    text.append("  ")
    text.append(f.code, style="cyan")
    text.append("  ")
    text.append(f"{f.severity:<7}", style=_STYLE.get(f.severity, ""))
    text.append("  ")
    field = f.field
    text.append(safe_line(f"{field}: {f.message}" if field else f.message))
    if f.kind:
        obj = f"{f.namespace}/{f.name}" if f.namespace else f.name
        text.append(safe_line(f"  ({f.kind} {obj})".rstrip()), style="dim")
    return text


def summary_line(files: int, documents: int, errors: int, warnings: int) -> Styled:
    text = Styled()
    text.append(f"{files} file{'s' * (files != 1)}, {documents} document{'s' * (documents != 1)}: ")
    text.append(f"{errors} error{'s' * (errors != 1)}", style="bold red" if errors else "green")
    text.append(", ")
    text.append(f"{warnings} warning{'s' * (warnings != 1)}", style="yellow" if warnings else "")
    return text


def print_findings(console: "Console | PlainConsole", findings: list[Finding], *, quiet: bool = False,
                   show_info: bool = False) -> None:
    """Info findings (notes such as DRA1417) are only in machine formats unless asked for."""
    last_file = None
    for f in findings:
        if quiet and f.severity != ERROR:
            continue
        if f.severity == INFO and not show_info:
            continue
        if last_file is not None and f.file != last_file:
            console.print()
        last_file = f.file
        console.print(finding_line(f), soft_wrap=True)


def report(result: "Result", view: "View") -> "Drawing":
    """`validate -o text`: the findings, then the summary line."""
    from dractl.report.registry import Drawing

    def draw(console) -> None:
        print_findings(console, result.findings, quiet=view.quiet)
        if not view.quiet and any(f.severity != INFO for f in result.findings):  # info: machine formats only
            console.print()
        console.print(summary_line(result.files, result.documents_read, result.errors(),
                                   result.warnings()))

    return Drawing(draw, plain=True)  # lines and strings only
