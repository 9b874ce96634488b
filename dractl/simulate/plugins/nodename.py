"""NodeName: a pod that sets spec.nodeName fits that node only (upstream plugins/nodename).
Such pods bypass kube-scheduler in a real cluster; the scheduling loop warns about that."""

from __future__ import annotations

from dractl.simulate.framework import Plugin, unresolvable
from dractl.simulate.nodes import node_name_reason


class NodeName(Plugin):
    name = "NodeName"
    pod_fields = ("spec.nodeName",)

    # Filter: UnschedulableAndUnresolvable on every other node.
    def filter(self, state, node):
        reason = node_name_reason(state.pod.spec, node)
        return unresolvable(reason, self.name) if reason is not None else None
