"""Paths -> Documents + loader findings: the loading stage as one call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import BinaryIO, Iterable

from dractl.findings import ERROR, WARNING, Finding
from dractl.load.document import Document
from dractl.load.limits import DEFAULT_LIMITS, Limits
from dractl.load.parse import parse_source
from dractl.load.reader import LoadProblem, Source, iter_sources


@dataclass
class LoadResult:
    documents: list[Document] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    documents_read: int = 0
    usage_errors: list[str] = field(default_factory=list)  # unusable path arguments (exit 2)
    io_errors: int = 0


def load_paths(paths: list[str], limits: Limits = DEFAULT_LIMITS,
               stdin: BinaryIO | None = None) -> LoadResult:
    return load_items(iter_sources(paths, limits, stdin), limits)


def load_items(items: Iterable[Source | LoadProblem], limits: Limits = DEFAULT_LIMITS) -> LoadResult:
    """Parse already-read sources; a LoadProblem becomes a finding (and, for an unusable
    command-line argument, a usage error)."""
    result = LoadResult()
    for item in items:
        if isinstance(item, LoadProblem):
            severity = WARNING if item.code == "DRA0013" and not item.usage else ERROR
            if item.usage:
                result.usage_errors.append(f"{item.name}: {item.message}")
            elif item.code == "DRA0012":
                result.io_errors += 1
            result.findings.append(Finding(severity, item.code, item.message, file=item.name))
            continue
        result.files += 1
        parsed = parse_source(item.name, item.data, limits)
        result.documents.extend(parsed.documents)
        result.findings.extend(parsed.findings)
        result.documents_read += parsed.raw_documents
    return result
