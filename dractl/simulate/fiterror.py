"""kube-scheduler's FitError message, the text of the FailedScheduling event and of the pod's
PodScheduled condition (pkg/scheduler/framework/types.go, FitError.Error()):

    "0/<N> nodes are available: " + <PreFilter message> + "." (when PreFilter rejected the pod)
                                 or <the reason histogram> + "." (otherwise)
    then " " + the PostFilter message, when there is one.

The histogram counts every reason of every node's status (a status can carry several, e.g.
NodeResourcesFit's "Insufficient cpu" and "Insufficient memory"), nodes without an explicit
status count with the absent-nodes status (PreFilterResult left them out), and the
"<count> <reason>" strings are sorted as strings (sort.Strings) and joined with ", ".
DefaultPreemption builds its own message the same way (preemption.go, Evaluator.Preempt).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

from dractl.simulate.framework import Status

NO_NODE_AVAILABLE = "0/{} nodes are available"


def histogram(statuses: Iterable[Status], absent: Status | None = None, absent_count: int = 0) -> str:
    counts: Counter = Counter()
    for status in statuses:
        for reason in status.reasons:
            counts[reason] += 1
    if absent is not None and absent_count > 0:
        for reason in absent.reasons:
            counts[reason] += absent_count
    return ", ".join(sorted(f"{n} {reason}" for reason, n in counts.items()))


def fit_error(total: int, statuses: Mapping[str, Status], pre_filter: str = "", post_filter: str = "",
              absent: Status | None = None) -> str:
    """FitError.Error() for `total` nodes: `statuses` are the explicit per-node statuses, `absent`
    the status of the nodes not among them."""
    message = NO_NODE_AVAILABLE.format(total) + ":"
    if pre_filter:
        message += f" {pre_filter}."
    else:
        summary = histogram(statuses.values(), absent, total - len(statuses))
        if summary:
            message += f" {summary}."
    if post_filter:
        message += f" {post_filter}"
    return message
