"""dractl's extension podgroup-constraints (not in Kubernetes;
docs/decisions/0001-podgroup-constraints-extension.md): what the dry run says
about a group placed under its constraints (DRA8011) or not (DRA8010, DRA8012, DRA8013). Every
reason is marked as dractl's extension, in its text and with `extension: true` in JSON."""

from __future__ import annotations

from dataclasses import dataclass

from dractl.extensions.podgroup_constraints import (
    C_BACKTRACK_TIMEOUT,
    C_TIMEOUT,
    C_UNSATISFIED,
    EXTENSION_LABEL,
    describe,
)
from dractl.simulate.state import Reason

MAX_SHOWN_VALUES = 6
MAX_SHOWN_PODS = 6
MAX_SHOWN_NODES = 3


@dataclass(frozen=True)
class ExtensionReason(Reason):
    """A reason of one of dractl's extensions: JSON and YAML say so."""

    def to_json(self) -> dict:
        out = super().to_json()
        out["extension"] = True
        return out


def show_value(key: tuple | None) -> str:
    if key is None:
        return "(none)"
    value = key[1]
    return f'"{value}"' if isinstance(value, str) else str(value)


def placed_note(search, final, chosen, tried: int) -> str:
    """DRA8011's text: which value every device shares, which distinct values they got."""
    parts = []
    for i, gc in enumerate(search.constraints):
        where = f"claim {gc.entry.get('name')}"
        if gc.kind == "matchAttribute":
            parts.append(f"{where}: every device has {gc.attribute} = {show_value(final.assignment[i])}")
        else:
            values = sorted(final.used.get(i, ()), key=repr)
            shown = ", ".join(show_value(v) for v in values)
            parts.append(f"{where}: the devices have distinct {gc.attribute} values ({shown})")
    searched = f", {tried} candidate value(s) tried" if final.assignment else ""
    outcome = chosen.search
    if outcome is not None and outcome.timed_out:
        searched += (f", in the scheduler's order: the search for a placement of all of them ran "
                     f"out of --timeout ({search.timeout:g} s) after {_effort(outcome)}")
    elif outcome is not None and (outcome.undone or outcome.pruned):
        searched += f", found by backtracking across the pods: {_effort(outcome)}"
    return (f"placed under its constraints ({final.placed} of {len(search.members)} pod(s)"
            f"{searched}); " + "; ".join(parts))


def _effort(outcome) -> str:
    return (f"{outcome.steps} placement(s) tried, {outcome.undone} undone, {outcome.pruned} "
            "branch(es) cut by the values-available bound")


def failure_reason(search, tried: list, without, timed_out: bool, label: str) -> Reason:
    """DRA8010 (no placement), DRA8012 (--timeout between matchAttribute values) or DRA8013
    (--timeout in the search across the pods), explained for the group."""
    n = len(search.members)
    details: list[str] = []
    matches = [(i, gc) for i, gc in enumerate(search.constraints) if gc.kind == "matchAttribute"]
    wanted = ", ".join(describe({gc.kind: gc.attribute}) for gc in search.constraints)
    across_pods = tried[-1].search if tried and not matches else None
    if matches and not any(search.free[i] for i, _ in matches):
        attrs = ", ".join(gc.attribute for _, gc in matches)
        message = f"no free device of the inventory has {attrs}: the constraints ({wanted}) cannot hold"
    elif across_pods is not None:
        message = _distinct_failure(search, across_pods, wanted, details)
    else:
        what = " x ".join(gc.attribute for _, gc in matches) or "placement"
        message = (f"no {what} value lets {search.required} of {n} pod(s) be placed together "
                   f"with {wanted}" if matches else
                   f"the pods cannot be placed with {wanted} ({search.required} of {n} needed)")
        for trial in sorted(tried, key=lambda t: -t.placed)[:MAX_SHOWN_VALUES]:
            details.append(_trial_line(search, trial, n))
        if len(tried) > MAX_SHOWN_VALUES:
            details.append(f"... and {len(tried) - MAX_SHOWN_VALUES} more value(s) tried")
    if without is not None:
        fits = without.placed >= search.required
        details.append(f"without the PodGroup constraints: {without.placed} of {n} pod(s) placed, "
                       + ("the group would fit" if fits else "the group would not fit either"))
    code = C_TIMEOUT if timed_out else C_UNSATISFIED
    if timed_out and tried and tried[-1].timed_out:
        code = C_BACKTRACK_TIMEOUT
        message = (f"the search across the pods ran out of --timeout ({search.timeout:g} s) after "
                   f"{tried[-1].search.steps} placement(s): " + message)
    elif timed_out:
        message = f"timed out (--timeout) after trying {len(tried)} value(s): " + message
    return ExtensionReason(code, f"[{EXTENSION_LABEL}] {label}: {message}", details=tuple(details))


