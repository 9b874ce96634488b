"""`-o concise`: one line per finding, `file:line:column: CODE field: message` (ruff's concise
format, what editors' error lists and grep read), nothing else. Info notes (DRA1417) are left
out as in text; a finding without a place in a file has `file:` or `<input>:` alone.
"""

from __future__ import annotations

from dractl.findings import INFO, Finding
from dractl.report.sanitize import safe_line


def line(f: Finding) -> str:
    where = f.file or "<input>"
    if f.line:
        where += f":{f.line}:{f.column}"
    return safe_line(f"{where}: {f.code} {f.text}")


def report(result, view) -> str:
    """validate and allocate (a dry run's outcomes join as findings), and the upgrade check."""
    quiet = getattr(view, "quiet", False)
    return "".join(line(f) + "\n" for f in result.ci_findings()
                   if f.severity != INFO and not (quiet and f.severity != "error"))
