"""NodeResourcesFit: the pod's requests (cpu, memory, ephemeral-storage, hugepages, extended
resources) and the pod count against what the node reports allocatable, minus what the pods
placed by the run requested (pkg/scheduler/framework/plugins/noderesources, fit.go Fit.Filter
and helper.FitsRequest). Nodes without status.allocatable are not checked: the inventory says
nothing about their capacity (dractl's choice)."""

from __future__ import annotations

from dractl.simulate.framework import Code, Plugin, Status
from dractl.simulate.resources import insufficient, requested_items

NAME = "NodeResourcesFit"
TOO_MANY_PODS = "Too many pods"


class NodeResourcesFit(Plugin):
    name = NAME
    pod_fields = ("spec.containers[].resources", "spec.initContainers[].resources", "spec.resources",
                  "spec.overhead")

    def __init__(self, cluster) -> None:
        super().__init__(cluster)
        self.dra_classes = cluster.extended_classes   # filled only with DRAExtendedResource on

    # PreFilter: the pod's requests (containers, init containers, overhead, pod-level resources),
    # in the order fitsRequest checks them, and whether some of them a DeviceClass maps.
    def pre_filter(self, state):
        requests = state.pod.requests()
        classes = self.dra_classes
        state.write(NAME, (requested_items(requests), bool(classes) and not classes.keys().isdisjoint(requests)))
        return None

    # Filter: "Too many pods" first, then one "Insufficient <resource>" per short resource, all
    # in one status. Unschedulable, or UnschedulableAndUnresolvable when some request exceeds the
    # node's whole allocatable (fit.go: only then can preemption not help). An extended resource
    # the node does not offer (allocatable 0 or absent) and a DeviceClass maps is left to
    # DynamicResources (helper.ShouldDelegateResourceToDRA, KEP-5004).
    def filter(self, state, node):
        name = node.name
        cluster = self.cluster
        alloc = cluster.node_alloc[name]
        if not alloc:
            return None
        reasons: list[str] = []
        pods = alloc.get("pods")
        if pods is not None and cluster.node_pods[name] + 1 > pods:
            reasons.append(TOO_MANY_PODS)
        items, mapped = state.read(NAME)
        short, unresolvable = insufficient(items, alloc, cluster.node_requested[name],
                                           self._delegated(alloc) if mapped else None)
        if not short and not reasons:
            return None
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
        return Status(code, tuple(reasons + short), NAME)

    def _delegated(self, alloc):
        classes = self.dra_classes
        return lambda resource: resource in classes and not alloc.get(resource, 0) > 0


def delegated_to_dra(cluster, resource: str, node_name: str) -> bool:
    """helper.ShouldDelegateResourceToDRA: an extended resource the node does not offer and a
    DeviceClass maps is allocated by DynamicResources (KEP-5004)."""
    return resource in cluster.extended_classes and not cluster.node_alloc[node_name].get(resource, 0) > 0
