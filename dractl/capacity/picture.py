"""The data behind `-o html`: what the page draws, assembled from a plan and its capacity state."""

from __future__ import annotations

from dractl.capacity.document import CapacityState, device_map, summary


def picture(plan, state: CapacityState, title: str, with_pools: bool) -> dict:
    pods = plan.pods
    scheduled = sum(1 for p in pods if p.status == "Scheduled")
    table = {"pods": len(pods), "scheduled": scheduled, "not scheduled": len(pods) - scheduled}
    table.update(summary(state))
    return {
        "title": title,
        "summary": table,
        "nodes": device_map(state),
        "pending": [_pending(p) for p in pods if p.status != "Scheduled"],
        "pools": state.statuses if with_pools else [],
    }


def _pending(pod) -> dict:
    lines = []
    for reason in pod.reasons:
        lines.append(f"{reason.code}: {reason.message}")
        lines.extend(f"  {d}" for d in reason.details)
    return {"pod": f"{pod.pod.key} ({pod.status})", "reasons": lines}
