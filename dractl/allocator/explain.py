"""Why a set of claims cannot be allocated on a node: a diagnostic pass that runs only after a
failure (or on demand), never on the happy path.

For every request and subrequest it classifies each device of the node:
1. static reasons: pool unusable, then the first of `checks.DEVICE_CHECKS` (the search's own list,
   in its order) that the device fails on its own;
2. for devices without a static reason, the furthest dynamic rejection seen in a second,
   instrumented run of the same search (taken by another request of the pod, capacity or counters
   exhausted by the combination, constraint conflict). Devices with neither count as eligible.
"""

from __future__ import annotations

from dractl.allocator import reasons as R
from dractl.allocator.checks import static_reason
from dractl.allocator.errors import AllocationError, SearchTimeout
from dractl.allocator.results import DeviceVerdict, Explanation, RequestExplanation

# How far into the checks a dynamic rejection got; the furthest one describes a device best.
_STAGE = {R.ALLOCATING: 1, R.CAPACITY: 2, R.COUNTERS: 3, R.COMPATIBILITY_GROUPS: 4, R.CONSTRAINT: 5}


class _Recorder:
    """Keeps, per (sub)request and device, the furthest dynamic rejection seen in the search."""

    def __init__(self):
        self.seen: dict[tuple, dict[int, str]] = {}

    def __call__(self, rd, cand, reason) -> None:
        if reason not in _STAGE:
            return
        per = self.seen.setdefault(rd.at, {})
        old = per.get(cand.index)
        if old is None or _STAGE[reason] > _STAGE[old]:
            per[cand.index] = reason


def explain(make_search, node_name: str) -> Explanation:
    """`make_search(recorder)` returns a fresh, unprepared Search for the same inputs."""
    recorder = _Recorder()
    search = make_search(recorder)
    partial = False
    try:
        search.prepare()
    except SearchTimeout:
        return Explanation(node_name, (), partial=True)
    except AllocationError:
        # The pre-pass fails the same way as the real attempt did; nothing to explain per device.
        return Explanation(node_name, (), partial=False)
    try:
        search.search()
    except Exception:   # noqa: BLE001 - a diagnostic run must never turn into a different failure
        # Timed out, or stopped by a hard error (e.g. a CEL runtime error): the dynamic part of the
        # explanation covers only what the search reached.
        partial = True

    out = []
    for c, entries in enumerate(search.claim_reqs):
        claim_ref = search.claims[c].ref
        for entry in entries:
            for rd in (entry if type(entry) is tuple else (entry,)):
                out.append(_explain_request(search, recorder, rd, claim_ref))
    return Explanation(node_name, tuple(out), partial=partial)


def _explain_request(search, recorder, rd, claim_ref: str) -> RequestExplanation:
    verdicts: list[DeviceVerdict] = []
    for pool in search.np.pools:
        if pool.usable:
            continue
        reason = R.POOL_INCOMPLETE if pool.incomplete else R.POOL_INVALID
        for sl in pool.unusable_slices:
            for dev in sl.devices:
                verdicts.append(DeviceVerdict(dev.id_str, reason))
    for dev in search.np.blocked_node_operations:
        verdicts.append(DeviceVerdict(dev.id_str, R.NODE_OPERATIONS))
    seen = recorder.seen.get(rd.at, {})
    for cand in search.cands:
        reason = static_reason(search, rd, cand)
        if reason is None:
            reason = seen.get(cand.index)
        verdicts.append(DeviceVerdict(cand.device.id_str, reason))
    rejected: dict[str, int] = {}
    for v in verdicts:
        if v.reason is not None:
            rejected[v.reason] = rejected.get(v.reason, 0) + 1
    eligible = sum(1 for v in verdicts if v.reason is None)
    return RequestExplanation(claim=claim_ref, request=rd.result_name, needed=rd.need, considered=len(verdicts),
                              eligible=eligible, rejected=rejected, devices=tuple(verdicts))
