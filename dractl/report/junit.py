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
from dractl.report.objects import owner as find_owner
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


def render(findings: Iterable[Finding], documents: Iterable[DocInfo], *,
           name: str = "dractl", outcomes: Iterable[Finding] = (),
           inventory: tuple = ()) -> str:
    """outcomes: a dry run's outcomes as findings, listed after the findings of their document
    (the consequence after its cause). inventory: the files given as cluster state, whose
    objects get their own suites, with only the objects that have findings."""
    outcomes = list(outcomes)
    consequences = {id(f) for f in outcomes}
    findings = sorted(list(findings) + outcomes, key=Finding.sort_key) if outcomes else list(findings)
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
        owner = find_owner(f, by_identity)
        if owner is not None:
            per_doc[id(owner)].append(f)
        else:
            if f.file not in docs_of and f.file not in per_file:
                files.append(f.file)
            per_file[f.file].append(f)

    suites = []
    total_tests = total_failures = 0
    for file in sorted(files):  # the order of the text report (findings sort by file)
        from_inventory = _from_inventory(file, inventory)
        cases = _cases(file, docs_of.get(file, []), per_doc, per_file, consequences, from_inventory)
        if not cases:
            continue
        failures = sum(1 for _, fs, _ in cases if any(f.severity == ERROR for f in fs))
        skipped = sum(1 for _, _, why in cases if why)
        total_tests += len(cases)
        total_failures += failures
        shown = file or "<input>"
        suite = f"inventory {shown}" if from_inventory else shown
        lines = [f"  <testsuite name={_attr(suite)} tests=\"{len(cases)}\" "
                 f"failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">"]
        lines.extend(_testcase(shown, case, fs, why) for case, fs, why in cases)
        lines.append("  </testsuite>")
        suites.append("\n".join(lines))
    head = (f"<testsuites name={_attr(name)} tests=\"{total_tests}\" failures=\"{total_failures}\" "
            "errors=\"0\">")
    body = "\n".join(suites)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + head + "\n" + (body + "\n" if body else "")
            + "</testsuites>\n")


def _from_inventory(file: str, inventory: tuple) -> bool:
    return any(file == source or file.startswith(source.rstrip("/") + "/") for source in inventory)


def _cases(file: str, docs: list, per_doc: dict, per_file: dict, consequences: set,
           inventory: bool) -> list[tuple[str, list[Finding], str]]:
    """(test case name, findings with causes before consequences, why skipped or "")."""
    def ordered(fs: list[Finding]) -> list[Finding]:
        return sorted(fs, key=lambda f: (id(f) in consequences, f.line, f.column, f.code))

    cases = []
    if per_file.get(file):
        cases.append((FILE_CASE, ordered(per_file[file]), ""))
    seen: dict[str, int] = defaultdict(int)
    for d in docs:
        seen[_case_name(d)] += 1
    for d in docs:
        fs = per_doc.get(id(d), [])
        if inventory and not fs:
            continue  # cluster state that is fine: not a test of the user's manifests
        case = _case_name(d)
        if seen[case] > 1:  # the same object twice in one file: tell the cases apart
            case += f" (line {d.line})"
        cases.append((case, ordered(fs), "" if fs else getattr(d, "skipped", "")))
    return cases


def _testcase(classname: str, case: str, fs: list[Finding], skipped: str = "") -> str:
    start = f"    <testcase name={_attr(case)} classname={_attr(classname)}"
    if skipped:
        return f"{start}>\n      <skipped message={_attr(skipped)}/>\n    </testcase>"
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
    """`-o junit` of validate or allocate (a dry run's outcomes join as findings, after the
    findings of their document), and of the upgrade check."""
    if hasattr(result, "outcome_findings"):
        findings, outcomes = result.findings, result.outcome_findings()
    else:
        findings, outcomes = result.ci_findings(), []
    return render(findings, result.docs, name=f"dractl {result.command}", outcomes=outcomes,
                  inventory=getattr(result, "inventory_sources", ()))
