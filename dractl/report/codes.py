"""The finding-code table, gathered from every module that registers codes."""

from __future__ import annotations

import importlib

from dractl.findings import CODES, RuleDoc

# Modules that register codes at import time.
_CODE_MODULES = (
    "dractl.load.parse",
    "dractl.validate.pipeline",
    "dractl.validate.schema",
    "dractl.validate.fieldhints",
    "dractl.validate.suppress",
    "dractl.validate.rules",
    "dractl.validate.refs",
    "dractl.validate.envlints",
    "dractl.validate.inventorylints",
    "dractl.simulate.reasons",
    "dractl.downward",
    "dractl.extensions.podgroup_constraints",
)


def load_all_codes() -> list[RuleDoc]:
    for name in _CODE_MODULES:
        importlib.import_module(name)  # a missing module is a bug, not an option
    return [CODES[c] for c in sorted(CODES)]


def _rows():
    return load_all_codes()


def report_text(result, view, rows=None) -> str:
    """`codes`: one line per code."""
    return "".join(f"{r.code}  {r.severity:<7}  {r.origin:<9}  {r.summary}\n" for r in rows or _rows())


def report_json(result, view, rows=None) -> str:
    """`codes -o json`."""
    from dractl.report.findings_json import dumps

    return dumps([{"code": r.code, "severity": r.severity, "origin": r.origin,
                   "summary": r.summary} for r in rows or _rows()])


def report_markdown(result, view, rows=None) -> str:
    """`codes -o markdown`: a table for documentation."""
    lines = ["| Code | Severity | Origin | Meaning |", "| --- | --- | --- | --- |"]
    for r in rows or _rows():
        summary = r.summary.replace("|", "\\|")
        lines.append(f"| {r.code} | {r.severity} | {r.origin} | {summary} |")
    return "\n".join(lines) + "\n"


def explain_code(code: str, fmt: str = "text") -> str:
    """`dractl codes CODE`: the long explanation (text, markdown or json). LookupError with a
    did-you-mean for a code that does not exist."""
    from dractl.report import code_docs

    table = {r.code: r for r in _rows()}
    wanted = code.strip().upper()
    doc = table.get(wanted)
    prefixed = [r for c, r in table.items() if c.startswith(wanted)] if wanted.startswith("DRA") else []
    if doc is None and prefixed:  # `dractl codes DRA10`: the codes it begins, as --select reads it
        render = {"markdown": report_markdown, "json": report_json}.get(fmt, report_text)
        return render(None, None, prefixed)
    if doc is None:
        from dractl.suggest import closest_match

        guess = closest_match(code.strip().upper(), sorted(table))
        hint = f"; did you mean {guess}?" if guess else ""
        raise LookupError(f"codes: no finding code {code!r}{hint}")
    if fmt == "markdown":
        return code_docs.markdown(doc)
    if fmt == "json":
        from dractl.report.findings_json import dumps

        found = code_docs.explanation(doc)
        return dumps({"code": doc.code, "severity": doc.severity, "origin": doc.origin,
                      "summary": doc.summary, "explanation": found.markdown if found else "",
                      "source": found.source if found else ""})
    return code_docs.text(doc)


def write_code_index() -> None:
    """Regenerate dractl/report/code_index.py from the registry."""
    import pathlib

    codes = [r.code for r in _rows()]
    rows = ["    " + ", ".join(f'"{c}"' for c in codes[i:i + 8]) + "," for i in range(0, len(codes), 8)]
    path = pathlib.Path(__file__).with_name("code_index.py")
    head = path.read_text().split("ALL_CODES = (")[0]
    path.write_text(head + "ALL_CODES = (\n" + "\n".join(rows) + "\n)\n")
