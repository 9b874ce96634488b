"""The cluster as the input documents describe it: nodes (from Node objects, else from slices'
nodeName), device classes, slices, taint rules, claims, templates, namespaces and pod groups,
and the allocator over them. Builds a ClusterState once per run."""

from __future__ import annotations

from collections.abc import Iterable

from dractl.allocator import Allocator
from dractl.api.releases import in_force
from dractl.api.resource import (
    DeviceClass,
    DeviceTaintRule,
    ModelError,
    ResourceClaim,
    ResourceSlice,
)
from dractl.load.document import Document
from dractl.models import CONTROLLER_KINDS, ClaimTemplate, Node, model_of
from dractl.simulate import reasons as R
from dractl.simulate.cluster import ClusterState
from dractl.simulate.groups import GroupIndex
from dractl.simulate.names import uid_for
from dractl.simulate.nodes import SimNode
from dractl.simulate.plugins.nodeallocatable import slice_node_resources
from dractl.simulate.resources import allocatable, extended_class_map
from dractl.simulate.state import ALREADY_ALLOCATED, CLAIM_ERROR, ClaimState, Plan, Reason


class _Collected:
    def __init__(self) -> None:
        self.classes: list[DeviceClass] = []
        self.slices: list[ResourceSlice] = []
        self.rules: list[DeviceTaintRule] = []
        self.class_info: list[tuple] = []
        self.node_docs: list[Document] = []
        self.group_docs: list[Document] = []
        self.left_out: list[Document] = []   # unusable cluster-state objects (reported once)


def build_cluster(documents: Iterable[Document], gates, options, invalid: set[int],
                  plan: Plan) -> ClusterState:
    docs = list(documents)
    cluster = ClusterState(gates, options, invalid, plan)
    cluster.groups = GroupIndex()
    found = _Collected()
    for doc in docs:
        _collect(cluster, found, doc)
    if found.left_out:
        from dractl.simulate.leftout import left_out_reasons, slices_by_pool
        plan.reasons.extend(left_out_reasons(found.left_out, invalid))
        cluster.left_out_slices = slices_by_pool(found.left_out, invalid)
    # Workloads first: a PodGroup may take its policy from its Workload's template.
    for doc in sorted(found.group_docs, key=lambda d: d.kind != "Workload"):
        cluster.groups.add(doc)
    if gates.enabled("DRAExtendedResource"):
        cluster.extended_classes = extended_class_map(found.class_info)
    if gates.enabled("DRANodeAllocatableResources"):
        cluster.native_mappings = slice_node_resources(docs, gates.version)
    _add_nodes(cluster, found)
    pre_allocated = [c.model for c in cluster.claims.values() if c.pre_allocated and c.model]
    cluster.allocator = Allocator(gates, found.classes, found.slices, pre_allocated,
                                  taint_rules_in_force(found.rules, gates.version),
                                  share_id=cluster.next_share_id)
    _map_pools(cluster, found.slices)
    for claim in cluster.claims.values():
        if claim.pre_allocated and claim.allocation:
            cluster.count_devices(claim.allocation, +1)
    return cluster


def taint_rules_in_force(rules: list[DeviceTaintRule], version: str) -> list[DeviceTaintRule]:
    """DeviceTaintRules that taint devices in this release. Without `taint_rule_needs_selector`
    (kubernetes/kubernetes#141648) a rule without `spec.deviceSelector` matches every device;
    with it, none, as documented (`deviceSelector: {}` matches all)."""
    if not in_force("taint_rule_needs_selector", version):
        return rules
    return [r for r in rules if r.selector is not None]


def _collect(cluster: ClusterState, found: _Collected, doc: Document) -> None:
    kind, group = doc.kind, doc.group
    bad = id(doc) in cluster.invalid
    if bad and group == "resource.k8s.io" and kind in ("ResourceSlice", "DeviceClass", "DeviceTaintRule"):
        found.left_out.append(doc)
    if group == "resource.k8s.io":
        data = model_of(doc).v1
        try:
            if kind == "DeviceClass" and not bad:
                model = DeviceClass.from_dict(data)
                found.classes.append(model)
                cluster.class_names.add(doc.name)
                found.class_info.append((doc.name, str(doc.metadata.get("creationTimestamp") or ""),
                                         model.extended_resource_name))
            elif kind == "ResourceSlice" and not bad:
                found.slices.append(ResourceSlice.from_dict(data))
                cluster.source_docs.setdefault((kind, doc.name), doc)
            elif kind == "DeviceTaintRule" and not bad:
                found.rules.append(DeviceTaintRule.from_dict(data))
                cluster.source_docs.setdefault((kind, doc.name), doc)
            elif kind == "ResourceClaimTemplate":
                template = ClaimTemplate.from_model(model_of(doc))
                cluster.templates[(template.namespace, doc.name)] = {
                    "doc": doc, "template": template, "invalid": bad}
            elif kind == "ResourceClaim":
                _add_input_claim(cluster, doc, data, bad)
        except (ModelError, ValueError, TypeError) as exc:
            cluster.plan.reasons.append(Reason(R.MODEL, f"{doc.file}: {kind} {doc.name}: {exc}; "
                                               "ignored by the dry run"))
    elif kind == "Node" and not doc.group:
        found.node_docs.append(doc)
    elif kind == "Namespace" and not doc.group:
        cluster.namespaces[doc.name] = doc.data
    elif kind == "Pod" and not doc.group or kind in CONTROLLER_KINDS:
        cluster.pod_docs.append(doc)
    elif group == "scheduling.k8s.io" and kind in ("Workload", "PodGroup") and not bad:
        found.group_docs.append(doc)


