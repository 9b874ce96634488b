"""`--add-nodes N --like NODE`: N more nodes copied from NODE, the way cluster-autoscaler builds a
node template from an existing node (simulator `createSanitizedNode` and
`drautils.SanitizedNodeResourceSlices`):

* node: deep copy named `template-node-for-<NODE>-<i>`, `kubernetes.io/hostname` set to the new
  name, labels, taints and allocatable kept (cluster-autoscaler's own deletion taints dropped);
  no pods are copied (a template node starts empty);
* node-local ResourceSlices (`spec.nodeName: NODE`): copied as `<slice>-<i>` with pool
  `<pool>-<i>` (pool names must stay unique per driver) and `nodeName` the new node; slices that
  are not node-local (network-attached, node selectors, per-device node selection) are shared by
  every node and are not duplicated.

The suffix is the copy's number instead of cluster-autoscaler's random one, so output is stable.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Sequence

from dractl.load.document import Document

HOSTNAME_LABEL = "kubernetes.io/hostname"
# Taints cluster-autoscaler itself puts on nodes it scales down; never copied to a template.
_AUTOSCALER_TAINTS = ("ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler")


class WhatIfError(ValueError):
    """--like names a node that the inputs do not have."""


def template_name(node: str, index: int) -> str:
    return f"template-node-for-{node}-{index}"


def node_names(documents: Sequence[Document]) -> list[str]:
    """Nodes the inputs define (Node objects, else the nodes slices name), in input order."""
    names = [d.name for d in documents if d.kind == "Node" and d.name]
    if names:
        return names
    seen: dict[str, None] = {}
    for d in documents:
        if d.kind == "ResourceSlice":
            node = (d.data.get("spec") or {}).get("nodeName")
            if isinstance(node, str) and node:
                seen.setdefault(node, None)
    return list(seen)


def add_nodes(documents: Sequence[Document], like: str, count: int) -> list[Document]:
    """`documents` plus the copies (appended, so existing nodes keep their place in the order)."""
    known = node_names(documents)
    if like not in known:
        raise WhatIfError(f"--like {like}: no such node among the inputs"
                          + (f" (nodes: {', '.join(known[:10])}{', ...' if len(known) > 10 else ''})" if known else ""))
    node_doc = next((d for d in documents if d.kind == "Node" and d.name == like), None)
    local = [d for d in documents if d.kind == "ResourceSlice" and _slice_node(d) == like]
    added: list[Document] = []
    for i in range(1, count + 1):
        name = template_name(like, i)
        if node_doc is not None:
            added.append(_copy(node_doc, _node_copy(node_doc.data, name)))
        added.extend(_copy(d, _slice_copy(d.data, name, str(i))) for d in local)
    return list(documents) + added


def _slice_node(doc: Document):
    spec = doc.data.get("spec")
    return spec.get("nodeName") if isinstance(spec, dict) else None


def _copy(original: Document, data: dict) -> Document:
    # Findings on a copy would point at the original's lines; copies are made of validated
    # documents, so none are expected.
    return replace(original, data=data)


def _node_copy(data: dict, name: str) -> dict:
    node = copy.deepcopy(data)
    meta = node.setdefault("metadata", {})
    meta["name"] = name
    meta.pop("uid", None)
    meta.setdefault("labels", {})[HOSTNAME_LABEL] = name
    spec = node.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("taints"), list):
        spec["taints"] = [t for t in spec["taints"] if not (isinstance(t, dict) and t.get("key") in _AUTOSCALER_TAINTS)]
    return node


def _slice_copy(data: dict, node: str, suffix: str) -> dict:
    sl = copy.deepcopy(data)
    meta = sl.setdefault("metadata", {})
    meta["name"] = f"{meta.get('name', 'slice')}-{suffix}"
    meta.pop("uid", None)
    spec = sl["spec"]
    spec["nodeName"] = node
    pool = spec.get("pool")
    if isinstance(pool, dict):
        pool["name"] = f"{pool.get('name', '')}-{suffix}"
    return sl
