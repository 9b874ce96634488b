"""dractl's own diagnosis of "cannot allocate all claims": the allocator's explanation search on
a node, rendered as one line per request plus device-level verdicts."""

from __future__ import annotations

from dractl.allocator.reasons import DESCRIPTIONS
from dractl.api.resource import ResourceClaim

# Allocator explanations are a second, diagnostic search per failing node; cap the work spent on
# one unschedulable pod (the rest are summarised by their scheduler reason).
MAX_EXPLAINED_NODES = 64


def explain_node(cluster, node, pending_models: list[ResourceClaim], shortcuts=None,
                 key: tuple | None = None, extra_constraints=None) -> tuple[list[str], list[str]]:
    """(lines per request, device-level verdict lines) of why the claims do not fit `node`.

    In a full cluster every further pod with the same claims fails on the same nodes for the
    same reasons: the shortcuts keep the explanation per node, key and node state, and only the
    claim names are filled in again. Device lines name no claim and are shared between pods
    (read-only)."""
    hit = shortcuts.explanation(node.name, key) if shortcuts is not None else None
    if hit is not None:
        explanation, refs, devices = hit
        rename = dict(zip(refs, (m.ref for m in pending_models)))
        return explanation_lines(explanation, pending_models, rename), devices
    try:
        explanation = cluster.allocator.explain(node.info, pending_models, timeout=cluster.options.timeout,
                                                extra_constraints=extra_constraints)
    except Exception as exc:  # noqa: BLE001 - an explanation must never break the run
        return [f"(no explanation: {type(exc).__name__}: {exc})"], []
    devices = []
    for req in explanation.requests:
        for verdict in req.devices:
            why = DESCRIPTIONS.get(verdict.reason, verdict.reason) if verdict.reason else "usable"
            devices.append(f"request {req.request}: {verdict.device}: {why}")
    if shortcuts is not None:
        shortcuts.remember_explanation(node.name, key, (explanation, tuple(m.ref for m in pending_models),
                                                        devices))
    return explanation_lines(explanation, pending_models, {}), devices


def explanation_lines(explanation, pending_models: list[ResourceClaim],
                      rename: dict[str, str]) -> list[str]:
    classes = _request_classes(pending_models)
    lines = []
    for req in explanation.requests:
        claim = rename.get(req.claim, req.claim)
        rejected = ", ".join(f"{n} {DESCRIPTIONS.get(code, code)}"
                             for code, n in sorted(req.rejected.items(), key=lambda kv: (-kv[1], kv[0])))
        cls = classes.get((claim, req.request))
        lines.append(f"claim {claim}, request {req.request}"
                     + (f" (class {cls})" if cls else "")
                     + f": needs {req.needed} device(s), {req.eligible} of {req.considered} usable"
                     + (f"; {rejected}" if rejected else ""))
    if explanation.partial:
        lines.append("(explanation partial: the diagnostic search was cut short)")
    return lines


def _request_classes(models: list[ResourceClaim]) -> dict[tuple[str, str], str]:
    out = {}
    for m in models:
        for req in m.requests:
            if req.exactly:
                out[(m.ref, req.name)] = req.exactly.device_class_name
            for sub in req.first_available:
                out[(m.ref, f"{req.name}/{sub.name}")] = sub.device_class_name
    return out