def _add_input_claim(cluster: ClusterState, doc: Document, data: dict, bad: bool) -> None:
    ns = doc.namespace or "default"
    # Only metadata changes during the run (uid, finalizers); the rest stays shared with the
    # input and reports copy before printing.
    manifest = dict(data)
    meta = manifest["metadata"] = dict(data.get("metadata") or {}) \
        if isinstance(data.get("metadata"), dict) else {}
    if isinstance(meta.get("finalizers"), list):
        meta["finalizers"] = list(meta["finalizers"])
    meta.setdefault("namespace", ns)
    meta.setdefault("uid", uid_for("ResourceClaim", ns, doc.name))
    model = None
    model_error = ""
    try:
        model = ResourceClaim.from_dict(manifest)
    except (ModelError, ValueError, TypeError) as exc:
        model_error = str(exc)
    status = manifest.get("status") if isinstance(manifest.get("status"), dict) else {}
    state = ClaimState(ns, doc.name, meta["uid"], manifest, model, doc,
                       pre_allocated=model is not None and model.allocation is not None,
                       model_error=model_error)
    if state.pre_allocated:
        state.allocation = model.allocation
        state.status = ALREADY_ALLOCATED
        state.reserved_for = [r for r in status.get("reservedFor") or [] if isinstance(r, dict)]
    if bad:
        state.status = CLAIM_ERROR
        from dractl.simulate.explain import validation_details
        state.reasons.append(Reason(R.CLAIM_INVALID, "the claim has validation errors; not allocated",
                                    details=validation_details(cluster, doc)))
    elif model_error:
        state.status = CLAIM_ERROR
        state.reasons.append(Reason(R.MODEL, model_error))
    cluster.claims[state.key] = state
    cluster.plan.claims.append(state)


def _add_nodes(cluster: ClusterState, found: _Collected) -> None:
    nodes: list[SimNode] = []
    seen = set()
    for doc in found.node_docs:
        node = SimNode.from_model(Node.from_model(model_of(doc)))
        if node.name and node.name not in seen:
            seen.add(node.name)
            nodes.append(node)
    # Nodes named only by slices (an inventory without Node objects): in slice order.
    inferred = []
    for sl in found.slices:
        if sl.node_name and sl.node_name not in seen:
            seen.add(sl.node_name)
            inferred.append(SimNode.inferred(sl.node_name))
    if inferred and nodes:
        cluster.plan.reasons.append(Reason(
            R.NODE_INFERRED, f"{len(inferred)} node(s) named by ResourceSlices have no Node "
            f"object ({', '.join(n.name for n in inferred[:5])}{', ...' if len(inferred) > 5 else ''}); "
            "assumed to exist without labels or taints", severity="warning"))
    cluster.nodes = nodes + inferred
    cluster.node_alloc = {n.name: allocatable(n.allocatable) for n in cluster.nodes}
    cluster.node_requested = {n.name: {} for n in cluster.nodes}
    cluster.plan.nodes = [n.name for n in cluster.nodes]
    cluster.node_by_name = {n.name: n for n in cluster.nodes}
    cluster.node_index = {n.name: i for i, n in enumerate(cluster.nodes)}


def _map_pools(cluster: ClusterState, slices: list[ResourceSlice]) -> None:
    """Which node each node-local pool belongs to: decides whose cached verdicts an allocation
    makes stale, and what least/most-allocated count."""
    shared_pools = set()
    for sl in slices:
        pid = (sl.driver, sl.pool.name)
        if sl.node_name and cluster.pool_node.get(pid, sl.node_name) == sl.node_name:
            cluster.pool_node[pid] = sl.node_name
        else:
            shared_pools.add(pid)
    for pid in shared_pools:
        cluster.pool_node.pop(pid, None)
