"""`-o sarif`: SARIF 2.1.0 for GitHub code scanning, GitLab, Azure DevOps and SARIF viewers.

One run; the tool's rules are the codes that fired, from the finding-code table (id,
description, full help, default level), results point at `file` + region (line, column in Unicode code points) relative to the
checkout (`%SRCROOT%`), and name the Kubernetes object as a logical location. Deterministic:
no timestamps, no absolute paths of the machine unless an input was given as one.
"""

from __future__ import annotations

import json
import os
import re
from typing import Iterable
from urllib.parse import quote

from dractl.findings import ERROR, WARNING, Finding, RuleDoc
from dractl.report.inputpaths import checkout_path
from dractl.report.sanitize import safe_line

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {ERROR: "error", WARNING: "warning"}
_SECURITY = {ERROR: "error", WARNING: "warning"}
_ORIGIN = {
    "apiserver": "The Kubernetes API server rejects such an object (kubectl apply fails).",
    "schema": "The object does not match the OpenAPI schema of the selected Kubernetes version.",
    "loader": "The file cannot be read as Kubernetes manifests.",
    "dractl": "A dractl check: no API server reports this, but the object will not work as meant.",
    "scheduler": "kube-scheduler's dry run: the pod would stay Pending or the claim unallocated.",
}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(s: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", safe_line(s))


def _text_block(s: str) -> str:
    """Multi-line help text: control characters escaped, line breaks kept."""
    return "\n".join(_text(line) for line in s.split("\n"))


def artifact_uri(name: str) -> tuple[str, bool] | None:
    """(uri, relative?) of an input file; None for standard input."""
    path = checkout_path(name)
    if path is None:
        return None
    raw = os.fsencode(path)  # undecodable file names keep their bytes, percent-encoded
    if os.path.isabs(path):
        return "file://" + quote(raw.replace(os.sep.encode(), b"/"), safe="/"), False
    return quote(raw.replace(os.sep.encode(), b"/"), safe="/"), True


def rule(doc: RuleDoc) -> dict:
    """One rule; `help` is the code's long explanation (`dractl codes CODE`), as text and as
    Markdown (what code-scanning UIs show), ending with how to ignore it."""
    from dractl.report import code_docs

    level = _LEVEL.get(doc.severity, "note")
    origin = _ORIGIN.get(doc.origin, "")
    summary = doc.summary[:1].upper() + doc.summary[1:]
    ignore = (f"To ignore it: `--ignore {doc.code}`, or list it under `ignore:` in .dractl.yaml.")
    if doc.modules and code_docs.explanation(doc) is not None:
        help_entry = {"text": _text_block(code_docs.text(doc)),
                      "markdown": _text_block(code_docs.markdown(doc) + "\n" + ignore + "\n")}
    else:  # a code outside the table (see document()): what is known about it
        help_entry = {"text": _text(f"{summary}. {origin} Default severity: {doc.severity}. "
                                    f"{ignore}".replace("  ", " "))}
    return {
        "id": doc.code,
        "shortDescription": {"text": _text(summary)},
        "fullDescription": {"text": _text(f"{summary}. {origin}".strip())},
        "help": help_entry,
        "defaultConfiguration": {"level": level},
        "properties": {"tags": [doc.origin], "problem.severity": _SECURITY.get(doc.severity, "recommendation")},
    }


def result(f: Finding, rule_index: int) -> dict:
    message = f.text
    out: dict = {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": _LEVEL.get(f.severity, "note"),
        "message": {"text": _text(message)},
    }
    location: dict = {}
    uri = artifact_uri(f.file)
    if uri is not None:
        artifact: dict = {"uri": uri[0]}
        if uri[1]:
            artifact["uriBaseId"] = "%SRCROOT%"
        physical: dict = {"artifactLocation": artifact}
        if f.line > 0:
            region = {"startLine": f.line}
            if f.column > 0:
                region["startColumn"] = f.column
            physical["region"] = region
        location["physicalLocation"] = physical
    if f.kind:
        obj = f"{f.namespace}/{f.name}" if f.namespace else f.name
        logical = {"name": _text(f.name or f.kind), "kind": "resource",
                   "fullyQualifiedName": _text(f"{f.kind}/{obj}" if obj else f.kind)}
        location["logicalLocations"] = [logical]
    if location:
        out["locations"] = [location]
    props = {k: _text(v) for k, v in (("file", f.file), ("field", f.field), ("apiVersion", f.api_version),
                                      ("kind", f.kind), ("namespace", f.namespace), ("name", f.name)) if v}
    if props:
        out["properties"] = props
    return out


def document(findings: Iterable[Finding], rules: Iterable[RuleDoc], *, version: str,
             successful: bool = True) -> dict:
    """The run's rules are the codes that fired (each with its full help), not the whole code
    table: code-scanning reads rules from the results, and the whole table's help is half a
    megabyte in every upload."""
    table = {r.code: r for r in rules}
    findings = list(findings)
    for f in findings:  # a code missing from the table still gets a rule entry
        if f.code not in table:
            table[f.code] = RuleDoc(f.code, f.severity, f.code, "dractl")
    codes = sorted({f.code for f in findings})
    index = {code: i for i, code in enumerate(codes)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "dractl",
                "version": version,
                "semanticVersion": version,
                "rules": [rule(table[c]) for c in codes],
            }},
            "invocations": [{"executionSuccessful": successful}],
            "columnKind": "unicodeCodePoints",
            "results": [result(f, index[f.code]) for f in findings],
        }],
    }


def render(findings: Iterable[Finding], rules: Iterable[RuleDoc], *, version: str,
           successful: bool = True) -> str:
    return json.dumps(document(findings, rules, version=version, successful=successful),
                      indent=2, ensure_ascii=True) + "\n"


def report(result, view) -> str:
    """`-o sarif` of validate or allocate (a dry run's outcomes join as findings)."""
    from dractl import __version__
    from dractl.report.codes import load_all_codes

    return render(result.ci_findings(), load_all_codes(), version=__version__,
                  successful=not result.usage_failed)
