"""Extended resources through DRA (KEP-5004, DRAExtendedResource): a container request for an
extended resource that the node's device plugin does not offer is served by devices of the
DeviceClass that names it (extendedResourceName, or the implicit
deviceclass.resource.kubernetes.io/<class>). Upstream does this inside DynamicResources; here it
is a plugin of its own."""

from __future__ import annotations

from dractl.api.defaults import exact_count_request
from dractl.api.resource import ResourceClaim
from dractl.simulate.framework import Plugin, unresolvable
from dractl.simulate.names import generated_name, uid_for
from dractl.simulate.resources import IMPLICIT_CLASS_PREFIX, extended_requests
from dractl.simulate.state import ClaimState, PodClaimRef
from dractl.suggest import closest_match

NAME = "DynamicResources"  # upstream's plugin for these verdicts
# kube-scheduler's verdict (kept verbatim); dractl's explanation of it is added in PostFilter.
CANNOT_FIT = unresolvable("cannot fit resource", NAME)


def _requests(ext) -> list[dict]:
    return [exact_count_request(e.request_name, e.device_class, e.count) for e in ext]


class ExtendedResources(Plugin):
    name = "ExtendedResources"
    pod_fields = ("spec.containers[].resources", "spec.initContainers[].resources")

    def enabled(self) -> bool:
        return bool(self.cluster.extended_classes)

    # PreFilter: the pod's extended-resource requests, per container, in upstream's naming order.
    def pre_filter(self, state):
        state.ext = extended_requests(state.pod.spec, self.cluster.extended_classes)
        return None

    # Filter: the requests this node's allocatable lacks go through DRA; one without a device
    # class, or a fractional one, cannot fit. The claim model joins DynamicResources' allocation.
    def filter(self, state, attempt):
        if not state.ext:
            return None
        alloc = self.cluster.node_alloc[attempt.node.name]
        through_dra = tuple(e for e in state.ext if e.resource not in alloc)
        if any(e.device_class is None or e.count < 0 for e in through_dra):
            return CANNOT_FIT
        attempt.ext = through_dra
        if through_dra:
            attempt.special = self._claim_model(state, through_dra)
        return None

    # PostFilter: dractl's own explanation of "cannot fit resource": which extended resource no
    # DeviceClass maps (or asks for a fraction of a device), on which nodes.
    def post_filter(self, state, statuses, total):
        nodes = [name for name, status in statuses.items() if status is CANNOT_FIT]
        if not nodes:
            return None
        shown = ", ".join(nodes[:3]) + (f" and {len(nodes) - 3} more" if len(nodes) > 3 else "")
        state.details.append(f"{len(nodes)} node(s) ({shown}): cannot fit resource")
        offered = {e.resource for name in nodes for e in state.ext if e.resource in self.cluster.node_alloc[name]}
        for e in state.ext:
            if e.resource in offered:
                continue
            if e.device_class is None:
                state.details.append("  " + self._unmapped_text(e))
            elif e.count < 0:
                state.details.append(f"  dractl: container {e.container} requests a fraction of "
                                     f"{e.resource}; DeviceClass {e.device_class} maps it to devices, "
                                     "which are allocated whole")
        return None

    def _unmapped_text(self, e) -> str:
        known = sorted(name for name in self.cluster.extended_classes if not name.startswith(IMPLICIT_CLASS_PREFIX))
        hint = closest_match(e.resource, list(self.cluster.extended_classes))
        return (f"dractl: no DeviceClass maps the extended resource {e.resource} (requested by container "
                f"{e.container}): no class sets spec.extendedResourceName: {e.resource}, and it is not "
                f"{IMPLICIT_CLASS_PREFIX}<class> of an existing class; the nodes do not offer it in "
                "status.allocatable either"
                + (f"; classes map {', '.join(known[:5])}" if known else "")
                + (f"; did you mean {hint}?" if hint else ""))

    def _claim_model(self, state, ext: tuple) -> ResourceClaim:
        models = state.data.setdefault(self.name, {})
        model = models.get(ext)
        if model is None:
            pod = state.pod
            manifest = {"metadata": {"name": f"{pod.name}-extended-resources", "namespace": pod.namespace,
                                     "uid": uid_for("ExtendedClaim", pod.namespace, pod.name)},
                        "spec": {"devices": {"requests": _requests(ext)}}}
            model = models[ext] = ResourceClaim.from_dict(manifest)
        return model

    # Reserve: the special claim KEP-5004 creates at PreBind, allocated and reserved for the
    # pod, and the pod's status.extendedResourceClaimStatus.
    def reserve(self, state, attempt):
        if attempt.special is None:
            return None
        pod, cluster = state.pod, self.cluster
        name = generated_name(f"{pod.name}-extended-resources-", f"{pod.uid}/extended")
        meta = {"name": name, "generateName": f"{pod.name}-extended-resources-",
                "namespace": pod.namespace,
                "uid": uid_for("ResourceClaim", pod.namespace, name),
                "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid,
                                     "controller": True, "blockOwnerDeletion": True}]}
        manifest = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
                    "spec": {"devices": {"requests": _requests(attempt.ext)}}}
        claim = ClaimState(pod.namespace, name, meta["uid"], manifest, ResourceClaim.from_dict(manifest),
                           None, generated=True, touched=True, referenced=True)
        cluster.add_claim(claim)
        cluster.commit_allocation(claim, attempt.outcome.results[-1], attempt.node.name)
        claim.reserved_for.append({"resource": "pods", "name": pod.name, "uid": pod.uid})
        status = {"resourceClaimName": name, "requestMappings": [
            {"containerName": e.container, "resourceName": e.resource, "requestName": e.request_name}
            for e in attempt.ext]}
        cluster.journal.set_item(pod.status, "extendedResourceClaimStatus", status)
        # Not journaled, as before the framework: a gang that is rolled back keeps the entry.
        state.result.claims.append(PodClaimRef("(extended resources)", claim))
        return None
