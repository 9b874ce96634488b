"""The finding-code table, gathered from every module that registers codes."""

from __future__ import annotations

import importlib

from dractl.findings import CODES, RuleDoc

# Modules that register codes at import time.
_CODE_MODULES = (
    "dractl.load.parse",
    "dractl.validate.pipeline",
    "dractl.validate.schema",
    "dractl.validate.rules",
    "dractl.validate.refs",
    "dractl.validate.envlints",
    "dractl.validate.inventorylints",
    "dractl.simulate.reasons",
    "dractl.downward",
)


def load_all_codes() -> list[RuleDoc]:
    for name in _CODE_MODULES:
        importlib.import_module(name)  # a missing module is a bug, not an option
    return [CODES[c] for c in sorted(CODES)]


def _rows():
    return load_all_codes()


def report_text(result, view) -> str:
    """`codes`: one line per code."""
    return "".join(f"{r.code}  {r.severity:<7}  {r.origin:<9}  {r.summary}\n" for r in _rows())


def report_json(result, view) -> str:
    """`codes -o json`."""
    from dractl.report.findings_json import dumps

    return dumps([{"code": r.code, "severity": r.severity, "origin": r.origin,
                   "summary": r.summary} for r in _rows()])


def report_markdown(result, view) -> str:
    """`codes -o markdown`: a table for documentation."""
    lines = ["| Code | Severity | Origin | Meaning |", "| --- | --- | --- | --- |"]
    for r in _rows():
        summary = r.summary.replace("|", "\\|")
        lines.append(f"| {r.code} | {r.severity} | {r.origin} | {summary} |")
    return "\n".join(lines) + "\n"
