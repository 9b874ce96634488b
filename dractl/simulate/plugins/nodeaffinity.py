"""NodeAffinity: spec.nodeSelector and required node affinity against the node's labels and
fields (pkg/scheduler/framework/plugins/nodeaffinity, node_affinity.go; preferred affinity is not
scored)."""

from __future__ import annotations

from dractl.simulate.framework import SKIP, Plugin, PreFilterResult, unresolvable
from dractl.simulate.nodes import affinity_reason

NAME = "NodeAffinity"
# errReasonConflict: every term names nodes by metadata.name and no node is in all of them.
CONFLICT = "pod affinity terms conflict"


def _required_terms(spec) -> list | None:
    affinity = spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") \
        if isinstance(node_affinity, dict) else None
    if not isinstance(required, dict):
        return None
    terms = required.get("nodeSelectorTerms")
    return [t for t in terms if isinstance(t, dict)] if isinstance(terms, list) else []


def named_nodes(terms: list) -> frozenset[str] | None:
    """PreFilter's node names: the nodes each term names by `metadata.name In` (ANDed within a
    term, ORed across terms); None when some term names none (every node may match)."""
    names: set[str] = set()
    for term in terms:
        term_names = None
        for field in term.get("matchFields") or []:
            if not isinstance(field, dict) or field.get("key") != "metadata.name" or field.get("operator") != "In":
                continue
            values = {str(v) for v in field.get("values") or []}
            term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None
        names |= term_names
    return frozenset(names)


class NodeAffinity(Plugin):
    name = NAME
    pod_fields = ("spec.nodeSelector", "spec.affinity")

    # PreFilter: Skip without nodeSelector and required affinity; the nodes the required terms
    # name by metadata.name (a DaemonSet's pods name their node) become a PreFilterResult, and
    # terms that name no common node are UnschedulableAndUnresolvable.
    def pre_filter(self, state):
        spec = state.pod.spec
        if "affinity" not in spec and spec.get("nodeSelector") is None:
            return SKIP
        terms = _required_terms(spec)
        if terms is None and spec.get("nodeSelector") is None:
            return SKIP
        if not terms:
            return None
        names = named_nodes(terms)
        if names is None:
            return None
        if not names:
            return unresolvable(CONFLICT, NAME)
        return PreFilterResult(names)

    # Filter: UnschedulableAndUnresolvable when the selector or a required term does not match.
    def filter(self, state, node):
        reason = affinity_reason(state.pod.spec, node)
        return unresolvable(reason, NAME) if reason is not None else None
