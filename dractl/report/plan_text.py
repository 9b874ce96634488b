"""`allocate -o text`: a compact, readable plan and the reasons for every failure."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from dractl.findings import Finding
from dractl.report.findings_text import print_findings
from dractl.report.sanitize import safe_line
from dractl.report.styled import Styled, StyledTree, print_fitted
from dractl.simulate.state import SCHEDULED, Plan, PodResult

if TYPE_CHECKING:
    from rich.console import Console

    from dractl.report.registry import Drawing
    from dractl.report.styled import PlainConsole

_STATUS_STYLE = {"Scheduled": "green", "Unschedulable": "bold red", "Invalid": "bold red",
                 "Allocated": "green", "AlreadyAllocated": "cyan", "Unsatisfiable": "bold red",
                 "Error": "bold red", "Pending": "yellow"}


def _t(text: str, style: str = "") -> Styled:
    return Styled().append(safe_line(text), style)


def _pod_tree(p: PodResult, explain: bool) -> StyledTree:
    label = Styled()
    label.append(safe_line(f"pod {p.namespace}/{p.name}"), style="bold")
    if p.pod.owner:
        label.append(safe_line(f" ({p.pod.owner})"), style="dim")
    label.append("  ")
    label.append(p.status, style=_STATUS_STYLE.get(p.status, ""))
    if p.node:
        label.append(safe_line(f" on {p.node}"))
    tree = StyledTree(label)
    for ref in p.claims:
        claim = ref.claim
        if claim is None:
            tree.add(_t(f"claim {ref.name}: no claim needed", "dim"))
            continue
        shown = f"claim {ref.name} -> {claim.name}" if claim.name != ref.name else f"claim {claim.name}"
        if claim.generated:
            shown += " (generated)"
        node = tree.add(_t(shown))
        if claim.allocation is None:
            continue
        if p.status != SCHEDULED:
            node.add(_t(f"already allocated, {claim.status}", "dim"))
        by_request: dict[str, list[str]] = defaultdict(list)
        for r in claim.allocation.devices:
            extra = []
            if r.admin_access:
                extra.append("admin access")
            if r.share_id:
                extra.append("shared")
            if r.consumed_capacity:
                extra.append(", ".join(f"{k}={v.canonical()}" for k, v in sorted(r.consumed_capacity.items())))
            by_request[r.request].append(f"{r.driver}/{r.pool}/{r.device}"
                                         + (f" ({'; '.join(extra)})" if extra else ""))
        for request, devices in by_request.items():
            node.add(_t(f"request {request}: {', '.join(devices)}"))
    for container, env in p.env.items():
        for key, value in env.items():
            tree.add(_t(f"env {container}.{key} = {value}", "cyan"))
    for container, errors in p.env_errors.items():
        for e in errors:
            tree.add(_t(f"env {container}: {e.code} {e.message}", "red"))
    for r in p.reasons:
        style = "red" if r.severity == "error" else "yellow"
        branch = tree.add(_t(f"{r.code} {r.message}", style))
        _add_details(branch, r.details)
    if explain and p.node_failures:
        detail = tree.add(_t("per node:", "bold"))
        for node_name, reason in p.node_failures.items():
            n = detail.add(_t(f"{node_name}: {reason}"))
            _add_details(n, list(p.node_explanations.get(node_name, [])) + list(p.node_devices.get(node_name, [])),
                         "dim")
    return tree


def _add_details(branch: StyledTree, details, style: str = "") -> None:
    """Detail lines as a tree: a line indented by two spaces more than the one before it
    belongs under it (explanations nest causes under requests, fixes under causes)."""
    stack: list[tuple[int, StyledTree]] = []
    for line in details:
        indent = len(line) - len(line.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else branch
        node = parent.add(_t(line.strip(), "dim" if stack else style))
        stack.append((indent, node))


def print_plan(console: "Console | PlainConsole", plan: Plan, findings: list[Finding], *, explain: str | None = None,
               quiet: bool = False) -> None:
    shown = [f for f in findings if f.severity != "info" and not (quiet and f.severity != "error")]
    if shown:
        print_findings(console, shown, quiet=quiet)
        console.print()
    printed = bool(plan.reasons)  # with --quiet, often nothing but the summary: no blank line
    for r in plan.reasons:
        print_fitted(console, _t(f"{r.code} {r.message}", "red" if r.severity == "error" else "yellow"))
    for p in plan.pods:
        if quiet and p.status == SCHEDULED:
            continue
        names = {p.name, f"{p.namespace}/{p.name}", "*"}
        for ref in p.claims:  # --explain CLAIM: the pods that use the claim
            if ref.claim is not None:
                names.update((ref.claim.name, ref.claim.ref))
        wanted = explain is not None and explain in names
        print_fitted(console, _pod_tree(p, wanted))
        printed = True
    for c in plan.claims:
        if c.referenced and not c.reasons:
            continue
        if c.generated or (c.status == "AlreadyAllocated" and not c.reasons):
            continue
        if quiet and c.status in ("Allocated", "AlreadyAllocated") and not c.reasons:
            continue
        label = Styled()
        label.append(safe_line(f"claim {c.namespace}/{c.name}"), style="bold")
        label.append("  ")
        label.append(c.status, style=_STATUS_STYLE.get(c.status, ""))
        if c.node:
            label.append(safe_line(f" for {c.node}"))
        tree = StyledTree(label)
        if c.allocation is not None:
            for r in c.allocation.devices:
                tree.add(_t(f"request {r.request}: {r.driver}/{r.pool}/{r.device}"))
        for r in c.reasons:
            branch = tree.add(_t(f"{r.code} {r.message}", "red" if r.severity == "error" else "yellow"))
            _add_details(branch, r.details)
        print_fitted(console, tree)
        printed = True
    if printed or not quiet:
        console.print()
    print_fitted(console, summary_text(plan, findings))


def summary_text(plan: Plan, findings: list[Finding]) -> Styled:
    scheduled = sum(1 for p in plan.pods if p.status == SCHEDULED)
    failed = len(plan.pods) - scheduled
    allocated = sum(1 for c in plan.claims if c.status == "Allocated")
    bad_claims = sum(1 for c in plan.claims if c.status in ("Unsatisfiable", "Error"))
    errors = sum(1 for f in findings if f.severity == "error")
    text = Styled()
    text.append(f"{len(plan.pods)} pod(s): ")
    text.append(f"{scheduled} scheduled", style="green")
    text.append(", ")
    text.append(f"{failed} not scheduled", style="bold red" if failed else "")
    text.append(f"; {allocated} claim(s) allocated")
    if bad_claims:
        text.append(f", {bad_claims} could not be allocated", style="bold red")
    text.append(f"; {len(plan.nodes)} node(s)")
    if errors:
        text.append(f"; {errors} validation error(s)", style="bold red")
    return text


def report(result, view) -> "Drawing":
    """`allocate -o text`: findings, every pod's placement, claims, the summary."""
    from dractl.report.registry import Drawing

    def draw(console) -> None:
        print_plan(console, result.plan, result.findings, explain=view.explain, quiet=view.quiet)

    return Drawing(draw, plain=True)  # Styled lines and trees only
