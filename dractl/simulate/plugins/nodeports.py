"""NodePorts: a pod's host ports must be free on the node (upstream plugins/nodeports and
HostPortInfo). A port is (hostIP, protocol, hostPort); an unset hostIP is 0.0.0.0 and an unset
protocol TCP. 0.0.0.0 conflicts with every address of the same protocol and port, any other
address with itself and 0.0.0.0. Only containers' ports with hostPort > 0 count (as upstream; with
spec.hostNetwork, API defaulting has set hostPort to containerPort)."""

from __future__ import annotations

from dractl.simulate.framework import Plugin, unschedulable

WILDCARD = "0.0.0.0"
REASON = "node(s) didn't have free ports for the requested pod ports"


def wanted_ports(spec: dict) -> tuple[tuple[str, str, int], ...]:
    host_network = spec.get("hostNetwork") is True
    out = []
    for container in spec.get("containers") or []:
        if not isinstance(container, dict):
            continue
        for port in container.get("ports") or []:
            if not isinstance(port, dict):
                continue
            host_port = port.get("hostPort")
            if host_network and not host_port:
                host_port = port.get("containerPort")
            if not isinstance(host_port, int) or isinstance(host_port, bool) or host_port <= 0:
                continue
            out.append((str(port.get("hostIP") or WILDCARD), str(port.get("protocol") or "TCP"), host_port))
    return tuple(out)


def conflicts(used: set, ip: str, protocol: str, port: int) -> bool:
    """HostPortInfo.CheckConflict."""
    if ip == WILDCARD:
        return any(p == protocol and n == port for _, p, n in used)
    return (WILDCARD, protocol, port) in used or (ip, protocol, port) in used


class NodePorts(Plugin):
    name = "NodePorts"
    pod_fields = ("spec.containers[].ports", "spec.hostNetwork")

    def __init__(self, cluster) -> None:
        super().__init__(cluster)
        self.used: dict[str, set] = {}     # node -> host ports of the pods placed there

    # PreFilter: the pod's host ports (none: the Filter has nothing to check).
    def pre_filter(self, state):
        state.data[self.name] = wanted_ports(state.pod.spec)
        return None

    # Filter: Unschedulable when a wanted port conflicts with one in use on the node.
    def filter(self, state, attempt):
        wanted = state.data[self.name]
        if not wanted:
            return None
        used = self.used.get(attempt.node.name)
        if used and any(conflicts(used, *p) for p in wanted):
            return unschedulable(REASON, self.name)
        return None

    # Reserve: the node's ports are taken (journaled: a gang rolled back frees them again).
    def reserve(self, state, attempt):
        wanted = state.data[self.name]
        if not wanted:
            return None
        name = attempt.node.name
        journal = self.cluster.journal
        if name not in self.used:
            journal.set_item(self.used, name, set())
        used = self.used[name]
        for port in wanted:
            if port not in used:
                journal.on_rollback(used.discard, port)
                used.add(port)
        self.cluster.touch(name)
        return None
