"""Nodes as the allocator sees them (name + labels) and node-selector matching with the semantics
of Kubernetes node affinity (docs/spec/allocator.md#node-selectors)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from dractl.api.resource import NodeSelector, NodeSelectorRequirement

_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1


class NodeSelectorError(ValueError):
    """A node selector that Kubernetes would fail to parse."""


@dataclass(frozen=True)
class NodeInfo:
    name: str
    labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # `status.declaredFeatures` (1.37: a node that lists DRAOptionalNodeOperations lets the
    # allocator use devices whose slice sets skipNodeOperations).
    declared_features: frozenset = frozenset()

    @classmethod
    def from_any(cls, node: Any) -> "NodeInfo":
        """Accept a NodeInfo, a Node manifest dict, or a bare node name."""
        if isinstance(node, NodeInfo):
            return node
        if isinstance(node, str):
            return cls(node)
        if isinstance(node, Mapping):
            meta = node.get("metadata") or {}
            labels = meta.get("labels") or {}
            status = node.get("status")
            declared = status.get("declaredFeatures") if isinstance(status, Mapping) else None
            return cls(str(meta.get("name") or ""),
                       MappingProxyType({str(k): "" if v is None else str(v) for k, v in labels.items()}),
                       frozenset(str(f) for f in declared) if isinstance(declared, (list, tuple)) else frozenset())
        name = getattr(node, "name", None)
        if isinstance(name, str):
            return cls(name, MappingProxyType(dict(getattr(node, "labels", None) or {})),
                       frozenset(getattr(node, "declared_features", None) or ()))
        raise TypeError(f"cannot use {type(node).__name__} as a node")

    @property
    def cache_key(self) -> tuple:
        return (self.name, tuple(sorted(self.labels.items())), tuple(sorted(self.declared_features)))


def _valid_label_key(key: str) -> bool:
    prefix, sep, name = key.rpartition("/")
    if sep and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        return False
    return 0 < len(name) <= 63 and bool(_LABEL_NAME.match(name))


def _valid_label_value(value: str) -> bool:
    return value == "" or (len(value) <= 63 and bool(_LABEL_NAME.match(value)))


def _parse_int64(text: str) -> int | None:
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        return None
    v = int(text)
    return v if _INT64_MIN <= v <= _INT64_MAX else None


def _check_label_requirement(r: NodeSelectorRequirement) -> str | None:
    if not _valid_label_key(r.key):
        return f"key: Invalid value: {r.key!r}: name part must consist of alphanumeric characters"
    op = r.operator
    if op in ("In", "NotIn"):
        if not r.values:
            return "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"
    elif op in ("Exists", "DoesNotExist"):
        if r.values:
            return "values: Invalid value: values set must be empty for exists and does not exist"
    elif op in ("Gt", "Lt"):
        if len(r.values) != 1:
            return "values: Invalid value: for 'Gt', 'Lt' operators, exactly one value is required"
        if _parse_int64(r.values[0]) is None:
            return (f"values[0]: Invalid value: {r.values[0]!r}: for 'Gt', 'Lt' operators, "
                    "the value must be an integer")
    else:
        return f"operator: Unsupported value: {op!r}"
    for v in r.values:
        if not _valid_label_value(v):
            return f"values: Invalid value: {v!r}: a valid label must be an empty string or consist of alphanumeric characters"
    return None


def _check_field_requirement(r: NodeSelectorRequirement) -> str | None:
    if len(r.values) != 1:
        return f"values: Invalid value: {list(r.values)!r}: must have one element"
    if r.operator not in ("In", "NotIn"):
        return f"operator: Unsupported value: {r.operator!r}: supported values: \"In\", \"NotIn\""
    return None


def _label_matches(r: NodeSelectorRequirement, labels: Mapping[str, str]) -> bool:
    op = r.operator
    present = r.key in labels
    if op == "In":
        return present and labels[r.key] in r.values
    if op == "NotIn":
        return not present or labels[r.key] not in r.values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if not present:
        return False
    have = _parse_int64(labels[r.key])
    if have is None:
        return False
    want = _parse_int64(r.values[0])
    return have > want if op == "Gt" else have < want  # type: ignore[operator]


def _field_matches(r: NodeSelectorRequirement, node: NodeInfo) -> bool:
    have = node.name if r.key == "metadata.name" else ""
    return (have == r.values[0]) if r.operator == "In" else (have != r.values[0])


def validate_node_selector(selector: NodeSelector) -> None:
    """Raise NodeSelectorError if Kubernetes could not parse the selector."""
    problems = []
    for i, term in enumerate(selector.terms):
        for j, r in enumerate(term.match_expressions):
            p = _check_label_requirement(r)
            if p:
                problems.append(f"nodeSelectorTerms[{i}].matchExpressions[{j}].{p}")
        for j, r in enumerate(term.match_fields):
            p = _check_field_requirement(r)
            if p:
                problems.append(f"nodeSelectorTerms[{i}].matchFields[{j}].{p}")
    if problems:
        rendered = selector.to_dict()
        raise NodeSelectorError(f"failed to parse node selector {rendered}: " + "; ".join(problems))


def node_selector_matches(selector: NodeSelector, node: NodeInfo) -> bool:
    """Kubernetes node affinity: terms ORed, requirements ANDed, empty terms ignored."""
    validate_node_selector(selector)
    for term in selector.terms:
        if not term.match_expressions and not term.match_fields:
            continue
        if all(_label_matches(r, node.labels) for r in term.match_expressions) and \
                all(_field_matches(r, node) for r in term.match_fields):
            return True
    return False


def node_matches(node: NodeInfo, node_name: str | None, all_nodes: bool | None,
                 node_selector: NodeSelector | None) -> bool:
    """First applicable of nodeName, allNodes, nodeSelector; none set matches nothing."""
    if node_name:
        return node.name == node_name
    if all_nodes:
        return True
    if node_selector is not None:
        return node_selector_matches(node_selector, node)
    return False
