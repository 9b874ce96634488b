"""NodePorts: a pod's host ports must be free on the node (pkg/scheduler/framework/plugins/
nodeports, node_ports.go). The ports in use are the node's (ClusterState.node_ports, filled by
the assume step like NodeInfo.UsedPorts); this plugin only reads them."""

from __future__ import annotations

from dractl.simulate.framework import SKIP, Plugin, unschedulable
from dractl.simulate.nodes import port_conflicts

NAME = "NodePorts"
REASON = "node(s) didn't have free ports for the requested pod ports"


class NodePorts(Plugin):
    name = NAME
    pod_fields = ("spec.containers[].ports", "spec.initContainers[].ports", "spec.initContainers[].restartPolicy",
                  "spec.hostNetwork")

    # PreFilter: the pod's host ports; none: Skip (the Filter has nothing to check).
    def pre_filter(self, state):
        wanted = state.pod.host_ports()
        if not wanted:
            return SKIP
        state.write(NAME, wanted)
        return None

    # Filter: Unschedulable when a wanted port conflicts with one in use on the node.
    def filter(self, state, node):
        used = self.cluster.node_ports.get(node.name)
        if used and any(port_conflicts(used, *p) for p in state.read(NAME)):
            return unschedulable(REASON, NAME)
        return None
