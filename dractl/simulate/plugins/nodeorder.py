"""dractl's own node-order policies (--node-order): "first" takes the first feasible node in
inventory order; "least-allocated" / "most-allocated" prefer the feasible node with the fewest /
most devices of its node-local pools in use. A Score plugin of dractl's, after the profile's
plugins: its score breaks the ties DynamicResources' score leaves (scores compare in order)."""

from __future__ import annotations

from dractl.simulate.framework import Plugin


class NodeOrder(Plugin):
    name = "NodeOrder"

    def __init__(self, cluster) -> None:
        super().__init__(cluster)
        self.order = cluster.options.node_order
        self.sign = -1 if self.order == "least-allocated" else 1

    # Score: devices in use, negated for least-allocated (a higher score is better).
    def scores(self, state):
        return self.order != "first"

    def score(self, state, node):
        return self.sign * self.cluster.node_devices_used[node.name]

    def scan_order(self, state, nodes):
        # The score depends on the node alone: best first, ties in inventory order.
        used = self.cluster.node_devices_used
        sign = self.sign
        return sorted(range(len(nodes)), key=lambda i: (-sign * used[nodes[i].name], i))
