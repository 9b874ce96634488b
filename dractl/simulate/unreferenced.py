"""dractl's own step after the pods: unallocated claims that no pod uses are allocated together,
on the first node where that succeeds (as if one pod referenced them all)."""

from __future__ import annotations

import functools
import itertools
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
    message = (f"0/{len(nodes)} nodes can allocate the unreferenced claims together"
               + (f": {summary}" if summary else ""))
    blocks = _explanation_blocks(cluster, nodes, failures, models)
    for claim in todo:
        claim.status = UNSATISFIABLE
        claim.reasons.append(Reason(R.UNSATISFIABLE, message,
                                    details=blocks.details_for(claim.model.ref)))


# The explanation names every claim allocated together. Each claim's reason keeps its own lines
# and those of at most this many others, then counts the rest: one reason per claim that named
# every claim made the output (and memory) grow with the square of the claims (dractl's own
# bound: 20,000 unreferenced claims of a cluster dump).
MAX_OTHER_CLAIMS = 3


def _explanation_blocks(cluster: ClusterState, nodes, failures: dict, models) -> "_Blocks":
    """The explanation on the first node that needs one, cut into blocks: a request line and the
    cause lines indented under it, each block about one claim (or about none)."""
    blocks = _Blocks()
    for node in nodes[:MAX_EXPLAINED_NODES]:
        if failures.get(node.name) in (_NO_ALLOCATION, INVALID_POOLS_MESSAGE):  # explained by the pools' causes
            refs = {m.ref for m in models}
            for line in explain_node(cluster, node, models)[0]:
                if line.startswith(" ") and blocks.lines:  # cause lines stay under their request line
                    blocks.lines[-1].append(line)
                    continue
                ref = line[len("claim "):].partition(", request ")[0] if line.startswith("claim ") else None
                blocks.add(ref if ref in refs else None, f"on {node.name}: {line}")
            break
    return blocks


class _Blocks:
    """The explanation's blocks in order, indexed by the claim they are about."""

    def __init__(self) -> None:
        self.lines: list[list[str]] = []
        self.by_owner: dict[str | None, list[int]] = {}

    def add(self, owner: str | None, line: str) -> None:
        self.by_owner.setdefault(owner, []).append(len(self.lines))
        self.lines.append([line])

    def details_for(self, ref: str) -> tuple[str, ...]:
        """The blocks about `ref` and about no claim, and those of the first MAX_OTHER_CLAIMS
        other claims, in the explanation's order; the other claims counted on one line. Bounded
        work per claim: the owners are in the order they first appear."""
        others = [o for o in itertools.islice(self.by_owner, MAX_OTHER_CLAIMS + 2)
                  if o is not None and o != ref][:MAX_OTHER_CLAIMS]
        chosen = sorted(i for owner in (None, ref, *others) for i in self.by_owner.get(owner, ()))
        out = [line for i in chosen for line in self.lines[i]]
        hidden = len(self.by_owner) - len(others) - (None in self.by_owner) - (ref in self.by_owner)
        if hidden > 0:
            out.append(self._more(hidden))
        return tuple(out)

    @functools.lru_cache(maxsize=8)  # noqa: B019 - one explanation, a few distinct counts
    def _more(self, hidden: int) -> str:
        return (f"... and {hidden:,} more unreferenced claim(s) allocated together "
                "(each one's own lines are under its own reason)")
