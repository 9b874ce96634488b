"""`dractl dump`: what to run to capture a cluster's DRA state, and how to trim that output
into an inventory file for a bug report. dractl never talks to a cluster: the user runs kubectl.

The trimmed file keeps what the dry run reads and drops what only the server keeps (managed
fields, resource versions, uids, last-applied annotations, node status beyond allocatable):

    ResourceSlice, DeviceClass, DeviceTaintRule, PodGroup   whole, minus server bookkeeping
    ResourceClaim                                           only allocated ones (status.allocation)
    Node                                                    name, labels, taints, allocatable
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

# kubectl resource names, fully qualified so that a CRD of the same short name cannot answer.
RESOURCES = (
    "resourceslices.resource.k8s.io",
    "deviceclasses.resource.k8s.io",
    "resourceclaims.resource.k8s.io",
    "nodes",
    "devicetaintrules.resource.k8s.io",
    "podgroups.scheduling.k8s.io",
)
# The kinds the dry run reads, in the order the trimmed file lists them.
KIND_ORDER = ("Node", "DeviceClass", "DeviceTaintRule", "ResourceSlice", "ResourceClaim", "PodGroup")
_GROUPS = {"Node": "", "DeviceClass": "resource.k8s.io", "DeviceTaintRule": "resource.k8s.io",
           "ResourceSlice": "resource.k8s.io", "ResourceClaim": "resource.k8s.io",
           "PodGroup": "scheduling.k8s.io"}
# Metadata the server writes for itself; nothing in the dry run reads it.
SERVER_METADATA = ("managedFields", "resourceVersion", "uid", "selfLink", "generation")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def kubectl_command(output: str = "cluster.yaml") -> str:
    """The kubectl command line that captures everything `dractl dump` keeps."""
    return f"kubectl get {','.join(RESOURCES)} -A -o yaml > {output}"


@dataclass
class Trimmed:
    objects: list[dict] = field(default_factory=list)
    kept: dict[str, int] = field(default_factory=dict)      # kind -> objects written
    skipped: dict[str, int] = field(default_factory=dict)   # why -> objects left out


def trim(documents: list[dict]) -> Trimmed:
    """The inventory objects among `documents` (List items already expanded), trimmed."""
    out = Trimmed()
    for doc in documents:
        kind, api_version = doc.get("kind"), doc.get("apiVersion")
        if not isinstance(kind, str) or kind not in _GROUPS or not isinstance(api_version, str) \
                or api_version.rpartition("/")[0] != _GROUPS[kind]:
            _count(out.skipped, f"{kind or 'no kind'} (not read by the dry run)")
            continue
        if kind == "ResourceClaim" and not _allocated(doc):
            _count(out.skipped, "ResourceClaim (not allocated)")
            continue
        trimmed = _node(doc) if kind == "Node" else _object(doc)
        out.objects.append(trimmed)
        _count(out.kept, kind)
    out.objects.sort(key=lambda o: (KIND_ORDER.index(o["kind"]), _meta(o).get("namespace") or "",
                                    _meta(o).get("name") or ""))
    return out


def _count(counts: dict, key: str) -> None:
    counts[key] = counts.get(key, 0) + 1


def _meta(doc: dict) -> dict:
    meta = doc.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _allocated(doc: dict) -> bool:
    status = doc.get("status")
    return isinstance(status, dict) and isinstance(status.get("allocation"), dict)


def _object(doc: dict) -> dict:
    out = copy.deepcopy(doc)
    meta = _meta(out)
    for key in SERVER_METADATA:
        meta.pop(key, None)
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED, None)
        if not annotations:
            meta.pop("annotations")
    return out


def _node(doc: dict) -> dict:
    meta = _meta(doc)
    out_meta: dict = {"name": meta.get("name")}
    if isinstance(meta.get("labels"), dict) and meta["labels"]:
        out_meta["labels"] = dict(meta["labels"])
    out: dict = {"apiVersion": doc.get("apiVersion"), "kind": "Node", "metadata": out_meta}
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    if isinstance(spec.get("taints"), list) and spec["taints"]:
        out["spec"] = {"taints": [_taint(t) for t in spec["taints"] if isinstance(t, dict)]}
    status = doc.get("status") if isinstance(doc.get("status"), dict) else {}
    if isinstance(status.get("allocatable"), dict):
        out["status"] = {"allocatable": dict(status["allocatable"])}
    return out


def _taint(taint: dict) -> dict:
    # timeAdded is the node lifecycle controller's bookkeeping.
    return {k: v for k, v in taint.items() if k != "timeAdded"}
