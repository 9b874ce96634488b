"""TaintToleration: a node's NoSchedule and NoExecute taints keep off pods that do not tolerate
them (upstream plugins/tainttoleration; its scoring of PreferNoSchedule is not simulated)."""

from __future__ import annotations

from dractl.simulate.framework import Plugin, unresolvable
from dractl.simulate.nodes import UNTOLERATED_TAINT, taint_text, untolerated_taint

NAME = "TaintToleration"
REJECTED = unresolvable(UNTOLERATED_TAINT, NAME)


class TaintToleration(Plugin):
    name = NAME
    pod_fields = ("spec.tolerations",)

    # Filter: UnschedulableAndUnresolvable when a NoSchedule/NoExecute taint is not tolerated.
    def filter(self, state, node):
        return REJECTED if untolerated_taint(state.pod.spec, node) is not None else None

    # dractl's own: which taint (the first one not tolerated), as kube-scheduler's message
    # no longer says.
    def explain_rejection(self, state, node_name, status):
        taint = untolerated_taint(state.pod.spec, self.cluster.node_by_name[node_name])
        return [f"untolerated taint {taint_text(taint)}"] if taint is not None else None
