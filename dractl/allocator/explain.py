"""Why a set of claims cannot be allocated on a node: a diagnostic pass that runs only after a
failure (or on demand), never on the happy path.

For every request and subrequest it classifies each device of the node:
1. static reasons: pool unusable, then the first of `checks.DEVICE_CHECKS` (the search's own list,
   in its order) that the device fails on its own;
2. for devices without a static reason, the furthest dynamic rejection seen in a second,
   instrumented run of the same search (taken by another request of the pod, capacity or counters
   exhausted by the combination, constraint conflict). Devices with neither count as eligible.

Two refinements are dractl's own: a device in use that fails the class's (or the request's)
selectors is reported by that selector, so "N already allocated" counts only devices the request
could have used; and every rejected device carries a `Cause` (causes.py) naming what rejects it.
"""

from __future__ import annotations

from dractl.allocator import reasons as R
from dractl.allocator.causes import device_cause, node_operations_cause, pool_cause
from dractl.allocator.checks import DEVICE_CHECKS, class_selectors_match, request_selectors_match
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
        cause = _safe(pool_cause, search, pool)
        for sl in pool.unusable_slices:
            for dev in sl.devices:
                verdicts.append(DeviceVerdict(dev.id_str, reason, cause))
    for dev in search.np.blocked_node_operations:
        verdicts.append(DeviceVerdict(dev.id_str, R.NODE_OPERATIONS, _safe(node_operations_cause, search, dev)))
    seen = recorder.seen.get(rd.at, {})
    for cand in search.cands:
        reason, error = _static_reason(search, rd, cand)
        if reason is None:
            reason = seen.get(cand.index)
        cause = device_cause(search, rd, cand, reason, error) if reason is not None else None
        verdicts.append(DeviceVerdict(cand.device.id_str, reason, cause))
    rejected: dict[str, int] = {}
    for v in verdicts:
        if v.reason is not None:
            rejected[v.reason] = rejected.get(v.reason, 0) + 1
    eligible = sum(1 for v in verdicts if v.reason is None)
    return RequestExplanation(claim=claim_ref, request=rd.result_name, needed=rd.need, considered=len(verdicts),
                              eligible=eligible, rejected=rejected, devices=tuple(verdicts))


def _safe(build, *args):
    """A cause, or None when building it fails: a missing detail must not lose the explanation."""
    try:
        return build(*args)
    except Exception:  # noqa: BLE001
        return None


def _static_reason(search, rd, cand) -> tuple[str | None, Exception | None]:
    """checks.static_reason, keeping the error of a check that raised; a device in use that the
    request's selectors reject is reported by the selector (it was never this request's)."""
    for check in DEVICE_CHECKS:
        if check.test is None:
            continue
        try:
            if not check.test(search, rd, cand):
                if check.reason == R.IN_USE:
                    return _in_use_reason(search, rd, cand), None
                return check.reason, None
        except Exception as exc:  # noqa: BLE001 - an explanation reports any evaluation failure as such
            return check.error_reason or check.reason, exc
    return None, None


def _in_use_reason(search, rd, cand) -> str:
    for reason, test in ((R.CLASS_SELECTOR, class_selectors_match), (R.REQUEST_SELECTOR, request_selectors_match)):
        try:
            if not test(search, rd, cand):
                return reason
        except Exception:  # noqa: BLE001 - the search never evaluates selectors on devices in use
            return R.IN_USE
    return R.IN_USE
