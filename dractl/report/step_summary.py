"""The job summary of `-o github`: when GitHub Actions sets `$GITHUB_STEP_SUMMARY` (a file the
runner renders as Markdown on the run's page), dractl appends a table of the findings, or for
`allocate` the plan's counts and its failures. Annotations alone are capped by GitHub (10 errors
and 10 warnings per step are shown inline); the summary always has all of them."""

from __future__ import annotations

import os
from collections import Counter

from dractl.findings import ERROR, INFO, WARNING, Finding
from dractl.report.github import annotation_path
from dractl.report.sanitize import safe_line

ENV = "GITHUB_STEP_SUMMARY"
MAX_ROWS = 1000  # GitHub accepts up to 1 MiB of summary per step


def _cell(text: str) -> str:
    return safe_line(text).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def _where(f: Finding) -> str:
    path = annotation_path(f.file) or f.file or "-"
    return f"{path}:{f.line}:{f.column}" if f.line else path


def findings_table(findings: list[Finding]) -> list[str]:
    shown = [f for f in findings if f.severity != INFO]
    if not shown:
        return ["No errors or warnings."]
    lines = ["| Location | Code | Severity | Message |", "|---|---|---|---|"]
    for f in shown[:MAX_ROWS]:
        message = f.text
        if f.kind:
            message += f" ({f.kind} {f.namespace + '/' if f.namespace else ''}{f.name})"
        lines.append(f"| {_cell(_where(f))} | {f.code} | {f.severity} | {_cell(message)} |")
    if len(shown) > MAX_ROWS:
        lines.append(f"\n{len(shown) - MAX_ROWS} more not shown.")
    return lines


def validate_summary(findings: list[Finding], files: int, documents: int) -> str:
    counts = Counter(f.severity for f in findings)
    head = (f"### dractl validate\n\n{files} file(s), {documents} document(s): "
            f"{counts[ERROR]} error(s), {counts[WARNING]} warning(s)\n")
    return head + "\n" + "\n".join(findings_table(findings)) + "\n"


def allocate_summary(plan, findings: list[Finding]) -> str:
    """Counts of the dry run, then every finding (validation and scheduling failures alike)."""
    from dractl.simulate.state import SCHEDULED

    scheduled = sum(1 for p in plan.pods if p.status == SCHEDULED)
    allocated = sum(1 for c in plan.claims if c.status == "Allocated")
    lines = ["### dractl allocate", "",
             "| Pods | Scheduled | Not scheduled | Claims allocated | Nodes |", "|---|---|---|---|---|",
             f"| {len(plan.pods)} | {scheduled} | {len(plan.pods) - scheduled} | {allocated} | {len(plan.nodes)} |",
             ""]
    return "\n".join(lines + findings_table(findings)) + "\n"


def write(text: str) -> str | None:
    """Append to the step summary file when the runner set one. Returns a message when the
    file cannot be written (the caller warns; the annotations on stdout are the result)."""
    path = os.environ.get(ENV)
    if not path:
        return None
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        return f"${ENV} ({path}): {(exc.strerror or str(exc)).lower()}; no job summary written"
    return None
