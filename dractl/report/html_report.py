"""`-o html` for `allocate` and `capacity`: the device picture (dractl.report.html) of the plan."""

from __future__ import annotations


def report_allocate(result, view) -> str:
    from dractl.pipeline.capacity import state_for_plan

    return _page(result, state_for_plan(result), "dractl allocate", with_pools=False)


def report_capacity(result, view) -> str:
    doc = result.capacity or {}
    title = "dractl capacity"
    if doc.get("fit"):
        fit = doc["fit"]
        title += f" (after --fit: {fit['replicas']} more replica(s) of {fit['workload']})"
    elif doc.get("whatIf"):
        title += " (without the --what-if rule)"
    return _page(result, result.capacity_state, title, with_pools=True)


def _page(result, state, title: str, with_pools: bool) -> str:
    from dractl.capacity.picture import picture
    from dractl.report.html import render

    return render(picture(result.plan, state, title, with_pools))
