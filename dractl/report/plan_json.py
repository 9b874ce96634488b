"""`allocate -o json`: the plan as data (shape documented in the README; stable)."""

from __future__ import annotations

from dractl.findings import Finding
from dractl.simulate.state import Plan


def plan_document(plan: Plan, findings: list[Finding]) -> dict:
    pods = []
    for p in plan.pods:
        pods.append({
            "namespace": p.namespace,
            "name": p.name,
            "node": p.node or None,
            "status": p.status,
            "claims": [{"name": ref.name,
                        "resourceClaimName": ref.claim.name if ref.claim else None,
                        "reservedFor": ref.reserved_for} for ref in p.claims],
            "containers": [{"name": c, "env": env, "errors": [e.to_json() for e in p.env_errors.get(c, [])]}
                           for c, env in _containers(p)],
            "reasons": [r.to_json() for r in p.reasons],
        })
    claims = []
    for c in plan.claims:
        claims.append({
            "namespace": c.namespace,
            "name": c.name,
            "status": c.status,
            "generated": c.generated,
            "node": c.node or None,
            "allocation": c.allocation.to_dict() if c.allocation else None,
            "reservedFor": list(c.reserved_for),
            "reasons": [r.to_json() for r in c.reasons],
        })
    return {
        "nodes": list(plan.nodes),
        "pods": pods,
        "claims": claims,
        "reasons": [r.to_json() for r in plan.reasons],
        "findings": [f.to_json() for f in findings],
        "summary": summary(plan, findings),
    }


def _containers(p):
    names = []
    for section in ("initContainers", "containers"):
        for c in p.pod.spec.get(section) or []:
            if isinstance(c, dict) and isinstance(c.get("name"), str):
                names.append(c["name"])
    return [(n, p.env.get(n, {})) for n in names if n in p.env or n in p.env_errors]


def summary(plan: Plan, findings: list[Finding]) -> dict:
    from collections import Counter

    pods = Counter(p.status for p in plan.pods)
    claims = Counter(c.status for c in plan.claims)
    return {
        "pods": len(plan.pods),
        "scheduled": pods.get("Scheduled", 0),
        "unschedulable": pods.get("Unschedulable", 0),
        "invalid": pods.get("Invalid", 0),
        "claims": len(plan.claims),
        "allocated": claims.get("Allocated", 0),
        "errors": sum(1 for f in findings if f.severity == "error"),
        "warnings": sum(1 for f in findings if f.severity == "warning"),
    }


def report(result, view) -> str:
    """`allocate -o json`."""
    from dractl.report.findings_json import dumps

    return dumps(plan_document(result.plan, result.findings))
