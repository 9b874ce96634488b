"""`allocate -o yaml`: the objects as the cluster would hold them after scheduling.

One multi-document stream: every ResourceClaim this run allocated or reserved (generated ones
included), then every pod with spec.nodeName and status.resourceClaimStatuses. Byte-for-byte
deterministic: input order, no timestamps, YAML 1.1-safe quoting (PyYAML quotes "on", "yes", ...).
"""

from __future__ import annotations

import copy

import yaml

from dractl.api.defaults import defaulted_claim_spec
from dractl.simulate.state import SCHEDULED, Plan


class _Dumper(yaml.SafeDumper):
    pass


def _str_presenter(dumper, data: str):
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_presenter)


def claim_objects(plan: Plan) -> list[dict]:
    out = []
    for c in plan.claims:
        if not c.touched:
            continue
        obj = copy.deepcopy(c.manifest)
        if "spec" in obj:
            obj["spec"] = defaulted_claim_spec(obj["spec"])
        status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
        status = dict(status)
        if c.allocation is not None:
            status["allocation"] = c.allocation.to_dict()
        if c.reserved_for:
            status["reservedFor"] = list(c.reserved_for)
        obj["status"] = status
        out.append(obj)
    return out


def _mapping(obj: dict, key: str) -> dict:
    """obj[key], to add fields to; a wrong-typed value (an invalid manifest) becomes a mapping."""
    if not isinstance(obj.get(key), dict):
        obj[key] = {}
    return obj[key]


def _status(obj: dict) -> dict:
    return dict(obj["status"]) if isinstance(obj.get("status"), dict) else {}


def pod_objects(plan: Plan) -> list[dict]:
    out = []
    for p in plan.pods:
        obj = copy.deepcopy(p.pod.manifest)
        meta = _mapping(obj, "metadata")
        meta.setdefault("namespace", p.pod.namespace)
        meta["uid"] = p.pod.uid
        if p.status == SCHEDULED and p.node:
            _mapping(obj, "spec")["nodeName"] = p.node
        status = _status(obj)
        for key in ("resourceClaimStatuses", "extendedResourceClaimStatus"):
            if p.pod.status.get(key):
                status[key] = copy.deepcopy(p.pod.status[key])
        if p.status != SCHEDULED:
            status["phase"] = "Pending"
            message = "; ".join(r.message for r in p.reasons if r.severity == "error")
            status["conditions"] = [{"type": "PodScheduled", "status": "False",
                                     "reason": "Unschedulable", "message": message}]
        if status:
            obj["status"] = status
        out.append(obj)
    return out


def group_objects(plan: Plan) -> list[dict]:
    """PodGroups whose claims the run generated, with status.resourceClaimStatuses (KEP-5729)."""
    out = []
    for g in plan.groups:
        if not g.standalone or not g.claim_statuses or g.source is None:
            continue
        obj = copy.deepcopy(g.source.data)
        status = _status(obj)
        status["resourceClaimStatuses"] = [{"name": n, "resourceClaimName": c}
                                           for n, c in g.claim_statuses.items()]
        obj["status"] = status
        out.append(obj)
    return out


def render(plan: Plan) -> str:
    docs = claim_objects(plan) + group_objects(plan) + pod_objects(plan)
    if not docs:
        return ""
    return yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, default_flow_style=False,
                         explicit_start=True, allow_unicode=False, width=100)
