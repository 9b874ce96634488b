"""The upgrade check: the same inputs validated (or dry-run) under several Kubernetes releases,
and what changes from one release to the next: findings that appear or disappear (an API version
no longer served, a field dropped, a gate merged or locked) and allocation outcomes that differ.

    dractl validate --kube-version 1.36,1.37,1.38 manifests/
    dractl allocate --kube-version 1.36,1.37 -i dump.yaml workload.yaml

One run per release, each exactly the single-release run; the comparison is dractl's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from dractl.findings import Finding
from dractl.pipeline.result import Result

UPGRADE = "upgrade"


@dataclass
class ReleaseRun:
    version: str
    preview: bool
    result: Result


@dataclass
class UpgradeResult:
    """What every reporter renders for an upgrade check (the CI formats read the same methods a
    Result offers)."""

    base_command: str                     # validate | allocate
    runs: list[ReleaseRun]
    command: str = UPGRADE
    changes: list[dict] = field(default_factory=list)

    @property
    def newest(self) -> Result:
        return self.runs[-1].result

    @property
    def docs(self):
        return self.newest.docs

    @property
    def files(self) -> int:
        return self.newest.files

    @property
    def documents_read(self) -> int:
        return self.newest.documents_read

    plan = None  # no single plan: each release's is in runs

    @property
    def findings(self) -> list[Finding]:
        return self.ci_findings()

    @property
    def usage_errors(self) -> list[str]:
        seen: dict[str, None] = {}
        for run in self.runs:
            seen.update(dict.fromkeys(run.result.usage_errors))
        return list(seen)

    @property
    def usage_failed(self) -> bool:
        return any(run.result.usage_failed for run in self.runs)

    def failed(self) -> bool:
        return any(run.result.failed() for run in self.runs)

    def ci_findings(self) -> list[Finding]:
        """Every release's findings once, each marked with the releases that report it when that
        is not all of them ("[1.38 only]", "[1.36, 1.37; gone in 1.38]")."""
        versions = [run.version for run in self.runs]
        where: dict[tuple, list[str]] = {}
        first: dict[tuple, Finding] = {}
        for run in self.runs:
            for f in run.result.ci_findings():
                key = finding_key(f)
                first.setdefault(key, f)
                where.setdefault(key, [])
                if run.version not in where[key]:
                    where[key].append(run.version)
        out = []
        for key, f in first.items():
            seen = where[key]
            out.append(f if seen == versions else replace(f, message=f"{f.message} [{_releases(seen, versions)}]"))
        return sorted(out, key=Finding.sort_key)


def _releases(seen: list[str], versions: list[str]) -> str:
    gone = [v for v in versions if v not in seen]
    if len(seen) == 1:
        return f"Kubernetes {seen[0]} only"
    return f"Kubernetes {', '.join(seen)}; not {', '.join(gone)}"


def finding_key(f: Finding) -> tuple:
    return (f.file, f.line, f.column, f.code, f.path, f.message)


def upgrade_check(versions: list[str], run_one: Callable[[str], Result], base_command: str,
                  previews: tuple) -> UpgradeResult:
    runs = [ReleaseRun(v, v in previews, run_one(v)) for v in versions]
    result = UpgradeResult(base_command, runs)
    for before, after in zip(runs, runs[1:], strict=False):
        result.changes.append(_change(before, after))
    return result


def _change(before: ReleaseRun, after: ReleaseRun) -> dict:
    old = {finding_key(f): f for f in before.result.findings}
    new = {finding_key(f): f for f in after.result.findings}
    change = {"from": before.version, "to": after.version,
              "appeared": sorted((new[k] for k in new if k not in old), key=Finding.sort_key),
              "disappeared": sorted((old[k] for k in old if k not in new), key=Finding.sort_key),
              "outcomes": []}
    if before.result.plan is not None and after.result.plan is not None:
        change["outcomes"] = outcome_changes(before.result.plan, after.result.plan)
    return change


def outcome_changes(before, after) -> list[dict]:
    """Pods whose status, node or devices differ, and claims whose status differs."""
    out = []
    old_pods = {p.pod.key: _pod_outcome(p) for p in before.pods}
    for p in after.pods:
        then, now = old_pods.pop(p.pod.key, None), _pod_outcome(p)
        if then != now:
            out.append({"pod": p.pod.key, "from": then, "to": now})
    out.extend({"pod": key, "from": then, "to": None} for key, then in old_pods.items())
    old_claims = {c.ref: c.status for c in before.claims if not c.generated}
    for c in after.claims:
        if c.generated:
            continue
        then = old_claims.pop(c.ref, None)
        if then != c.status:
            out.append({"claim": c.ref, "from": {"status": then} if then else None, "to": {"status": c.status}})
    return out


def _pod_outcome(p) -> dict:
    devices = []
    for ref in p.claims:
        allocation = ref.claim.allocation if ref.claim is not None else None
        for r in allocation.devices if allocation is not None else ():
            devices.append(f"{r.driver}/{r.pool}/{r.device}")
    outcome = {"status": p.status, "node": p.node or None, "devices": devices}
    if p.status != "Scheduled" and p.reasons:
        outcome["reason"] = f"{p.reasons[0].code}: {p.reasons[0].message}"
    return outcome
