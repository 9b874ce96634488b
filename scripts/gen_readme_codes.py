"""Regenerate the finding-code table in README.md from the code registry.

Usage: python scripts/gen_readme_codes.py [--check]
The table sits between the markers `<!-- codes:start -->` and `<!-- codes:end -->`.
"""

from __future__ import annotations

import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- codes:start -->", "<!-- codes:end -->"


def table() -> str:
    from dractl.report.codes import load_all_codes

    rows = ["| Code | Severity | From | Meaning |", "|---|---|---|---|"]
    for row in load_all_codes():
        summary = row.summary.replace("|", "\\|")
        rows.append(f"| {row.code} | {row.severity} | {row.origin} | {summary} |")
    return "\n".join(rows)


def render(text: str) -> str:
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main() -> int:
    text = README.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print("README.md has no code-table markers", file=sys.stderr)
        return 2
    new = render(text)
    if "--check" in sys.argv:
        if new != text:
            print("README.md code table is stale: run python scripts/gen_readme_codes.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
