"""Nodes of the simulated cluster and the non-DRA checks a pod must pass on a node.

Only what decides placement in a dry run: spec.nodeName, nodeSelector, required node affinity,
and NoSchedule/NoExecute node taints against the pod's tolerations (kube-scheduler's NodeName,
NodeAffinity and TaintToleration filter plugins).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from dractl.allocator.nodes import NodeInfo, NodeSelectorError, node_selector_matches
from dractl.api.resource import NodeSelector
from dractl.models import Node, ObjectModel


@dataclass(frozen=True)
class NodeTaint:
    key: str
    value: str
    effect: str


@dataclass
class SimNode:
    name: str
    labels: Mapping[str, str]
    taints: tuple[NodeTaint, ...] = ()
    allocatable: Mapping[str, Any] = field(default_factory=dict)
    declared: bool = True                # False: inferred from a slice's nodeName
    unschedulable: bool = False          # cordoned (spec.unschedulable)
    declared_features: tuple[str, ...] | None = None  # status.declaredFeatures, None if absent
    info: NodeInfo = field(init=False)

    def __post_init__(self) -> None:
        self.info = NodeInfo(self.name, MappingProxyType(dict(self.labels)),
                             frozenset(self.declared_features or ()))

    @classmethod
    def from_model(cls, node: Node) -> "SimNode":
        """A declared Node (dractl.models.Node: hostname label defaulted, taints, cordon)."""
        return cls(node.name, dict(node.labels),
                   tuple(NodeTaint(t.key, t.value, t.effect) for t in node.taints),
                   dict(node.allocatable), unschedulable=node.unschedulable,
                   declared_features=node.declared_features)

    @classmethod
    def from_manifest(cls, data: Mapping[str, Any]) -> "SimNode":
        """A Node manifest (a parsed object, not yet a model)."""
        return cls.from_model(Node.from_model(ObjectModel(data)))

    @classmethod
    def inferred(cls, name: str) -> "SimNode":
        return cls(name, {"kubernetes.io/hostname": name}, (), {}, declared=False)


def toleration_tolerates(toleration: Mapping[str, Any], taint: NodeTaint) -> bool:
    """core/v1 Toleration.ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.effect:
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if not key:
        return operator == "Exists"
    if key != taint.key:
        return False
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == taint.value
    return False


def untolerated_taint(spec: Mapping[str, Any], node: SimNode,
                      effects: tuple[str, ...] = ("NoSchedule", "NoExecute")) -> NodeTaint | None:
    tolerations = [t for t in (spec.get("tolerations") or []) if isinstance(t, dict)]
    for taint in node.taints:
        if taint.effect not in effects:
            continue
        if not any(toleration_tolerates(t, taint) for t in tolerations):
            return taint
    return None


_UNSCHEDULABLE_TAINT = NodeTaint("node.kubernetes.io/unschedulable", "", "NoSchedule")
UNSCHEDULABLE = "node(s) were unschedulable"
NODE_NAME_MISMATCH = "node(s) didn't match the requested node name"
AFFINITY_MISMATCH = "node(s) didn't match Pod's node affinity/selector"


def unschedulable_reason(spec: Mapping[str, Any], node: SimNode) -> str | None:
    """NodeUnschedulable: a cordoned node takes only pods tolerating its unschedulable taint."""
    if node.unschedulable:
        tolerations = [t for t in (spec.get("tolerations") or []) if isinstance(t, dict)]
        if not any(toleration_tolerates(t, _UNSCHEDULABLE_TAINT) for t in tolerations):
            return UNSCHEDULABLE
    return None


def node_name_reason(spec: Mapping[str, Any], node: SimNode) -> str | None:
    node_name = spec.get("nodeName")
    if isinstance(node_name, str) and node_name and node_name != node.name:
        return NODE_NAME_MISMATCH
    return None


# TaintToleration's Filter reason (plugins/tainttoleration, ErrReasonNotMatch). It names no
# taint since kubernetes/kubernetes#134740 (1.35, cherry-picked into 1.34.2 by #135023); the
# taint is dractl's explanation line (TaintToleration.explain_rejection). docs/scheduler.md.
UNTOLERATED_TAINT = "node(s) had untolerated taint(s)"


def taint_reason(spec: Mapping[str, Any], node: SimNode) -> str | None:
    return UNTOLERATED_TAINT if untolerated_taint(spec, node) is not None else None


def taint_text(taint: NodeTaint) -> str:
    """A taint as kubectl writes it: key=value:Effect (key:Effect without a value)."""
    value = f"={taint.value}" if taint.value else ""
    return f"{taint.key}{value}:{taint.effect}"


def affinity_reason(spec: Mapping[str, Any], node: SimNode) -> str | None:
    """NodeAffinity: spec.nodeSelector, then required node affinity."""
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        for k, v in selector.items():
            if node.labels.get(str(k)) != str(v):
                return AFFINITY_MISMATCH
    affinity = spec.get("affinity") if isinstance(spec.get("affinity"), dict) else {}
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity.get("nodeAffinity"), dict) else {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        sel = NodeSelector.from_dict(required)
        if sel is not None:
            try:
                if not node_selector_matches(sel, node.info):
                    return AFFINITY_MISMATCH
            except NodeSelectorError:
                return AFFINITY_MISMATCH
    return None


# Host ports (HostPortInfo in k8s.io/kube-scheduler/framework): a port is (hostIP, protocol,
# hostPort); an unset hostIP is 0.0.0.0 and an unset protocol TCP.
WILDCARD_IP = "0.0.0.0"


def wanted_ports(spec: Mapping[str, Any]) -> tuple[tuple[str, str, int], ...]:
    """The host ports a pod takes on its node: the ports with hostPort > 0 of its containers and
    of its sidecar (restartPolicy: Always) init containers (nodeports.getContainerPorts; with
    spec.hostNetwork, API defaulting has set hostPort to containerPort)."""
    host_network = spec.get("hostNetwork") is True
    out = []
    sidecars = [c for c in spec.get("initContainers") or []
                if isinstance(c, dict) and c.get("restartPolicy") == "Always"]
    for container in sidecars + list(spec.get("containers") or []):
        if not isinstance(container, dict):
            continue
        for port in container.get("ports") or []:
            if not isinstance(port, dict):
                continue
            host_port = port.get("hostPort")
            if host_network and not host_port:
                host_port = port.get("containerPort")
            if not isinstance(host_port, int) or isinstance(host_port, bool) or host_port <= 0:
                continue
            out.append((str(port.get("hostIP") or WILDCARD_IP), str(port.get("protocol") or "TCP"), host_port))
    return tuple(out)


def port_conflicts(used: set, ip: str, protocol: str, port: int) -> bool:
    """HostPortInfo.CheckConflict: 0.0.0.0 conflicts with every address of the same protocol
    and port, any other address with itself and 0.0.0.0."""
    if ip == WILDCARD_IP:
        return any(p == protocol and n == port for _, p, n in used)
    return (WILDCARD_IP, protocol, port) in used or (ip, protocol, port) in used


NODE_CHECKS = (unschedulable_reason, node_name_reason, taint_reason, affinity_reason)


def pod_fits_node(spec: Mapping[str, Any], node: SimNode) -> str | None:
    """None if the pod may run on the node as far as the node filters go; else the reason in
    kube-scheduler's words (the checks of the NodeUnschedulable, NodeName, TaintToleration and
    NodeAffinity plugins, in the scheduler's default order). Used for DaemonSet expansion."""
    for check in NODE_CHECKS:
        reason = check(spec, node)
        if reason is not None:
            return reason
    return None
