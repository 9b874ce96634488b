"""DefaultPreemption's PostFilter message (pkg/scheduler/framework/plugins/defaultpreemption,
default_preemption.go PostFilter, and pkg/scheduler/framework/preemption, Evaluator.Preempt).
dractl does not preempt: it finds no victims anywhere, as upstream does when no pod of lower
priority runs on a node. So, as upstream words it:

* a pod with preemptionPolicy: Never is "not eligible due to preemptionPolicy=Never."
  (PodEligibleToPreemptOthers);
* otherwise only nodes whose status is Unschedulable are tried (findCandidates), each found
  without victims ("No preemption victims found for incoming pod", SelectVictimsOnNode); every
  other node is "Preemption is not helpful for scheduling" (the absent-nodes status);
* the message is "preemption: " + a FitError over those statuses."""

from __future__ import annotations

from dractl.simulate.fiterror import fit_error
from dractl.simulate.framework import Plugin, unresolvable

NAME = "DefaultPreemption"
NOT_HELPFUL = unresolvable("Preemption is not helpful for scheduling", NAME)
NO_VICTIMS = unresolvable("No preemption victims found for incoming pod", NAME)
NEVER = "not eligible due to preemptionPolicy=Never."


class DefaultPreemption(Plugin):
    name = NAME

    # PostFilter: "preemption: " + the message of the preemption attempt.
    def post_filter(self, state, statuses, total):
        if state.pod.spec.get("preemptionPolicy") == "Never":
            return f"preemption: {NEVER}"
        tried = {name: NO_VICTIMS for name, status in statuses.items() if status.preemption_might_help()}
        return "preemption: " + fit_error(total, tried, absent=NOT_HELPFUL)
