"""Node resources: kube-scheduler's NodeResourcesFit, DRA-backed extended resources (KEP-5004)
and native resources through DRA (KEP-5517).

NodeResourcesFit only runs for nodes whose Node object has `status.allocatable` (an inventory
without it says nothing about capacity, so nothing can be checked). Quantities are exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

from dractl.api.quantity import Quantity, QuantityError

# Resources NodeResourcesFit checks besides extended resources.
NATIVE = ("cpu", "memory", "ephemeral-storage")
IMPLICIT_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"


def _q(value: Any) -> Fraction | None:
    try:
        return Quantity.from_manifest(value).value
    except (QuantityError, TypeError, ValueError):
        return None


def is_native(name: str) -> bool:
    return name in NATIVE or name.startswith("hugepages-")


def is_extended(name: str) -> bool:
    """Extended resources: fully qualified names outside kubernetes.io (and not native)."""
    if is_native(name) or "/" not in name:
        return False
    domain = name.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io")) or \
        name.startswith(IMPLICIT_CLASS_PREFIX)


def _container_requests(container: Mapping[str, Any]) -> dict[str, Fraction]:
    resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
    requests = resources.get("requests") if isinstance(resources.get("requests"), dict) else {}
    limits = resources.get("limits") if isinstance(resources.get("limits"), dict) else {}
    out: dict[str, Fraction] = {}
    # API defaulting: a resource with a limit and no request requests its limit.
    for source in (limits, requests):
        for name, value in source.items():
            q = _q(value)
            if q is not None:
                out[str(name)] = q
    return out


def pod_requests(spec: Mapping[str, Any]) -> dict[str, Fraction]:
    """PodRequests: sum of containers, max with each init container, plus overhead;
    pod-level requests (PodLevelResources) take precedence for the resources they name."""
    total: dict[str, Fraction] = {}
    for c in spec.get("containers") or []:
        if isinstance(c, dict):
            for name, q in _container_requests(c).items():
                total[name] = total.get(name, Fraction(0)) + q
    for c in spec.get("initContainers") or []:
        if isinstance(c, dict):
            for name, q in _container_requests(c).items():
                if q > total.get(name, Fraction(0)):
                    total[name] = q
    pod_level = spec.get("resources") if isinstance(spec.get("resources"), dict) else {}
    for name, value in (pod_level.get("requests") or {}).items():
        q = _q(value)
        if q is not None:
            total[str(name)] = q
    for name, value in (spec.get("overhead") or {}).items():
        q = _q(value)
        if q is not None:
            total[str(name)] = total.get(str(name), Fraction(0)) + q
    return total


@dataclass(frozen=True)
class ExtendedRequest:
    container_index: int     # index in initContainers + containers
    container: str
    resource: str
    request_index: int       # index of the resource in the container's sorted request keys
    count: int
    device_class: str | None

    @property
    def request_name(self) -> str:
        return f"container-{self.container_index}-request-{self.request_index}"


def extended_requests(spec: Mapping[str, Any], class_for: Mapping[str, str]) -> list[ExtendedRequest]:
    """Per (container, extended resource) with a quantity > 0, in upstream's naming order."""
    out = []
    containers = [c for c in (spec.get("initContainers") or []) if isinstance(c, dict)] + \
                 [c for c in (spec.get("containers") or []) if isinstance(c, dict)]
    for i, c in enumerate(containers):
        requests = _container_requests(c)
        keys = sorted(requests)
        for j, name in enumerate(keys):
            if not is_extended(name) or requests[name] <= 0:
                continue
            count = requests[name]
            out.append(ExtendedRequest(i, str(c.get("name") or ""), name, j,
                                       int(count) if count.denominator == 1 else -1,
                                       class_for.get(name)))
    return out


def extended_class_map(classes: Iterable) -> dict[str, str]:
    """Extended resource name -> DeviceClass name: explicit `extendedResourceName` (newest class
    wins, ties by smallest name) and the implicit `deviceclass.resource.kubernetes.io/<class>`."""
    explicit: dict[str, tuple] = {}
    out: dict[str, str] = {}
    for c in classes:
        name, created, ext = c
        out[IMPLICIT_CLASS_PREFIX + name] = name
        if ext:
            key = (created or "", _neg(name))
            if ext not in explicit or key > explicit[ext][0]:
                explicit[ext] = (key, name)
    for ext, (_, name) in explicit.items():
        out[ext] = name
    return out


def _neg(name: str) -> tuple:
    # Sorting helper: among equal timestamps the lexicographically smallest name must win
    # under a max(), so invert the characters.
    return tuple(-ord(ch) for ch in name)


def allocatable(node_allocatable: Mapping[str, Any]) -> dict[str, Fraction]:
    out = {}
    for name, value in node_allocatable.items():
        q = _q(value)
        if q is not None:
            out[str(name)] = q
    return out


# fitsRequest checks cpu, memory and ephemeral-storage first, then the scalar resources.
_FIRST = ("cpu", "memory", "ephemeral-storage")


def requested_items(demand: Mapping[str, Fraction]) -> tuple[tuple[str, Fraction], ...]:
    """The positive requests in the order fitsRequest checks them (computed once per pod)."""
    items = [(n, demand[n]) for n in _FIRST if n in demand]
    if len(items) < len(demand):
        items += [(n, demand[n]) for n in sorted(demand) if n not in _FIRST]
    return tuple(item for item in items if item[1] > 0)


def insufficient(items: Iterable[tuple[str, Fraction]], total: Mapping[str, Fraction],
                 used: Mapping[str, Fraction], skip: Callable[[str], bool] | None = None
                 ) -> tuple[list[str], bool]:
    """NodeResourcesFit's fitsRequest for the resources the node reports (helper.FitsRequest in
    pkg/scheduler/framework/plugins/noderesources): an "Insufficient <resource>" reason per
    resource whose request exceeds what is left, and whether one of them asks for more than the
    node has at all (InsufficientResource.Unresolvable: preemption cannot help). Native
    resources the node does not report are not checked (the inventory says nothing about them,
    dractl's choice); `skip` leaves out resources served elsewhere (through DRA)."""
    reasons: list[str] = []
    unresolvable = False
    for name, want in items:
        if skip is not None and skip(name):
            continue
        capacity = total.get(name)
        if capacity is None:
            if is_native(name):
                continue
            capacity = 0
        if want > capacity - used.get(name, 0):
            reasons.append(f"Insufficient {name}")
            unresolvable = unresolvable or want > capacity
    return reasons, unresolvable
