"""Human-readable findings: `file:line:column  CODE  severity  field: message`."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from dractl.findings import ERROR, INFO, WARNING, Finding
from dractl.report.sanitize import safe_line
from dractl.report.styled import CONTINUATION, Styled, cells, fit, terminal_width, wrap

if TYPE_CHECKING:
    from rich.console import Console

    from dractl.pipeline.result import Result
    from dractl.report.registry import Drawing, View
    from dractl.report.styled import PlainConsole

_STYLE = {ERROR: "bold red", WARNING: "yellow"}


def finding_line(f: Finding) -> Styled:
    text = _header(f)
    text.append("  ")
    text.segments.extend(_body(f).segments)
    return text


def _header(f: Finding) -> Styled:
    where = safe_line(f.file or "<input>")
    if f.line:
        where += f":{f.line}:{f.column}"
    text = Styled()
    text.append(where, style="bold")
    text.append("  ")
    text.append(f.code, style="cyan")
    text.append("  ")
    text.append(f"{f.severity:<7}", style=_STYLE.get(f.severity, ""))
    return text


def _body(f: Finding) -> Styled:
    text = Styled()
    text.append(safe_line(f.text))
    if f.kind:
        obj = f"{f.namespace}/{f.name}" if f.namespace else f.name
        text.append(safe_line(f"  ({f.kind} {obj})".rstrip()), style="dim")
    return text


def finding_lines(f: Finding, width: int | None, split: bool | None = None) -> list[Styled]:
    """One line when it fits (or off a terminal); otherwise the location, code and severity
    on the first line and the message below it, indented and broken at spaces. split: the
    report's choice for all its findings (True: every finding in two parts, False: none)."""
    line = finding_line(f)
    if width is None or split is False or (split is None and cells(line.plain) <= width):
        return [line]
    header = _header(f)
    header.segments[-1] = (header.segments[-1][0].rstrip(), header.segments[-1][1])
    return fit(header, width) + wrap(_body(f), width, CONTINUATION, CONTINUATION)


def summary_line(files: int, documents: int, errors: int, warnings: int,
                 skipped: dict[str, int] | None = None,
                 not_read: dict[str, int] | None = None, suppressed: int = 0) -> Styled:
    text = Styled()
    text.append(f"{files} file{'s' * (files != 1)}, {documents} document{'s' * (documents != 1)}: ")
    text.append(f"{errors} error{'s' * (errors != 1)}", style="bold red" if errors else "green")
    text.append(", ")
    text.append(f"{warnings} warning{'s' * (warnings != 1)}", style="yellow" if warnings else "")
    if skipped:
        text.append(skipped_text(skipped), style="dim")
    if not_read:
        text.append(not_read_text(not_read), style="dim")
    if suppressed:
        text.append(f"; {suppressed} suppressed", style="dim")
    return text


def not_read_text(not_read: dict[str, int]) -> str:
    """`; 4 files not read (Helm chart 3, Kustomize 1)`: what the default excludes left out."""
    total = sum(not_read.values())
    shown = ", ".join(f"{what} {n}" for what, n in sorted(not_read.items(), key=lambda i: (-i[1], i[0])))
    return f"; {total} file{'s' * (total != 1)} not read ({shown})"


def skipped_text(skipped: dict[str, int]) -> str:
    """`; 9 skipped (Service 5, Ingress 3, Certificate 1)`: documents of kinds dractl does not
    read, or named by --skip-kinds; most frequent kinds first."""
    total = sum(skipped.values())
    kinds = sorted(skipped.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"{safe_line(kind)} {count}" for kind, count in kinds[:5])
    rest = len(kinds) - 5
    more = f", {rest} more kind{'s' * (rest != 1)}" if rest > 0 else ""
    return f"; {total} skipped ({shown}{more})"


def print_findings(console: "Console | PlainConsole", findings: list[Finding], *, quiet: bool = False,
                   show_info: bool = False) -> None:
    """Info findings (notes such as DRA1417) are only in machine formats unless asked for.
    The same finding repeated on many list items of a file (54 devices of the MIG inventory
    without their feature gate) is one line, at the first location, with the count."""
    last_file = None
    width = terminal_width(console)
    shown = [f for f in findings if not (quiet and f.severity != ERROR)
             and not (f.severity == INFO and not show_info)]
    shown = collapse(shown)
    # One layout for the whole report: at a width where some findings fit on a line and others
    # do not, alternating one-line and two-line findings is hard to scan.
    split = width is not None and any(cells(finding_line(f).plain) > width for f in shown)
    for f in shown:
        if last_file is not None and f.file != last_file:
            console.print()
        last_file = f.file
        for line in finding_lines(f, width, split):
            console.print(line, soft_wrap=True)


