"""A dry run's outcomes as findings, for the formats that carry only findings (junit, sarif,
github): every scheduling and env failure located at its source object."""

from __future__ import annotations

from dractl.findings import ERROR, WARNING, Finding

CLAIM_INVALID = "DRA5016"  # dractl.simulate.reasons.CLAIM_INVALID


def plan_findings(plan) -> list[Finding]:
    """Every scheduling and env failure of a dry run as a finding located at its source object
    (the Pod, the controller it was expanded from, or the claim / template)."""
    from dractl.simulate.state import SCHEDULED

    out: list[Finding] = []

    def at(doc, path, severity, code, message):
        # Located at the pod spec (of a controller's template) but without a field: the
        # message says which pod and claim.
        if doc is None:
            out.append(Finding(severity, code, message))
            return
        line, column = doc.locate(tuple(path))
        out.append(Finding(severity, code, message, (), doc.file, line, column,
                           doc.api_version, doc.kind, doc.namespace, doc.name))

    pods_of_claim: dict[int, object] = {}
    for p in plan.pods:
        src, path = p.pod.source, tuple(p.pod.spec_path)
        who = f"pod {p.namespace}/{p.name}"
        for ref in p.claims:
            if ref.claim is not None:
                pods_of_claim.setdefault(id(ref.claim), p)
        reasons = list(p.reasons)
        for r in reasons:
            at(src, path, _severity(r.severity), r.code, f"{who}: {_with_details(r)}")
        if p.status != SCHEDULED and not any(r.severity == ERROR for r in reasons):
            at(src, path, ERROR, "DRA5001", f"{who}: {p.status}")
        for container, errors in p.env_errors.items():
            for e in errors:
                at(src, path, _severity(e.severity), e.code, f"{who} container {container}: {e.message}")
    for c in plan.claims:
        if not c.reasons:
            continue
        src = c.source
        if src is None and id(c) in pods_of_claim:
            src = pods_of_claim[id(c)].pod.source
        for r in c.reasons:
            if r.code == CLAIM_INVALID and c.source is not None:
                continue  # the claim's (or template's) own validation errors already say it there
            at(src, (), _severity(r.severity), r.code, f"claim {c.namespace}/{c.name}: {_with_details(r)}")
    for r in plan.reasons:
        out.append(Finding(_severity(r.severity), r.code, _with_details(r)))
    return out


def _with_details(r) -> str:
    # CI annotations are one line each: the per-node explanation lines follow the message.
    details = [d.strip() for d in r.details if d.strip()]
    if not details:
        return r.message
    text = details[0]
    for d in details[1:]:
        text += (" " if text.endswith(":") else "; ") + d
    return f"{r.message.rstrip()} [{text}]"


def _severity(s: str) -> str:
    return s if s in (ERROR, WARNING) else "info"
