"""TaintToleration: a node's NoSchedule and NoExecute taints keep off pods that do not tolerate
them (upstream plugins/tainttoleration; its scoring of PreferNoSchedule is not simulated)."""

from __future__ import annotations

from dractl.simulate.framework import Plugin, unresolvable
from dractl.simulate.nodes import taint_reason


class TaintToleration(Plugin):
    name = "TaintToleration"
    pod_fields = ("spec.tolerations",)

    # Filter: UnschedulableAndUnresolvable, naming the first untolerated taint.
    def filter(self, state, node):
        reason = taint_reason(state.pod.spec, node)
        return unresolvable(reason, self.name) if reason is not None else None
