"""`--fit`: how many more replicas of one pod fit on top of the current state, found by placing
them one after another exactly as the dry run places pods (the same scheduling cycle, the same
node order), until one does not fit or `--max` is reached. Not an estimate.

The workload's own pods (a Deployment's declared replicas, the Pod itself) are part of the
inputs and placed first, like every input pod; the answer counts the replicas beyond them
("N more replica(s) (M in total)", M = the declared pods that were placed + N).

A pod that belongs to a gang (a PodGroup with minCount) is not replicated: its group fits or it
does not, and that is the answer (1 or 0).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from dractl.simulate.names import uid_for
from dractl.simulate.pods import PodInput
from dractl.simulate.state import SCHEDULED, PodResult

DEFAULT_MAX = 10_000


@dataclass
class FitOutcome:
    workload: str
    replicas: int = 0
    bounded: bool = False                 # stopped at --max: more may fit
    gang: bool = False
    stopped_by: PodResult | None = None   # the first replica that did not fit
    placements: list[dict] = field(default_factory=list)
    declared: int = 0                     # the workload's own pods among the inputs
    declared_placed: int = 0              # ... of them scheduled

    @property
    def total(self) -> int:
        """Replicas of the workload running once the answer's replicas are added."""
        return self.replicas if self.gang else self.declared_placed + self.replicas


def replica(template: PodInput, base: str, index: int) -> PodInput:
    """A copy of the pod as a controller would create another one: new name and uid, no status."""
    name = f"{base}-fit-{index}"
    uid = uid_for("Pod", template.namespace, name)
    manifest = dict(template.manifest)
    meta = dict(manifest.get("metadata") or {})
    meta.update(name=name, uid=uid)
    meta.pop("generateName", None)
    manifest["metadata"] = meta
    manifest.pop("status", None)
    return dataclasses.replace(template, name=name, uid=uid, status={}, manifest=manifest)


def fit_replicas(simulation, template: PodInput, base: str, workload: str, limit: int) -> FitOutcome:
    """Place replicas of `template` on `simulation` (already run) until one fails."""
    outcome = FitOutcome(workload)
    plan = simulation.plan
    for index in range(1, limit + 1):
        result = PodResult(replica(template, base, index))
        plan.pods.append(result)
        simulation.schedule(result)
        if result.status != SCHEDULED:
            outcome.stopped_by = result
            break
        outcome.replicas += 1
        outcome.placements.append(placement(result))
    else:
        outcome.bounded = True
    return outcome


def count_declared(outcome: FitOutcome, declared: list[PodResult]) -> None:
    outcome.declared = len(declared)
    outcome.declared_placed = sum(1 for p in declared if p.status == SCHEDULED)


def placed_pods(pods: list[PodResult]) -> dict:
    """How many input pods were placed and how many were not, with the first that was not."""
    missed = [p for p in pods if p.status != SCHEDULED]
    out: dict = {"pods": len(pods), "placed": len(pods) - len(missed), "notPlaced": len(missed)}
    if missed:
        out["firstNotPlaced"] = _stop_document(missed[0])
    return out


def gang_outcome(members: list[PodResult], workload: str) -> FitOutcome:
    placed = all(m.status == SCHEDULED for m in members)
    outcome = FitOutcome(workload, replicas=1 if placed else 0, gang=True)
    if placed:
        outcome.placements = [placement(m) for m in members]
    else:
        outcome.stopped_by = next((m for m in members if m.status != SCHEDULED), None)
    return outcome


def placement(result: PodResult) -> dict:
    devices = []
    for ref in result.claims:
        allocation = ref.claim.allocation if ref.claim is not None else None
        for r in allocation.devices if allocation is not None else ():
            devices.append(f"{r.driver}/{r.pool}/{r.device}")
    return {"pod": result.pod.key, "node": result.node, "devices": devices}


def outcome_document(outcome: FitOutcome) -> dict:
    doc = {"workload": outcome.workload, "replicas": outcome.replicas, "bounded": outcome.bounded,
           "gang": outcome.gang}
    if not outcome.gang:
        doc.update(declared=outcome.declared, declaredPlaced=outcome.declared_placed, total=outcome.total)
    if outcome.stopped_by is not None:
        doc["stoppedBy"] = _stop_document(outcome.stopped_by)
    doc["placements"] = outcome.placements
    return doc


def _stop_document(stop: PodResult) -> dict:
    reasons = [r for r in stop.reasons or [] if r.severity == "error"] or list(stop.reasons or [])
    first = reasons[0] if reasons else None
    return {"pod": stop.pod.key, "status": stop.status,
            "code": first.code if first else "",
            "message": first.message if first else "",
            "details": [d for r in reasons for d in (r.details or ())]}
