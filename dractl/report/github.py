"""`-o github`: GitHub Actions workflow commands, one annotation per finding.

    ::error file=deploy/claim.yaml,line=12,col=9,title=DRA1002::spec.devices.requests[0].name: ...

Escaping follows the workflow-command rules (the runner's `escapeData` / `escapeProperty`):
`%`, CR and LF in the message, plus `:` and `,` in properties. Other control characters from
manifests are shown as visible escapes (`\\x1b`), never passed to the log.
"""

from __future__ import annotations

import os

from dractl.findings import ERROR, WARNING, Finding
from dractl.report.inputpaths import checkout_path
from dractl.report.sanitize import safe_line

_COMMAND = {ERROR: "error", WARNING: "warning"}  # anything else (info) is a notice


def escape_data(text: str) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return safe_line(text)


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation_path(name: str) -> str:
    """Paths relative to the working directory (the checkout), `/`-separated, without `./`."""
    path = checkout_path(name)
    return "" if path is None else path.replace(os.sep, "/")


def annotation(f: Finding) -> str:
    props = []
    path = annotation_path(f.file)
    if path:
        props.append(f"file={escape_property(path)}")
        if f.line:
            props.append(f"line={f.line}")
            if f.column:
                props.append(f"col={f.column}")
    props.append(f"title={escape_property(f.code)}")
    message = f.text
    if f.kind:
        obj = f"{f.namespace}/{f.name}" if f.namespace else f.name
        message += f" ({f.kind} {obj})".rstrip(" ") if obj else f" ({f.kind})"
    if not path and f.file:
        message = f"{f.file}: {message}"
    command = _COMMAND.get(f.severity, "notice")
    return f"::{command} {','.join(props)}::{escape_data(message)}"


def render(findings: list[Finding]) -> str:
    """One annotation per finding; the same finding twice (same place, code, message and
    object) is annotated once, as GitHub would show it twice."""
    seen: set = set()
    out = []
    for f in findings:
        key = (f.file, f.line, f.column, f.code, f.severity, f.message, f.path, f.kind, f.namespace,
               f.name)
        if key not in seen:
            seen.add(key)
            out.append(annotation(f) + "\n")
    return "".join(out)


def report(result, view) -> str:
    """`-o github` of validate or allocate (a dry run's outcomes join as findings)."""
    return render(result.ci_findings())
