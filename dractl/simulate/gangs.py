"""Pod groups in the scheduling loop: PreEnqueue (a pod whose PodGroup or Workload does not
exist waits outside the queue) and the PodGroup cycle for gangs (KEP-4671, 1.37): the members
are tried in input order inside one journal transaction; unless minCount of them fit, every
change is rolled back."""

from __future__ import annotations

from typing import Callable

from dractl.simulate import reasons as R
from dractl.simulate.cluster import ClusterState
from dractl.simulate.groups import PodGroupInfo
from dractl.simulate.state import SCHEDULED, UNSCHEDULABLE, PodResult, Reason


def not_enqueued(result: PodResult) -> Reason | None:
    """PreEnqueue's verdict: why the pod stays out of the scheduling queue, if it does."""
    if not result.group_problem:
        return None
    return Reason(R.NOT_ENQUEUED, result.group_problem, details=(
        "PreEnqueue keeps the pod out of the scheduling queue until its group exists",))


def schedule_gang(cluster: ClusterState, group: PodGroupInfo,
                  schedule_pod: Callable[[PodResult], None]) -> None:
    members = group.members
    label = f"gang {group.namespace}/{group.name} (minCount {group.min_count})"
    if len(members) < group.min_count:
        for m in members:
            m.reasons.append(Reason(R.GANG, "waiting for minCount pods from a gang to appear in "
                                    "scheduling queue", details=(
                                        f"{label}: {len(members)} member pod(s) given, "
                                        f"{group.min_count - len(members)} more needed",)))
        return
    journal = cluster.journal
    journal.begin()
    placed, attempted, first_failure = _try_members(group, schedule_pod)
    if placed >= group.min_count:
        journal.commit()
        for m in members:
            if m.status != SCHEDULED:
                m.reasons.append(Reason(R.GANG, f"{label} was admitted with {placed} pod(s); this "
                                        "member did not fit and stays pending", severity="warning"))
        return
    journal.rollback()
    cluster.touch_shared()  # verdicts cached during the attempt saw the tentative state
    why = ""
    if first_failure is not None:
        first_reason = next((r for r in first_failure.reasons if r.severity == "error"), None)
        why = f"; {first_failure.namespace}/{first_failure.name} broke it" + (
            f": {first_reason.message}" if first_reason else "")
    verdict = Reason(R.GANG, f"{label}: only {placed} of {len(members)} pod(s) could be placed "
                     f"together, so none is{why}")
    for idx, m in enumerate(members):
        m.status, m.node = UNSCHEDULABLE, ""
        if idx >= attempted:
            m.reasons.append(Reason(R.GANG, "not attempted: the gang could no longer reach minCount",
                                    severity="warning"))
        m.reasons.append(verdict)


def _try_members(group: PodGroupInfo, schedule_pod) -> tuple[int, int, PodResult | None]:
    members = group.members
    placed = attempted = 0
    first_failure = None
    for i, m in enumerate(members):
        attempted = i + 1
        schedule_pod(m)
        if m.status == SCHEDULED:
            placed += 1
        elif first_failure is None:
            first_failure = m
        if placed + (len(members) - i - 1) < group.min_count:
            break  # PlacementFeasible: the gang can no longer reach minCount
    return placed, attempted, first_failure
