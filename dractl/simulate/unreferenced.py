"""dractl's own step after the pods: unallocated claims that no pod uses are allocated together,
on the first node where that succeeds (as if one pod referenced them all)."""

from __future__ import annotations

from collections import Counter

from dractl.allocator.errors import INVALID_POOLS_MESSAGE
from dractl.simulate import reasons as R
from dractl.simulate.cluster import ClusterState
from dractl.simulate.explain import MAX_EXPLAINED_NODES, explain_node
from dractl.simulate.state import CLAIM_ERROR, PENDING, UNSATISFIABLE, Reason

_NO_ALLOCATION = "cannot allocate all claims"


def allocate_unreferenced(cluster: ClusterState) -> None:
    todo = [c for c in cluster.plan.claims if not c.referenced and not c.generated
            and c.allocation is None and c.status == PENDING and c.model is not None]
    if not todo:
        return
    nodes = cluster.nodes
    if cluster.options.only_node:
        nodes = [n for n in nodes if n.name == cluster.options.only_node]
    models = [c.model for c in todo]
    failures: dict[str, str] = {}
    for node in nodes:
        outcome = cluster.allocator.allocate(node.info, models, timeout=cluster.options.timeout)
        if outcome.allocated:
            for claim, allocation in zip(todo, outcome.results, strict=False):
                cluster.commit_allocation(claim, allocation, node.name)
            return
        if outcome.is_error and not outcome.node_failure and not outcome.timed_out:
            for claim in todo:
                claim.status = CLAIM_ERROR
                claim.reasons.append(Reason(R.ALLOCATOR_ERROR, outcome.error or "allocation error"))
            return
        failures[node.name] = outcome.error if outcome.is_error else _NO_ALLOCATION
    counts = Counter(failures.values())
    summary = ", ".join(f"{n} {reason}" for reason, n in sorted(counts.items()))
    lines: list[str] = []
    for node in nodes[:MAX_EXPLAINED_NODES]:
        if failures.get(node.name) in (_NO_ALLOCATION, INVALID_POOLS_MESSAGE):  # explained by the pools' causes
            # Cause lines (indented) stay under their request line.
            lines = [line if line.startswith(" ") else f"on {node.name}: {line}"
                     for line in explain_node(cluster, node, models)[0]]
            break
    for claim in todo:
        claim.status = UNSATISFIABLE
        claim.reasons.append(Reason(R.UNSATISFIABLE, f"0/{len(nodes)} nodes can allocate the "
                                    f"unreferenced claims together" + (f": {summary}" if summary else ""),
                                    details=tuple(lines)))
