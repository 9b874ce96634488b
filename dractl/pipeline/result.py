"""The one result object of a run: what every reporter renders and what the exit status is
computed from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dractl.api.record import FrozenRecord
from dractl.findings import ERROR, WARNING, Finding

if TYPE_CHECKING:
    from dractl.load.document import Document
    from dractl.simulate.state import Plan
    from dractl.validate.pipeline import Validated

# What a result was produced for: picks the reporters that apply (dractl.report.registry).
VALIDATE, ALLOCATE, ENV, METADATA, CAPACITY = "validate", "allocate", "env", "metadata", "capacity"


class DocInfo(FrozenRecord):
    """Where a document sits and what it is: one JUnit test case per document."""

    __slots__ = ("file", "line", "column", "api_version", "kind", "namespace", "name", "index",
                 "skipped")

    def __init__(self, file: str, line: int, column: int, api_version: str, kind: str,
                 namespace: str, name: str, index: int, skipped: str = "") -> None:
        # index: position in its file (0-based); skipped: why the document was not checked
        # ("" when it was). Set like a frozen dataclass's fields.
        for name_, value in zip(self.__slots__, (file, line, column, api_version, kind, namespace,
                                                 name, index, skipped), strict=True):
            object.__setattr__(self, name_, value)

    @classmethod
    def of(cls, d: "Document", skipped: str = "") -> "DocInfo":
        return cls(d.file, d.line, d.column, d.api_version, d.kind, d.namespace, d.name, d.index,
                   skipped)


@dataclass
class Result:
    """Findings, counts and (for a dry run) the plan of one run.

    findings: the loader's and validator's findings in report order (with --strict, warnings
    already count as errors). validated: the documents for the later stages and which of them
    are unusable. plan: the dry run's outcome (None for `check`).
    """

    command: str
    findings: list[Finding]
    validated: "Validated"
    docs: list[DocInfo] = field(default_factory=list)   # every document read, in input order
    files: int = 0
    documents_read: int = 0
    usage_errors: list[str] = field(default_factory=list)
    io_errors: int = 0
    plan: "Plan | None" = None
    gates: object = None                  # the FeatureGates of the run
    capacity: dict | None = None          # capacity: the pools/nodes/fit document
    capacity_state: object = None         # capacity: dractl.capacity.document.CapacityState
    metadata_versions: tuple | None = None  # env --metadata: the stream's versions (None: release default)
    not_read: object = None               # dractl.pipeline.notmanifests.NotRead, or None
    inventory_sources: tuple = ()         # the files given as cluster state (-i), as findings name them

    @property
    def usage_failed(self) -> bool:
        """An unusable path argument or an unreadable file: exit status 2."""
        return bool(self.usage_errors or self.io_errors)

    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == WARNING)

    def failed(self) -> bool:
        """Exit status 1 (when nothing made it 2): what counts as failure for this command."""
        if self.command == VALIDATE:
            return self.errors() > 0
        if self.command == ALLOCATE:
            return not self.plan.ok() or self.errors() > 0
        if self.command == ENV:
            # Error findings fail env as they fail validate and allocate: the manifests would
            # be rejected, whatever the references resolved to.
            return self.errors() > 0 or env_failed(self.plan)
        if self.command == CAPACITY:
            need = (self.capacity or {}).get("fit", {}).get("need")
            return self.errors() > 0 or (need is not None and need.get("nodes") is None)
        return False  # METADATA: a prediction, nothing to fail

    def outcome_findings(self) -> list[Finding]:
        """A dry run's outcomes as findings (consequences of what the findings say, if any)."""
        if self.plan is None:
            return []
        from dractl.pipeline.outcomes import plan_findings

        return plan_findings(self.plan)

    def ci_findings(self) -> list[Finding]:
        """The findings CI formats report: for a dry run, its outcomes join as findings."""
        if self.plan is None:
            return self.findings
        return sorted(self.findings + self.outcome_findings(), key=Finding.sort_key)


def env_failed(plan: "Plan") -> bool:
    """An env reference of a container fails (the container would not start)."""
    from dractl.downward import env_refs

    for p in plan.pods:
        refs = env_refs(p.pod.spec)
        if any(p.env_errors.get(name) for name in dict.fromkeys(r.container for r in refs)):
            return True
    return False
