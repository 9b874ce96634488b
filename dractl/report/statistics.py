"""`--statistics`: how often each code occurs, most frequent first (ruff's `--statistics`).

    12  DRA2003  warning  deviceClassName names no DeviceClass among the inputs ...
     1  DRA1009  error    count must be greater than zero for ExactCount

For `allocate` the dry run's failures count too (the findings the CI formats carry). `-o json`
and `-o yaml` give the same table as a document (`{"statistics": [{"code", "severity", "count",
"summary"}], "total", "codes"}`); formats made for findings (junit, sarif, github, gitlab) have no
place for counts, so the CLI refuses --statistics with them (FORMATS).
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


# The -o formats --statistics can be printed in.
FORMATS = ("text", "concise", "json", "yaml")


def document(result, view) -> dict:
    from dractl.report.codes import load_all_codes

    summaries = {r.code: r.summary for r in load_all_codes()}
    table = rows(result.ci_findings(), view.quiet)
    return {"statistics": [{"code": code, "severity": severity, "count": n,
                            "summary": summaries.get(code, "")} for n, code, severity in table],
            "total": sum(n for n, _, _ in table), "codes": len(table)}


def render(output: str, result, view):
    """--statistics in the chosen format (one of FORMATS)."""
    if output == "json":
        from dractl.report.findings_json import dumps

        return dumps(document(result, view))
    if output == "yaml":
        import yaml

        return yaml.safe_dump(document(result, view), sort_keys=False, allow_unicode=False,
                              width=1000)
    return report(result, view)


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
