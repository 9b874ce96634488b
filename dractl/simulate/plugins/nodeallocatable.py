"""Node-allocatable resources through DRA (KEP-5517, DRANodeAllocatableResources): devices whose
slice maps them to node resources (e.g. memory of a CPU device) add those amounts to the pod's
demand on the node. Runs after DynamicResources' allocation, whose result it needs.

Two API shapes, chosen by the release (`--kube-version`):
* 1.36 (first alpha): `devices[].nodeAllocatableResourceMappings{<resource>: {capacityKey?,
  allocationMultiplier?}}`. Every mapped device blocks sharing its claim across pods.
* 1.37+ (second alpha; the 1.36 field is tombstoned): `devices[].nodeAllocatableResources
  {<resource>: {mapping?: {capacityKey + capacityMultiplier | deviceMultiplier}, overhead?:
  {perPod?, perContainer?}}}`. Per claim the pod is charged the mapped amounts, plus perPod,
  plus perContainer times the number of containers referencing the claim (upstream
  component-helpers `getDRANodeAllocatableResources`). Only a claim with a mapped device cannot
  be shared across pods; overhead-only claims can, each pod paying its own overhead
  (kube-scheduler 181cb00, #140009). A Node that lists its `status.declaredFeatures` without
  DRANodeAllocatableResources is filtered for such a pod.
Upstream: pkg/scheduler/framework/plugins/dynamicresources/nodeallocatabledynamicresources.go.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dractl.api.quantity import BINARY_SI, DECIMAL_SI, Quantity, QuantityError
from dractl.api.releases import in_force
from dractl.models import model_of
from dractl.simulate import reasons as R
from dractl.simulate.framework import Code, Status, unresolvable
from dractl.simulate.resources import insufficient, pod_requests, requested_items
from dractl.simulate.state import Reason

NAME = "DynamicResources"
GATE = "DRANodeAllocatableResources"
# The node declared feature the 1.37 scheduler requires (NodeDeclaredFeatures, GA in 1.37).
# Inference: upstream's constant `dranodeallocatableresources.DRANodeAllocatableResourcesFeature`
# whose value was not read; declared features are named like their gates.
DECLARED_FEATURE = "DRANodeAllocatableResources"
DECLARED_FEATURE_REASON = (f"node(s) didn't declare the {DECLARED_FEATURE} feature "
                           "(status.declaredFeatures)")
# Resources pod-level requests (PodLevelResources) can set (component-helpers).
_POD_LEVEL = ("cpu", "memory")
# What DynamicResources' nodeFitsResources checks (hugepages-* too).
_NODE_FIT = ("cpu", "memory", "ephemeral-storage")


@dataclass(frozen=True)
class NodeResource:
    """What one device contributes to one node resource."""

    resource: str
    capacity_key: str | None = None          # amount = consumed capacity * capacity_multiplier
    capacity_multiplier: Fraction | None = None
    device_multiplier: Fraction | None = None  # amount = this, per allocated device
    per_pod: Fraction | None = None            # overhead (1.37+)
    per_container: Fraction | None = None

    @property
    def mapped(self) -> bool:
        return self.capacity_key is not None or self.device_multiplier is not None


def uses_137_shape(version: str) -> bool:
    """KEP-5517's second alpha (kubernetes/kubernetes#140009): nodeAllocatableResources."""
    return in_force("node_allocatable_second_alpha", version)


def _quantity(value) -> Fraction | None:
    if value is None:
        return None
    try:
        return Quantity.from_manifest(value).value
    except (QuantityError, TypeError, ValueError):
        return None


