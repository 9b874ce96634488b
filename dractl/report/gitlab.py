"""`-o gitlab`: GitLab's code quality report (artifacts:reports:codequality), the subset of the
Code Climate issue format GitLab reads, as documented at
https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format: a JSON array of
issues with `description`, `check_name`, `fingerprint`, `severity` (info, minor, major,
critical, blocker) and `location` {`path`, `lines`: {`begin`}}.

Severity: errors are `major`, warnings `minor`, info notes `info`. The fingerprint identifies an
issue across pipelines, so it is computed from what the finding is (code, file, object, field,
message) and not its line; identical findings get the occurrence number too (GitLab shows only
the first issue of a fingerprint). A finding outside any file (a dry-run outcome without a
source) is reported at the path `.`, line 1.
"""

from __future__ import annotations

import hashlib

from dractl.findings import ERROR, WARNING, Finding
from dractl.report.findings_json import dumps
from dractl.report.github import annotation_path

_SEVERITY = {ERROR: "major", WARNING: "minor"}


def issues(findings: list[Finding]) -> list[dict]:
    out = []
    seen: dict[str, int] = {}
    for f in findings:
        path = annotation_path(f.file) if f.file else ""
        identity = "\0".join((f.code, path or f.file, f.kind, f.namespace, f.name, f.field, f.message))
        n = seen[identity] = seen.get(identity, 0) + 1
        digest = hashlib.sha256(f"{identity}\0{n}".encode("utf-8", "surrogatepass")).hexdigest()
        obj = f"{f.namespace}/{f.name}" if f.namespace else f.name
        suffix = f" ({f.kind} {obj})".rstrip() if f.kind and obj else ""
        out.append({
            "description": f.text + suffix,
            "check_name": f.code,
            "fingerprint": digest[:32],
            "severity": _SEVERITY.get(f.severity, "info"),
            "location": {"path": path or ".", "lines": {"begin": max(f.line, 1)}},
        })
    return out


def report(result, view) -> str:
    """validate and allocate (a dry run's outcomes join as findings), and the upgrade check."""
    return dumps(issues(result.ci_findings()))
