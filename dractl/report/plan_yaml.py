"""`allocate -o yaml`: the objects as the cluster would hold them after scheduling.

One multi-document stream: every ResourceClaim this run allocated or reserved (generated ones
included), then every pod with spec.nodeName and status.resourceClaimStatuses. Byte-for-byte
deterministic: input order, no timestamps, YAML 1.1-safe quoting (PyYAML quotes "on", "yes", ...).
"""

from __future__ import annotations

import yaml

from dractl.api.defaults import defaulted_claim_spec
from dractl.api.jsoncopy import copy_json
from dractl.simulate.reasons import SCHEDULER_ERRORS
from dractl.simulate.state import SCHEDULED, Plan


class _Dumper(yaml.SafeDumper):
    # Objects as the API server stores them: JSON, so a map the input wrote once and used twice
    # through a YAML alias is printed twice, never as an `&id001` anchor.
    def ignore_aliases(self, data) -> bool:
        return True


try:  # libyaml's emitter: ~8x faster than PyYAML's pure-Python one
    class _CDumper(yaml.CSafeDumper):  # type: ignore[misc, valid-type]
        def ignore_aliases(self, data) -> bool:
            return True
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _CDumper = None  # type: ignore[assignment, misc]


def _str_presenter(dumper, data: str):
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_presenter)
if _CDumper is not None:
    _CDumper.add_representer(str, _str_presenter)


def _dumper_for(docs: list) -> type:
    """libyaml's emitter writes the same bytes as PyYAML's when every string is printable ASCII
    on one line and no key is empty (they fold long double-quoted strings differently, and only
    strings with other characters get double quotes); tests/unit/test_report_yaml.py compares
    the two. Anything
    else keeps PyYAML's emitter, so the output never depends on which one ran."""
    if _CDumper is None:
        return _Dumper
    stack: list = list(docs)
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            if not (value.isascii() and value.isprintable()):
                return _Dumper
        elif kind is dict:
            for key, item in value.items():
                # (an empty key is written `? ''` by one and `'':` by the other)
                if type(key) is str and not (key and key.isascii() and key.isprintable()):
                    return _Dumper
                stack.append(item)
        elif kind is list or kind is tuple:
            stack.extend(value)
    return _CDumper


def claim_objects(plan: Plan) -> list[dict]:
    out = []
    for c in plan.claims:
        if not c.touched:
            continue
        obj = copy_json(c.manifest)
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
        obj = copy_json(p.pod.manifest)
        meta = _mapping(obj, "metadata")
        meta.setdefault("namespace", p.pod.namespace)
        meta["uid"] = p.pod.uid
        if p.status == SCHEDULED and p.node:
            _mapping(obj, "spec")["nodeName"] = p.node
        status = _status(obj)
        for key in ("resourceClaimStatuses", "extendedResourceClaimStatus",
                    "nodeAllocatableResourceClaimStatuses"):
            if p.pod.status.get(key):
                status[key] = copy_json(p.pod.status[key])
        if p.status != SCHEDULED:
            status["phase"] = "Pending"
            errors = [r for r in p.reasons if r.severity == "error"]
            message = "; ".join(r.message for r in errors)
            # handleSchedulingFailure: SchedulerError for an Error status, else Unschedulable.
            reason = "SchedulerError" if any(r.code in SCHEDULER_ERRORS for r in errors) else "Unschedulable"
            status["conditions"] = [{"type": "PodScheduled", "status": "False",
                                     "reason": reason, "message": message}]
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
        obj = copy_json(g.source.data)
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
    return yaml.dump_all(docs, Dumper=_dumper_for(docs), sort_keys=False, default_flow_style=False,
                         explicit_start=True, allow_unicode=False, width=100)


def report(result, view) -> str:
    """`allocate -o yaml`: the objects as they would be after scheduling."""
    return render(result.plan)
