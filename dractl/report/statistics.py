"""`--statistics`: how often each code occurs, most frequent first (ruff's `--statistics`).

    12  DRA2003  warning  deviceClassName names no DeviceClass among the inputs ...
     1  DRA1009  error    count must be greater than zero for ExactCount

For `allocate` the dry run's failures count too (the findings the CI formats carry).
"""

from __future__ import annotations

from collections import Counter

from dractl.findings import INFO, Finding
from dractl.report.styled import Styled


def rows(findings: list[Finding], quiet: bool = False) -> list[tuple[int, str, str]]:
    counts = Counter((f.code, f.severity) for f in findings
                     if f.severity != INFO and not (quiet and f.severity != "error"))
    return sorted(((n, code, severity) for (code, severity), n in counts.items()),
                  key=lambda row: (-row[0], row[1], row[2]))


def report(result, view):
    from dractl.report.codes import load_all_codes
    from dractl.report.registry import Drawing

    summaries = {r.code: r.summary for r in load_all_codes()}
    table = rows(result.ci_findings(), view.quiet)
    width = max((len(str(n)) for n, _, _ in table), default=1)

    def draw(console) -> None:
        for n, code, severity in table:
            line = Styled().append(f"{n:>{width}}  ").append(code, "cyan").append("  ")
            line.append(f"{severity:<7}", "bold red" if severity == "error" else "yellow")
            console.print(line.append(f"  {summaries.get(code, '')}".rstrip()), soft_wrap=True)
        total = sum(n for n, _, _ in table)
        console.print(Styled().append(f"{total} finding{'s' * (total != 1)} in {len(table)} "
                                      f"code{'s' * (len(table) != 1)}"))

    return Drawing(draw, plain=True)
