"""NodeAffinity: spec.nodeSelector and required node affinity against the node's labels and
fields (upstream plugins/nodeaffinity; preferred affinity is not scored)."""

from __future__ import annotations

from dractl.simulate.framework import Plugin, unresolvable
from dractl.simulate.nodes import affinity_reason


class NodeAffinity(Plugin):
    name = "NodeAffinity"
    pod_fields = ("spec.nodeSelector", "spec.affinity")

    # Filter: UnschedulableAndUnresolvable when the selector or a required term does not match.
    def filter(self, state, attempt):
        reason = affinity_reason(state.pod.spec, attempt.node)
        return unresolvable(reason, self.name) if reason is not None else None