def device_node_resources(device: dict, new_shape: bool) -> tuple[NodeResource, ...]:
    """The device's node-allocatable entries in the release's shape (the other shape is an
    unknown field there and ignored), sorted by resource name."""
    out = []
    if new_shape:
        for resource, entry in sorted((device.get("nodeAllocatableResources") or {}).items()):
            if not isinstance(entry, dict):
                continue
            mapping = entry.get("mapping") if isinstance(entry.get("mapping"), dict) else {}
            overhead = entry.get("overhead") if isinstance(entry.get("overhead"), dict) else {}
            key = mapping.get("capacityKey") or None
            out.append(NodeResource(str(resource), key, _quantity(mapping.get("capacityMultiplier")),
                                    _quantity(mapping.get("deviceMultiplier")),
                                    _quantity(overhead.get("perPod")),
                                    _quantity(overhead.get("perContainer"))))
        return tuple(e for e in out if e.mapped or e.per_pod is not None or e.per_container is not None)
    for resource, entry in sorted((device.get("nodeAllocatableResourceMappings") or {}).items()):
        if not isinstance(entry, dict):
            continue
        raw = entry.get("allocationMultiplier")
        multiplier = _quantity(raw) if raw is not None else Fraction(1)
        if multiplier is None:
            continue
        key = entry.get("capacityKey") or None
        out.append(NodeResource(str(resource), key, multiplier if key else None,
                                None if key else multiplier))
    return tuple(out)


def slice_node_resources(docs, version: str) -> dict:
    """(driver, pool, device) -> its NodeResource entries, from the input's ResourceSlices (in
    v1 shape, as the models stage converted them: each object is converted once per run)."""
    new_shape = uses_137_shape(version)
    out: dict = {}
    for doc in docs:
        if doc.kind != "ResourceSlice" or doc.group != "resource.k8s.io":
            continue
        spec = model_of(doc).v1.get("spec") or {}
        pool = (spec.get("pool") or {}).get("name")
        for device in spec.get("devices") or []:
            if isinstance(device, dict):
                entries = device_node_resources(device, new_shape)
                if entries:
                    out[(spec.get("driver"), pool, device.get("name"))] = entries
    return out


class _ClaimCharge:
    """What one claim's devices add to the pod: fixed amounts (mapping, perPod) and the
    per-container overhead."""

    def __init__(self) -> None:
        self.fixed: dict[str, Fraction] = {}          # mapped amounts + perPod
        self.mapped_amounts: dict[str, Fraction] = {}
        self.overhead_per_pod: dict[str, Fraction] = {}
        self.per_container: dict[str, Fraction] = {}
        self.mapped = False

    def add(self, into: dict, resource: str, amount: Fraction) -> None:
        into[resource] = into.get(resource, Fraction(0)) + amount

    def __bool__(self) -> bool:
        return bool(self.fixed or self.per_container or self.mapped)


class _MissingConsumedCapacity(Exception):
    pass


def _lookup_capacity(consumed: dict, key: str, driver: str):
    """draapi.LookupByQualifiedName: the key as written, or qualified/unqualified by the driver."""
    if key in consumed:
        return consumed[key]
    prefix = f"{driver}/"
    if key.startswith(prefix):
        return consumed.get(key[len(prefix):])
    return consumed.get(prefix + key) if "/" not in key else None


