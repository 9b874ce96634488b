"""NodeResourcesFit: the pod's requests (cpu, memory, ephemeral-storage, hugepages, extended
resources, pod count) against what the node reports allocatable, minus what pods placed by the
run requested (upstream plugins/noderesources, fit.go). Nodes without status.allocatable are
not checked: the inventory says nothing about their capacity."""

from __future__ import annotations

from dractl.simulate.framework import Plugin, unresolvable, unschedulable
from dractl.simulate.resources import insufficient, pod_requests


class NodeResourcesFit(Plugin):
    name = "NodeResourcesFit"
    pod_fields = ("spec.containers[].resources", "spec.initContainers[].resources", "spec.resources",
                  "spec.overhead")

    # PreFilter: the pod's requests (containers, init containers, overhead, pod-level resources).
    def pre_filter(self, state):
        state.demand = pod_requests(state.pod.spec)
        return None

    # Filter: "Too many pods" and "Insufficient <resource>". Extended resources that this node
    # serves through DRA (KEP-5004: set by the ExtendedResources filter) are not counted here.
    # "Too many pods" is UnschedulableAndUnresolvable in dractl (upstream: Unschedulable), so
    # the FailedScheduling summary stays what dractl has always printed for it.
    def filter(self, state, attempt):
        name = attempt.node.name
        alloc = self.cluster.node_alloc[name]
        if not alloc:
            return None
        if "pods" in alloc and self.cluster.node_pods[name] + 1 > alloc["pods"]:
            return unresolvable("Too many pods", self.name)
        demand = state.demand
        if attempt.ext:
            through_dra = {e.resource for e in attempt.ext}
            demand = {k: v for k, v in demand.items() if k not in through_dra}
        fit = insufficient(demand, self.cluster.free(name), alloc)
        return unschedulable(", ".join(fit), self.name) if fit else None

    # Reserve: account the requests (and DRA-mapped native resources, KEP-5517) on the node.
    def reserve(self, state, attempt):
        name = attempt.node.name
        if not self.cluster.node_alloc[name]:
            return None
        through_dra = {e.resource for e in attempt.ext}
        charge = {k: v for k, v in state.demand.items() if k not in through_dra}
        for k, v in attempt.native.items():
            charge[k] = charge.get(k, 0) + v
        charge.pop("pods", None)
        journal = self.cluster.journal
        journal.add_all(self.cluster.node_requested[name], charge)
        journal.add(self.cluster.node_pods, name, 1)
        self.cluster.touch(name)
        return None
