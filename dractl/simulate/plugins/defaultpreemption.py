"""DefaultPreemption's PostFilter message. dractl does not preempt (there are no lower-priority
pods to evict in a dry run), so every node is either one where preemption is not helpful
(UnschedulableAndUnresolvable) or one where no victims were found (Unschedulable)."""

from __future__ import annotations

from dractl.simulate.framework import Plugin


class DefaultPreemption(Plugin):
    name = "DefaultPreemption"

    # PostFilter: "preemption: 0/N nodes are available: ..." from the nodes' status codes.
    def post_filter(self, state, statuses, total):
        might_help = sum(1 for s in statuses.values() if s.preemption_might_help())
        parts = []
        if total - might_help:
            parts.append(f"{total - might_help} Preemption is not helpful for scheduling")
        if might_help:
            parts.append(f"{might_help} No preemption victims found for incoming pod")
        return f"preemption: 0/{total} nodes are available: {', '.join(sorted(parts))}."
