"""`-o junit`: JUnit XML, as Jenkins, GitLab, Azure DevOps, CircleCI and friends read it.

One <testsuite> per input file, one <testcase> per document in it (named after the object, e.g.
`ResourceClaim default/gpu`), plus a `(file)` test case for findings that belong to no document
(syntax errors, unreadable files). A test case fails when its document has errors: one <failure>
whose message is the first error and whose text lists every finding of the document as
`file:line:column: severity CODE field: message`. Warnings of passing documents go to the test
case's <system-out>, so every format carries the same findings.

The output is valid against the Jenkins/Surefire JUnit schema (junit-10.xsd), has no timestamps
or durations, and escapes every character XML 1.0 cannot carry.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING, Iterable
from xml.sax.saxutils import escape, quoteattr

from dractl.findings import ERROR, Finding
from dractl.report.sanitize import safe_line, safe_text

if TYPE_CHECKING:  # one test case per document, described by the pipeline
    from dractl.pipeline.result import DocInfo

FILE_CASE = "(file)"

# Characters XML 1.0 cannot carry even as references: surrogates (from undecodable file names)
# and U+FFFE/U+FFFF. Controls are already escaped by sanitize.
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")




def _xml(text: str, one_line: bool) -> str:
    text = safe_line(text) if one_line else safe_text(text)
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _attr(text: str) -> str:
    return quoteattr(_xml(text, True))


def _body(text: str) -> str:
    return escape(_xml(text, False))


def finding_text(f: Finding) -> str:
    where = f.file or "<input>"
    if f.line:
        where += f":{f.line}:{f.column}"
    return f"{where}: {f.severity} {f.code} {f.text}"


def _case_name(d: DocInfo) -> str:
    obj = f"{d.namespace}/{d.name}" if d.namespace else d.name
    if d.kind and obj:
        return f"{d.kind} {obj}"
    if d.kind:
        return f"{d.kind} (document {d.index + 1})"
    return f"document {d.index + 1}"


def _owner(f: Finding, by_identity: dict) -> object | None:
    """The document a finding belongs to: same file and object, the last one starting at or
    before the finding's line (a file may hold the same object twice)."""
    if not f.kind and not f.name:
        return None
    candidates = by_identity.get((f.file, f.api_version, f.kind, f.namespace, f.name))
    if not candidates:
        return None
    best = candidates[0]
    for d in candidates:
        if (d.line, d.column) <= (f.line, f.column):
            best = d
    return best


def render(findings: Iterable[Finding], documents: Iterable[DocInfo], *,
           name: str = "dractl") -> str:
    findings = list(findings)
    documents = list(documents)
    files: list[str] = []
    docs_of: dict[str, list] = defaultdict(list)
    by_identity: dict[tuple, list] = defaultdict(list)
    for d in documents:
        if d.file not in docs_of:
            files.append(d.file)
        docs_of[d.file].append(d)
        by_identity[(d.file, d.api_version, d.kind, d.namespace, d.name)].append(d)

    per_doc: dict[int, list[Finding]] = defaultdict(list)
    per_file: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        owner = _owner(f, by_identity)
        if owner is not None:
            per_doc[id(owner)].append(f)
        else:
            if f.file not in docs_of and f.file not in per_file:
                files.append(f.file)
            per_file[f.file].append(f)

    suites = []
    total_tests = total_failures = 0
    for file in sorted(files):  # the order of the text report (findings sort by file)
        cases = []
        if per_file.get(file):
            cases.append((FILE_CASE, per_file[file]))
        seen: dict[str, int] = defaultdict(int)
        for d in docs_of.get(file, []):
            seen[_case_name(d)] += 1
        for d in docs_of.get(file, []):
            case = _case_name(d)
            if seen[case] > 1:  # the same object twice in one file: tell the cases apart
                case += f" (line {d.line})"
            cases.append((case, per_doc.get(id(d), [])))
        failures = sum(1 for _, fs in cases if any(f.severity == ERROR for f in fs))
        total_tests += len(cases)
        total_failures += failures
        lines = [f"  <testsuite name={_attr(file or '<input>')} tests=\"{len(cases)}\" "
                 f"failures=\"{failures}\" errors=\"0\" skipped=\"0\">"]
        for case, fs in cases:
            lines.append(_testcase(file or "<input>", case, fs))
        lines.append("  </testsuite>")
        suites.append("\n".join(lines))
    head = (f"<testsuites name={_attr(name)} tests=\"{total_tests}\" failures=\"{total_failures}\" "
            "errors=\"0\">")
    body = "\n".join(suites)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + head + "\n" + (body + "\n" if body else "")
            + "</testsuites>\n")


def _testcase(classname: str, case: str, fs: list[Finding]) -> str:
    start = f"    <testcase name={_attr(case)} classname={_attr(classname)}"
    if not fs:
        return start + "/>"
    errors = [f for f in fs if f.severity == ERROR]
    listing = "\n".join(finding_text(f) for f in fs)
    out = [start + ">"]
    if errors:
        first = errors[0]
        message = f"{first.code} {first.text}"
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more error{'s' * (len(errors) > 2)})"
        out.append(f"      <failure type={_attr(first.code)} message={_attr(message)}>"
                   f"{_body(listing)}</failure>")
    else:
        out.append(f"      <system-out>{_body(listing)}</system-out>")
    out.append("    </testcase>")
    return "\n".join(out)


def report(result, view) -> str:
    """`-o junit` of validate or allocate (a dry run's outcomes join as findings)."""
    return render(result.ci_findings(), result.docs, name=f"dractl {result.command}")
