"""`-o html` for `allocate` and `capacity`: the device picture (dractl.report.html) of the plan."""

from __future__ import annotations


def report_allocate(result, view) -> str:
    from dractl.pipeline.capacity import state_for_plan

    return _page(result, state_for_plan(result), "dractl allocate", with_pools=False)


def report_capacity(result, view) -> str:
    return _page(result, result.capacity_state, "dractl capacity", with_pools=True)


def _page(result, state, title: str, with_pools: bool) -> str:
    from dractl.capacity.picture import picture
    from dractl.report.html import render

    return render(picture(result.plan, state, title, with_pools))
