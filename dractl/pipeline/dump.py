"""`dractl dump`: what to run to capture a cluster's DRA state, and how to trim that output
into an inventory file for a bug report. dractl never talks to a cluster: the user runs kubectl.

The command works on every cluster: which of the resources a cluster serves differs by release
and by feature gate (DeviceTaintRules are GA only from 1.37, PodGroups and Workloads are alpha or
beta APIs, off by default), and `kubectl get` refuses the whole list when one name is not served
("the server doesn't have a resource type"); `--ignore-not-found` covers missing objects, not
missing types. So the command asks the cluster which of them it serves (`kubectl api-resources
-o name` prints exactly these names: `nodes` for the core group, `plural.group` for the others)
and gets only those.

The trimmed file keeps what the dry run reads and drops what only the server or a driver keeps,
which the dry run does not read and would otherwise report (managed fields, resource versions,
uids, last-applied annotations, owner references of slices, classes and taint rules, owner
references without uid, device status written by drivers, node status beyond allocatable):

    ResourceSlice, DeviceClass, DeviceTaintRule,            whole, minus that bookkeeping
    PodGroup, Workload
    ResourceClaim                                           only allocated ones (status.allocation
                                                            and reservedFor)
    Node                                                    name, labels, taints, allocatable
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

# kubectl resource names, fully qualified so that a CRD of the same short name cannot answer
# (the names `kubectl api-resources -o name` prints).
RESOURCES = (
    "nodes",
    "deviceclasses.resource.k8s.io",
    "devicetaintrules.resource.k8s.io",
    "resourceslices.resource.k8s.io",
    "resourceclaims.resource.k8s.io",
    "workloads.scheduling.k8s.io",
    "podgroups.scheduling.k8s.io",
)
# The kinds the dry run reads, in the order the trimmed file lists them.
KIND_ORDER = ("Node", "DeviceClass", "DeviceTaintRule", "ResourceSlice", "ResourceClaim", "Workload",
              "PodGroup")
_GROUPS = {"Node": "", "DeviceClass": "resource.k8s.io", "DeviceTaintRule": "resource.k8s.io",
           "ResourceSlice": "resource.k8s.io", "ResourceClaim": "resource.k8s.io",
           "Workload": "scheduling.k8s.io", "PodGroup": "scheduling.k8s.io"}
# Metadata the server writes for itself; nothing in the dry run reads it.
SERVER_METADATA = ("managedFields", "resourceVersion", "uid", "selfLink", "generation")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# Kinds whose owner references the dry run reads: a generated claim is its pod's (the
# scheduler's check that a claim from a template belongs to the pod). Elsewhere an owner (the
# Node or the driver's pod of a slice) is bookkeeping.
_OWNED_KINDS = ("ResourceClaim",)


def kubectl_command(output: str = "cluster.yaml") -> str:
    """A POSIX shell command line that captures everything `dractl dump` keeps, on any cluster:
    `kubectl api-resources` says which of RESOURCES the cluster serves, and only those are got."""
    served = " ".join(f"-e {name}" for name in RESOURCES)
    return (f'kubectl get "$(kubectl api-resources -o name | grep -x {served} | paste -s -d, -)" '
            f"-A -o yaml > {output}")


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
        trimmed = _node(doc) if kind == "Node" else _object(doc, kind)
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


def _object(doc: dict, kind: str) -> dict:
    out = copy.deepcopy(doc)
    meta = _meta(out)
    for key in SERVER_METADATA:
        meta.pop(key, None)
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED, None)
        if not annotations:
            meta.pop("annotations")
    _owner_references(meta, kind)
    status = out.get("status")
    if kind == "ResourceClaim" and isinstance(status, dict):
        # status.devices is what drivers report about prepared devices (conditions, network
        # data); the allocation and reservedFor are the state the dry run reads.
        status.pop("devices", None)
    return out


def _owner_references(meta: dict, kind: str) -> None:
    refs = meta.get("ownerReferences")
    if refs is None:
        return
    kept = [r for r in refs if isinstance(r, dict) and r.get("uid")] \
        if kind in _OWNED_KINDS and isinstance(refs, list) else []
    if kept:
        meta["ownerReferences"] = kept
    else:
        meta.pop("ownerReferences")


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
