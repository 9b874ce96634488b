"""Which document a finding belongs to (JUnit test cases, --verbose): the document of the same
file and object that starts last at or before the finding (a file may hold an object twice)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Iterable

from dractl.findings import ERROR, WARNING, Finding

if TYPE_CHECKING:
    from dractl.pipeline.result import DocInfo


def identity_index(documents: Iterable["DocInfo"]) -> dict[tuple, list]:
    index: dict[tuple, list] = defaultdict(list)
    for d in documents:
        index[(d.file, d.api_version, d.kind, d.namespace, d.name)].append(d)
    return index


def owner(f: Finding, by_identity: dict) -> object | None:
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


def object_results(findings: list[Finding], documents: list["DocInfo"]) -> list[tuple["DocInfo", str]]:
    """Every document read and its result, in input order: `valid`, `valid (1 warning)`,
    `invalid (2 errors, 1 warning)` or `skipped (why)`."""
    by_identity = identity_index(documents)
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for f in findings:
        d = owner(f, by_identity)
        if d is not None and f.severity in (ERROR, WARNING):
            counts[id(d)][f.severity == WARNING] += 1
    out = []
    for d in documents:
        errors, warnings = counts.get(id(d), (0, 0))
        parts = [f"{n} {word}{'s' * (n != 1)}" for n, word in ((errors, "error"), (warnings, "warning")) if n]
        if getattr(d, "skipped", "") and not parts:
            out.append((d, f"skipped ({d.skipped})"))
        else:
            out.append((d, ("invalid" if errors else "valid") + (f" ({', '.join(parts)})" if parts else "")))
    return out