def _distinct_failure(search, outcome, wanted: str, details: list[str]) -> str:
    """distinctAttribute only: the values-available bound's verdict, or what the search did."""
    n = len(search.members)
    if outcome.bound is not None:
        details.extend(bound_lines(search, outcome.bound))
        return bound_message(search, outcome.bound)
    if outcome.cut is not None:
        placed, verdict = outcome.cut
        names = ", ".join(f"{m.namespace}/{m.name}" for m in placed[:MAX_SHOWN_PODS]) + (
            f" and {len(placed) - MAX_SHOWN_PODS} more" if len(placed) > MAX_SHOWN_PODS else "")
        details.append(f"first branch cut by the values-available bound, with {names} placed: "
                       + bound_message(search, verdict))
        details.extend(f"  {line}" for line in bound_lines(search, verdict))
    if outcome.failure:
        details.append(f"first failure in the scheduler's order: {outcome.failure}")
    if outcome.timed_out:
        return f"at most {outcome.placed} of {n} pod(s) placed together so far with {wanted}"
    return (f"no placement of {search.required} of {n} pod(s) satisfies {wanted}: the search across "
            f"the pods ({_effort(outcome)}) placed at most {outcome.placed} together")


def bound_message(search, verdict) -> str:
    """The values-available bound, in its own terms."""
    attribute = search.constraints[verdict.constraint].attribute
    if verdict.kind == "union":
        return (f"the {verdict.pods} pod(s) to place need {verdict.needed} distinct {attribute} "
                f"values ({verdict.per_pod} device(s) each), but only {verdict.available} are free on "
                "the nodes they may run on")
    if verdict.kind == "pods":
        return (f"{len(verdict.short)} of the {verdict.remaining} pod(s) to place have fewer than "
                f"{verdict.per_pod} free {attribute} value(s) on the nodes they may run on, so at most "
                f"{verdict.possible} of the {verdict.pods} needed can be placed")
    return (f"{len(verdict.short)} of the {verdict.remaining} pod(s) to place may only run on nodes "
            f"with {verdict.available} free distinct {attribute} value(s) between them "
            f"({verdict.per_pod} for each pod), so at most {verdict.possible} of the {verdict.pods} "
            "needed can be placed")


def bound_lines(search, verdict) -> list[str]:
    lines = []
    reach = search.reachable({})
    for member, free in verdict.short[:MAX_SHOWN_PODS]:
        nodes = sorted(reach.nodes_of(member), key=lambda name: search.cluster.node_index.get(name, 0))
        shown = ", ".join(nodes[:MAX_SHOWN_NODES]) + (f" and {len(nodes) - MAX_SHOWN_NODES} more"
                                                      if len(nodes) > MAX_SHOWN_NODES else "")
        lines.append(f"pod {member.namespace}/{member.name}: {free} free value(s) on the "
                     f"{len(nodes)} node(s) it may run on" + (f" ({shown})" if nodes else ""))
    if len(verdict.short) > MAX_SHOWN_PODS:
        lines.append(f"... and {len(verdict.short) - MAX_SHOWN_PODS} more pod(s)")
    return lines


def _trial_line(search, trial, n: int) -> str:
    parts = []
    for i, key in sorted(trial.assignment.items()):
        nodes = search.free[i].get(key, [])
        parts.append(f"{search.constraints[i].attribute} = {show_value(key)} ({len(nodes)} free "
                     f"device(s) on {len(set(nodes))} node(s))")
    head = ", ".join(parts) or "distinct values"
    if trial.pruned:
        return f"{head}: at most {trial.placed} of {n} pod(s), {trial.failure}"
    outcome = trial.search
    if outcome is not None and outcome.bound is not None:
        return f"{head}: not tried: {bound_message(search, outcome.bound)}"
    if outcome is not None:
        tail = f" ({_effort(outcome)})" + (f"; first failure {trial.failure}" if trial.failure else "")
        return f"{head}: at most {outcome.placed} of {n} pod(s) placed together{tail}"
    tail = f"; first failure {trial.failure}" if trial.failure else ""
    return f"{head}: {trial.placed} of {n} pod(s) placed{tail}"
