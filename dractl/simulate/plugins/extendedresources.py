"""Extended resources through DRA (KEP-5004, DRAExtendedResource): DynamicResources' part for
them, not a plugin of its own (upstream: the DynamicResources plugin's
extendeddynamicresources.go). A container request for an extended resource that the node does
not offer is served by devices of the DeviceClass that names it (extendedResourceName, or the
implicit deviceclass.resource.kubernetes.io/<class>), through a special claim the plugin
allocates with the pod's other claims and creates when the pod is placed."""

from __future__ import annotations

from dractl.api.defaults import exact_count_request
from dractl.api.resource import ResourceClaim
from dractl.simulate.framework import unresolvable
from dractl.simulate.names import generated_name, uid_for
from dractl.simulate.resources import IMPLICIT_CLASS_PREFIX, extended_requests
from dractl.simulate.state import ClaimState, PodClaimRef
from dractl.suggest import closest_match

NAME = "DynamicResources"
# The status of a node that neither offers a requested extended resource nor is given one
# through DRA (filterExtendedResources); dractl's explanation of it is added in PostFilter.
CANNOT_FIT = unresolvable("cannot fit resource", NAME)


def pre_filter_extended(cluster, pod) -> list:
    """preFilterExtendedResources: the pod's extended-resource requests (per container, in
    upstream's naming order) when at least one of them is mapped by a DeviceClass; else []."""
    classes = cluster.extended_classes
    if not classes or classes.keys().isdisjoint(pod.requests()):
        return []
    ext = extended_requests(pod.spec, classes)
    return ext if any(e.device_class is not None for e in ext) else []


def filter_extended(cluster, ext: list, node_name: str):
    """filterExtendedResources for one node: (rejection or None, the requests served through DRA
    on this node). Mapped by a class and not offered by the node (allocatable 0 or absent):
    through DRA; neither offered nor mapped: "cannot fit resource". A fraction of a device
    cannot be served either (dractl's check: devices are allocated whole)."""
    alloc = cluster.node_alloc[node_name]
    through_dra = []
    for e in ext:
        offered = alloc.get(e.resource)
        if e.device_class is not None and not offered:
            if e.count < 0:
                return CANNOT_FIT, ()
            through_dra.append(e)
        elif offered is None:
            return CANNOT_FIT, ()
    return None, tuple(through_dra)


def special_claim_model(cache: dict, pod, through_dra: tuple) -> ResourceClaim:
    """The node's variant of the special claim (one per set of requests served through DRA)."""
    model = cache.get(through_dra)
    if model is None:
        manifest = {"metadata": {"name": f"{pod.name}-extended-resources", "namespace": pod.namespace,
                                 "uid": uid_for("ExtendedClaim", pod.namespace, pod.name)},
                    "spec": {"devices": {"requests": _requests(through_dra)}}}
        model = cache[through_dra] = ResourceClaim.from_dict(manifest)
    return model


def explain_cannot_fit(cluster, ext: list, statuses: dict) -> list[str]:
    """dractl's own explanation of "cannot fit resource": which extended resource no DeviceClass
    maps (or asks for a fraction of a device), on which nodes."""
    nodes = [name for name, status in statuses.items() if status is CANNOT_FIT]
    if not nodes:
        return []
    shown = ", ".join(nodes[:3]) + (f" and {len(nodes) - 3} more" if len(nodes) > 3 else "")
    lines = [f"{len(nodes)} node(s) ({shown}): cannot fit resource"]
    offered = {e.resource for name in nodes for e in ext if e.resource in cluster.node_alloc[name]}
    for e in ext:
        if e.resource in offered:
            continue
        if e.device_class is None:
            lines.append("  " + _unmapped_text(cluster, e))
        elif e.count < 0:
            lines.append(f"  dractl: container {e.container} requests a fraction of {e.resource}; "
                         f"DeviceClass {e.device_class} maps it to devices, which are allocated whole")
    return lines


def _unmapped_text(cluster, e) -> str:
    known = sorted(name for name in cluster.extended_classes if not name.startswith(IMPLICIT_CLASS_PREFIX))
    hint = closest_match(e.resource, list(cluster.extended_classes))
    return (f"dractl: no DeviceClass maps the extended resource {e.resource} (requested by container "
            f"{e.container}): no class sets spec.extendedResourceName: {e.resource}, and it is not "
            f"{IMPLICIT_CLASS_PREFIX}<class> of an existing class; the nodes do not offer it in "
            "status.allocatable either"
            + (f"; classes map {', '.join(known[:5])}" if known else "")
            + (f"; did you mean {hint}?" if hint else ""))


def reserve_special_claim(cluster, result, through_dra: tuple, allocation, node_name: str) -> None:
    """The special claim KEP-5004 creates at PreBind, allocated and reserved for the pod, and the
    pod's status.extendedResourceClaimStatus; journaled like every other change of the cycle."""
    pod = result.pod
    name = generated_name(f"{pod.name}-extended-resources-", f"{pod.uid}/extended")
    meta = {"name": name, "generateName": f"{pod.name}-extended-resources-",
            "namespace": pod.namespace,
            "uid": uid_for("ResourceClaim", pod.namespace, name),
            "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid,
                                 "controller": True, "blockOwnerDeletion": True}]}
    manifest = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
                "spec": {"devices": {"requests": _requests(through_dra)}}}
    claim = ClaimState(pod.namespace, name, meta["uid"], manifest, ResourceClaim.from_dict(manifest),
                       None, generated=True, touched=True, referenced=True)
    cluster.add_claim(claim)
    cluster.commit_allocation(claim, allocation, node_name)
    journal = cluster.journal
    journal.append(claim.reserved_for, {"resource": "pods", "name": pod.name, "uid": pod.uid})
    status = {"resourceClaimName": name, "requestMappings": [
        {"containerName": e.container, "resourceName": e.resource, "requestName": e.request_name}
        for e in through_dra]}
    journal.set_item(pod.status, "extendedResourceClaimStatus", status)
    journal.append(result.claims, PodClaimRef("(extended resources)", claim))


def _requests(ext) -> list[dict]:
    return [exact_count_request(e.request_name, e.device_class, e.count) for e in ext]