COLLAPSE_AT = 5  # a handful of repeats reads fine line by line and keeps every location
_INDEX = re.compile(r"\[\d+\]")


def collapse(findings: list[Finding]) -> list[Finding]:
    """The findings in order, each group of COLLAPSE_AT or more that differ only in the list
    index of their field path (same file, code, severity, message and kind) replaced by one at
    its first place."""
    groups: dict[tuple, list[Finding]] = {}
    keys = []
    for n, f in enumerate(findings):
        general = _INDEX.sub("[*]", f.field)
        # Only repeats over the items of a list: separate objects or documents are separate
        # places to fix, each with its own location.
        key = (f.file, f.code, f.severity, f.message, f.kind, general) if general != f.field else n
        groups.setdefault(key, []).append(f)
        keys.append(key)
    out, done = [], set()
    for f, key in zip(findings, keys, strict=True):
        group = groups[key]
        if len(group) < COLLAPSE_AT or _varying_index(group) is None:
            out.append(f)
        elif key not in done:
            done.add(key)
            out.append(_collapsed(group[0], group))
    return out


def _collapsed(first: Finding, repeats: list[Finding]) -> Finding:
    """One finding standing for all: `54 devices: spec.devices[*].x: message`, the first's
    location, and its object (`and N more` when they are spread over several)."""
    objects = list(dict.fromkeys((f.namespace, f.name) for f in repeats))
    text = f"{len(repeats)} {_varying_list(repeats)}: {_INDEX.sub('[*]', first.field)}: {first.message}"
    name = first.name + (f" and {len(objects) - 1} more" if len(objects) > 1 else "")
    return first.located(message=text, path=(), name=name)


def _varying_index(group: list[Finding]) -> int | None:
    """The one position of the field paths where the list index differs; None when they are all
    the same field (separate objects) or differ in more than one index (other containers)."""
    paths = [f.path for f in group]
    varying = {i for p in paths for i, elem in enumerate(p) if elem != paths[0][i]}
    if len(varying) != 1:
        return None
    position = varying.pop()
    return position if position > 0 and isinstance(paths[0][position - 1], str) else None


def _varying_list(repeats: list[Finding]) -> str:
    """The name of the list whose index differs among the findings (`devices`)."""
    return str(repeats[0].path[_varying_index(repeats) - 1])


def report(result: "Result", view: "View") -> "Drawing":
    """`validate -o text`: the findings, then the summary line."""
    from dractl.report.registry import Drawing

    def draw(console) -> None:
        print_findings(console, result.findings, quiet=view.quiet)
        if not view.quiet and any(f.severity != INFO for f in result.findings):  # info: machine formats only
            console.print()
        if getattr(view, "verbose", False):
            print_objects(console, result)
        console.print(summary_line(result.files, result.documents_read, result.errors(),
                                   result.warnings(), result.validated.skipped,
                                   result.not_read.counts if result.not_read else None,
                                   suppressed_count(result)))

    return Drawing(draw, plain=True)  # lines and strings only


def print_objects(console, result) -> None:
    """--verbose: every document read and its result (kubeconform's -verbose), then a blank line."""
    from dractl.report.objects import object_results

    rows = object_results(result.findings, result.docs)
    for d, outcome in rows:
        obj = f"{d.namespace}/{d.name}" if d.namespace else d.name
        what = f"{d.kind} {obj}".strip() or f"document {d.index + 1}"
        line = Styled().append(safe_line(f"{d.file}:{d.line}:{d.column}"), "bold").append("  ")
        line.append(safe_line(what)).append("  ")
        style = "bold red" if outcome.startswith("invalid") else "dim" if outcome.startswith("skipped") \
            else "green"
        console.print(line.append(safe_line(outcome), style), soft_wrap=True)
    if rows:
        console.print()


def suppressed_count(result) -> int:
    """Findings the manifests' own suppressions (dractl.validate.suppress) covered."""
    suppressions = getattr(result.validated, "suppressions", None)
    return suppressions.suppressed if suppressions is not None else 0
