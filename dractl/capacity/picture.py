"""The data behind `-o html`: what the page draws, assembled from a plan and its capacity state.

Besides the devices (dractl.capacity.document.device_map), the page groups pods by workload, so
that it can colour each workload as one hue family: a PodGroup (or a 1.35 Workload group) first,
else the controller that made the pod (Deployment, Job, ...), else, for bare pods, the namespace
and the name without its trailing number (`test/pod-17` and `test/pod-18` are "Pods test/pod-*").
Claims that hold devices but no pod of the inputs (allocated before the run) are one more group.
"""

from __future__ import annotations

import re

from dractl.capacity.document import CapacityState, device_map, summary

_NUMBERED = re.compile(r"^(.*?)[-.]?\d+$")
CLAIMS_ONLY = "claims:"


def picture(plan, state: CapacityState, title: str, with_pools: bool) -> dict:
    pods = plan.pods
    scheduled = sum(1 for p in pods if p.status == "Scheduled")
    table = {"nodes": len(plan.nodes), "pods": len(pods), "scheduled": scheduled,
             "not scheduled": len(pods) - scheduled}
    table.update(summary(state))
    nodes = device_map(state)
    pod_workload, labels = workloads_of(plan)
    return {
        "title": title,
        "summary": table,
        "nodes": nodes,
        "workloads": _ranked(nodes, pod_workload, labels),
        "podWorkload": pod_workload,
        "pending": [_pending(p, pod_workload.get(p.pod.key, "")) for p in pods if p.status != "Scheduled"],
        "pools": state.statuses if with_pools else [],
    }


def workloads_of(plan) -> tuple[dict[str, str], dict[str, str]]:
    """pod key -> workload id, workload id -> label."""
    groups = {id(m): g for g in plan.groups for m in g.members}
    pod_workload: dict[str, str] = {}
    labels: dict[str, str] = {}
    for p in plan.pods:
        group = groups.get(id(p))
        if group is not None:
            kind = "PodGroup" if group.standalone else "Workload group"
            wid, label = f"group:{group.namespace}/{group.name}", f"{kind} {group.namespace}/{group.name}"
        elif p.pod.owner:
            wid = f"owner:{p.pod.namespace}/{p.pod.owner}"
            kind, _, name = p.pod.owner.partition("/")
            label = f"{kind} {p.pod.namespace}/{name}"
        else:
            stem = _stem(p.pod.name)
            wid = f"pods:{p.pod.namespace}/{stem}"
            label = f"Pods {p.pod.namespace}/{stem}" + ("*" if stem != p.pod.name else "")
        pod_workload[p.pod.key] = wid
        labels.setdefault(wid, label)
    return pod_workload, labels


def _stem(name: str) -> str:
    found = _NUMBERED.match(name)
    return found.group(1) + "-" if found and found.group(1) else name


def _ranked(nodes: list[dict], pod_workload: dict[str, str], labels: dict[str, str]) -> list[dict]:
    """Workloads holding devices, most devices first (then first seen): the order colours go by.
    Devices held only by claims of no input pod count for the claims' group."""
    devices: dict[str, int] = {}
    pods: dict[str, int] = {}
    for wid in pod_workload.values():
        pods[wid] = pods.get(wid, 0) + 1
    for group in nodes:
        for entry in _devices(group):
            for wid in holder_workloads(entry, pod_workload):
                devices[wid] = devices.get(wid, 0) + 1
    order = {wid: i for i, wid in enumerate(dict.fromkeys(list(pod_workload.values()) + list(devices)))}
    ranked = sorted(devices, key=lambda w: (-devices[w], order[w]))
    return [{"id": w, "label": labels.get(w, "ResourceClaims held by no pod of the inputs"),
             "devices": devices[w], "pods": pods.get(w, 0)} for w in ranked]


def holder_workloads(entry: dict, pod_workload: dict[str, str]) -> list[str]:
    """The workloads holding a device: its pods', or the claims-only group."""
    if entry.get("pods"):
        return list(dict.fromkeys(pod_workload.get(p, f"pods:{p}") for p in entry["pods"]))
    return [CLAIMS_ONLY] if entry.get("claims") else []


def _devices(group: dict):
    for parent in group.get("parents") or ():
        if "device" in parent:
            yield parent["device"]
        else:
            yield from parent.get("devices") or ()


def _pending(pod, workload: str) -> dict:
    """An unscheduled pod as the text plan shows it: its claims, then each reason with its
    explanation lines (indentation nests them)."""
    claims = []
    for ref in pod.claims:
        claim = ref.claim
        if claim is None:
            claims.append(f"claim {ref.name}: no claim needed")
            continue
        text = f"claim {ref.name} -> {claim.name}" if claim.name != ref.name else f"claim {claim.name}"
        claims.append(text + (" (generated)" if claim.generated else ""))
    return {"pod": pod.pod.key, "owner": pod.pod.owner, "status": pod.status, "workload": workload,
            "claims": claims,
            "reasons": [{"code": r.code, "message": r.message, "details": list(r.details or ())} for r in pod.reasons]}
