"""NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate the
node.kubernetes.io/unschedulable:NoSchedule taint (upstream plugins/nodeunschedulable)."""

from __future__ import annotations

from dractl.simulate.framework import Plugin, unresolvable
from dractl.simulate.nodes import unschedulable_reason


class NodeUnschedulable(Plugin):
    name = "NodeUnschedulable"
    pod_fields = ("spec.tolerations",)

    # Filter: UnschedulableAndUnresolvable on a cordoned node the pod does not tolerate.
    def filter(self, state, node):
        reason = unschedulable_reason(state.pod.spec, node)
        return unresolvable(reason, self.name) if reason is not None else None