class NodeAllocatableCheck:
    """KEP-5517's part of DynamicResources' Filter and Reserve (upstream: the DynamicResources
    plugin's nodeallocatabledynamicresources.go, calculateAndCheckNodeAllocatableResources):
    not a plugin of its own. `dra` is DynamicResources' cycle state (its claims)."""

    def __init__(self, cluster) -> None:
        self.cluster = cluster
        self.enabled = bool(cluster.native_mappings)
        self.new_shape = uses_137_shape(cluster.gates.version)

    def filter(self, dra, pod, node, outcome):
        """(rejection or None, the amounts the node is charged for the pod, the per-claim
        charges). The charged amounts of the pod's claims must fit the node's free resources; a
        claim with a mapped device cannot be shared across pods; 1.37+: the node must declare
        the feature; pod-level requests must cover containers plus DRA."""
        try:
            charges = self._charges(dra, outcome)
        except _MissingConsumedCapacity as exc:
            return Status(Code.ERROR, str(exc), NAME, Reason(R.ALLOCATOR_ERROR, str(exc))), None, None
        if not charges:
            return None, None, None
        for claim, charge in charges:
            if charge.mapped and self._shared_with_other_pod(claim, pod):
                return unresolvable(f"node allocatable resource claim {claim.name} has a mapped "
                                    "device and cannot be shared across pods", NAME), None, None
        if self.new_shape and not self._declares_feature(node):
            return unresolvable(DECLARED_FEATURE_REASON, NAME), None, None
        extra = self._pod_extra(dra, pod, charges)
        status = self._check_pod_level(pod, extra)
        if status is not None:
            return status, None, None
        pod_level = _pod_level_requests(pod)
        amounts = {k: v for k, v in extra.items() if k not in pod_level}
        return self._fits(pod, node, amounts), amounts, (charges if self.new_shape else None)

    def _fits(self, pod, node, amounts: dict) -> Status | None:
        """DynamicResources' nodeFitsResources: the pod's requests plus the DRA amounts against
        the node's free cpu, memory, ephemeral-storage and hugepages; UnschedulableAndUnresolvable
        when a request exceeds the node's whole allocatable."""
        alloc = self.cluster.node_alloc[node.name]
        if not amounts or not alloc:
            return None
        total = dict(pod.requests())
        for k, v in amounts.items():
            total[k] = total.get(k, 0) + v
        items = [(k, v) for k, v in requested_items(total) if k in _NODE_FIT or k.startswith("hugepages-")]
        short, unresolvable_ = insufficient(items, alloc, self.cluster.node_requested[node.name])
        if not short:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable_ else Code.UNSCHEDULABLE,
                      tuple(short), NAME)

    def claim_statuses(self, dra, pod, charges) -> list[dict]:
        """pod.status.nodeAllocatableResourceClaimStatuses (1.37+), what upstream's assume step
        puts on the pod and PreBind patches: one entry per claim, sorted by claim name."""
        names = _referencing_containers(dra.refs, pod)
        return [_claim_status(claim, charge, names.get(id(claim), []))
                for claim, charge in sorted(charges, key=lambda cc: cc[0].name)]

    def _charges(self, dra, outcome) -> list:
        """(claim, _ClaimCharge) for each of the pod's claims whose devices contribute."""
        out = []
        pending = outcome.results[:len(dra.pending)] if outcome is not None else []
        for claim, allocation in [(c, c.allocation) for c in dra.allocated] + list(zip(dra.pending, pending, strict=False)):
            charge = self._claim_charge(claim, allocation)
            if charge:
                out.append((claim, charge))
        return out

    def _claim_charge(self, claim, allocation) -> _ClaimCharge:
        charge = _ClaimCharge()
        if allocation is None:
            return charge
        mappings = self.cluster.native_mappings
        for r in allocation.devices:
            for entry in mappings.get((r.driver, r.pool, r.device), ()):
                charge.mapped = charge.mapped or entry.mapped
                self._add_mapping(charge, entry, r, claim)
                if entry.per_pod is not None:
                    charge.add(charge.fixed, entry.resource, entry.per_pod)
                    charge.add(charge.overhead_per_pod, entry.resource, entry.per_pod)
                if entry.per_container is not None:
                    charge.add(charge.per_container, entry.resource, entry.per_container)
        return charge

    def _add_mapping(self, charge: _ClaimCharge, entry: NodeResource, result, claim) -> None:
        if entry.capacity_key is not None:
            consumed_map = result.consumed_capacity or {}
            if not consumed_map and self.new_shape:
                # Upstream's addDeviceMapping: a capacityKey mapping needs consumedCapacity
                # (devices that allow multiple allocations); without it the Filter errors.
                raise _MissingConsumedCapacity(
                    f"claim {claim.namespace}/{claim.name}, device {result.device}: ConsumedCapacity "
                    f"is nil, but Capacity key '{entry.capacity_key}' is set in "
                    f"NodeAllocatableResources for resource {entry.resource}")
            consumed = _lookup_capacity(consumed_map, entry.capacity_key, result.driver)
            if consumed is not None:
                amount = consumed.value * (entry.capacity_multiplier or Fraction(1))
                charge.add(charge.fixed, entry.resource, amount)
                charge.add(charge.mapped_amounts, entry.resource, amount)
        elif entry.device_multiplier is not None:
            charge.add(charge.fixed, entry.resource, entry.device_multiplier)
            charge.add(charge.mapped_amounts, entry.resource, entry.device_multiplier)

    @staticmethod
    def _shared_with_other_pod(claim, pod) -> bool:
        return bool(claim.reserved_for) and not any(r.get("uid") == pod.uid for r in claim.reserved_for)

    @staticmethod
    def _declares_feature(node) -> bool:
        """A Node that reports status.declaredFeatures must list the feature. dractl's own
        check and words (upstream's ResourceSlice admission refuses such devices for a node
        without the feature: "node %q does not support %s feature"): a Node object without the
        list, or a node known only from slices, is assumed to declare it."""
        features = node.declared_features
        return features is None or DECLARED_FEATURE in features

    def _pod_extra(self, dra, pod, charges) -> dict[str, Fraction]:
        """Mapped amounts and perPod once per claim, perContainer per referencing container."""
        refs = {k: len(v) for k, v in _referencing_containers(dra.refs, pod).items()}
        extra: dict[str, Fraction] = {}
        for claim, charge in charges:
            count = refs.get(id(claim), 0)
            for k, v in charge.fixed.items():
                extra[k] = extra.get(k, Fraction(0)) + v
            for k, v in charge.per_container.items():
                if count:
                    extra[k] = extra.get(k, Fraction(0)) + v * count
        return extra

    def _check_pod_level(self, pod, extra: dict) -> Status | None:
        """Pod-level requests take precedence (DRA amounts are not added on top) and must cover
        the containers' requests plus the DRA amounts (validatePodLevelResourcesCoverDRA)."""
        if not self.cluster.gates.enabled("PodLevelResources"):
            return None
        pod_level = _pod_level_requests(pod)
        if not pod_level:
            return None
        without = {k: v for k, v in pod.spec.items() if k != "resources"}
        containers = pod_requests(without)
        for name in sorted(pod_level):
            if name in extra and containers.get(name, Fraction(0)) + extra[name] > pod_level[name]:
                return unresolvable(f"pod level request for {name} is insufficient to cover the "
                                    "aggregated container and node-allocatable DRA requests", NAME)
        return None


def _pod_level_requests(pod) -> dict:
    pod_level = pod.spec.get("resources")
    requests = pod_level.get("requests") if isinstance(pod_level, dict) else None
    if not isinstance(requests, dict):
        return {}
    return {str(k): _quantity(v) for k, v in requests.items()
            if (str(k) in _POD_LEVEL or str(k).startswith("hugepages-")) and _quantity(v) is not None}


def _referencing_containers(refs, pod) -> dict[int, list[str]]:
    """id(claim) -> names of the containers (init containers first, then containers) that list
    one of the pod claims that resolved to it in resources.claims."""
    by_name = {ref.name: ref.claim for ref in refs if ref.claim is not None}
    names: dict[int, list[str]] = {}
    spec = pod.spec
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if not isinstance(container, dict):
                continue
            resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
            seen = set()
            for entry in resources.get("claims") or []:
                claim = by_name.get(entry.get("name")) if isinstance(entry, dict) else None
                if claim is not None and id(claim) not in seen:
                    seen.add(id(claim))
                    names.setdefault(id(claim), []).append(str(container.get("name") or ""))
    return names


def _format(resource: str, value: Fraction) -> str:
    # dractl's choice of format: binary for byte resources, decimal otherwise (upstream keeps
    # the format of the quantities it added up).
    byte_like = resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")
    return Quantity(value, BINARY_SI if byte_like else DECIMAL_SI).canonical()


def _claim_status(claim, charge: _ClaimCharge, containers: list[str]) -> dict:
    """core/v1 NodeAllocatableResourceClaimStatus for one claim."""
    overhead: dict[str, dict] = {}
    for resource, amount in charge.overhead_per_pod.items():
        overhead.setdefault(resource, {"name": resource})["perPod"] = _format(resource, amount)
    for resource, amount in charge.per_container.items():
        overhead.setdefault(resource, {"name": resource})["perContainer"] = _format(resource, amount)
    out: dict = {"resourceClaimName": claim.name}
    mapping = [{"name": k, "quantity": _format(k, v)} for k, v in sorted(charge.mapped_amounts.items())]
    # Empty lists are omitted, as the API's omitempty does.
    for key, value in (("containers", containers), ("mapping", mapping),
                       ("overhead", [overhead[k] for k in sorted(overhead)])):
        if value:
            out[key] = value
    return out
