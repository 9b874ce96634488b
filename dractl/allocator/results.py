"""What an allocation attempt returns, and how a found solution becomes AllocationResults
(docs/spec/allocator.md#outcomes, #allocation-result)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Mapping

from dractl.allocator.errors import AllocationError
from dractl.allocator.features import STABLE
from dractl.api.resource import (
    CONFIG_SOURCE_CLAIM,
    CONFIG_SOURCE_CLASS,
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceRequestAllocationResult,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    ResourceClaim,
)

ALLOCATED = "allocated"
UNSATISFIABLE = "unsatisfiable"
ERROR = "error"


@dataclass(frozen=True)
class Cause:
    """What exactly made a device fail its check, for explanations (dractl's own, built only on
    the failure path). Devices of one request with equal causes are reported together."""

    text: str                                # e.g. "taint example.com/bad=true:NoSchedule"
    source: tuple[str, str] | None = None    # (kind, name) of the object it comes from
    fix: tuple[str, ...] = ()                # lines the user can paste (a toleration as YAML)
    users: bool = False                      # name the claims that hold the device
    item: tuple = ()                         # what to point at inside the source, e.g. a taint


@dataclass(frozen=True)
class DeviceVerdict:
    device: str              # driver/pool/device
    reason: str | None       # a code from dractl.allocator.reasons; None = usable
    cause: Cause | None = None


@dataclass(frozen=True)
class RequestExplanation:
    claim: str               # namespace/name
    request: str             # request name, or parent/sub for a subrequest
    needed: int              # devices the (sub)request needs (All mode: size of the "all" set)
    considered: int          # devices looked at (including those of unusable pools)
    eligible: int            # devices with no rejection reason
    rejected: Mapping[str, int]      # reason code -> number of devices
    devices: tuple[DeviceVerdict, ...] = ()

    @property
    def short(self) -> bool:
        """Fewer usable devices than needed, on their own."""
        return self.eligible < self.needed


@dataclass(frozen=True)
class Explanation:
    node: str
    requests: tuple[RequestExplanation, ...]
    # True when the diagnostic search hit the deadline; per-device reasons may then be incomplete.
    partial: bool = False

    def for_claim(self, claim_ref: str) -> tuple[RequestExplanation, ...]:
        return tuple(r for r in self.requests if r.claim == claim_ref)


@dataclass(frozen=True)
class AllocationOutcome:
    """Exactly one of: allocated (one result per claim, same order), unsatisfiable, or error."""

    status: str
    claims: tuple[ResourceClaim, ...] = ()
    results: tuple[AllocationResult, ...] = ()
    error: str | None = None
    # The error is "invalid resource pools were encountered": this node is unsuitable, but the
    # scheduling attempt goes on with other nodes
    # (docs/spec/allocator.md#invalid-pools-node-failure).
    node_failure: bool = False
    # The deadline passed; the scheduler reports "timed out trying to allocate devices".
    timed_out: bool = False
    explanation: Explanation | None = None
    # For explanations of an error: what the allocator knew when it failed (celglue.CelFailure).
    error_cause: object = None
    steps: int = 0           # recursion steps of the search (work measure, like upstream's stats)

    @property
    def allocated(self) -> bool:
        return self.status == ALLOCATED

    @property
    def unsatisfiable(self) -> bool:
        return self.status == UNSATISFIABLE

    @property
    def is_error(self) -> bool:
        return self.status == ERROR

    def allocation_for(self, claim: ResourceClaim | str) -> AllocationResult | None:
        ref = claim if isinstance(claim, str) else claim.ref
        for c, r in zip(self.claims, self.results, strict=True):
            if c.ref == ref:
                return r
        return None

    def to_status_dicts(self) -> list[dict]:
        """`status.allocation` dicts, one per claim, in claim order."""
        return [r.to_dict() for r in self.results]


# The share ID of a tentative pick whose ID is drawn when its result is built (a Search without a
# share-ID generator): upstream draws a random UUID per pick, so when it is drawn cannot be told
# apart, and an exhaustive search over shared devices no longer draws one per step.
FRESH_SHARE_ID = object()


# -- building results -----------------------------------------------------------------------------


def build_results(search, node_name: str, binding_enabled: bool, variant: str) -> tuple[AllocationResult, ...]:
    out = []
    for c, claim in enumerate(search.claims):
        internal = search.results[c]
        devices = []
        for rd, cand, share_id, consumed in internal:     # search.RESULT_RD ... RESULT_CONSUMED
            dev = cand.device
            devices.append(DeviceRequestAllocationResult(
                request=rd.result_name, driver=dev.driver, pool=dev.pool, device=dev.name,
                admin_access=True if rd.admin else None,
                tolerations=rd.tolerations,
                binding_conditions=dev.binding_conditions if binding_enabled else None,
                binding_failure_conditions=dev.binding_failure_conditions if binding_enabled else None,
                share_id=str(uuid.uuid1()) if share_id is FRESH_SHARE_ID else share_id,
                consumed_capacity=consumed,
                # 1.37: "a copy of the ResourceSlice.spec.skipNodeOperations value at the time when
                # the device was allocated" (only such devices that may be allocated get here).
                skip_node_operations=cand.slice.skip_node_operations,
            ))
        config = _build_config(search, c, claim) \
            if not search.shortcuts or claim.config or c in search.class_config else ()
        # The common case without a call: the first device's slice names the node, whose
        # selector is built already (what _build_node_selector returns for it).
        first = internal[0][1] if internal else None
        if first is not None and not first.per_device_node_selection and first.slice.node_name \
                and node_name in _NODE_NAME_SELECTORS:
            selector = _NODE_NAME_SELECTORS[node_name]
        else:
            selector = _build_node_selector(internal, node_name, claim, variant)
        out.append(AllocationResult(devices=tuple(devices), config=config, node_selector=selector))
    return tuple(out)


def _chosen_rd(search, c: int, j: int):
    entry = search.claim_reqs[c][j]
    if type(entry) is tuple:
        return entry[search.chosen.get((c, j), 0)]
    return entry


def _build_config(search, c: int, claim: ResourceClaim) -> tuple[DeviceAllocationConfiguration, ...]:
    entries: list[list] = []     # [source, requests(list), configuration]
    by_class: dict[str, tuple[int, int]] = {}
    chosen_names = []            # per top-level request: (name, "parent/sub" or None)
    for j, req in enumerate(claim.requests):
        rd = _chosen_rd(search, c, j)
        chosen_names.append((req.name, rd.result_name if rd.sub is not None else None))
        cls = rd.cls
        if cls is None:
            continue
        span = by_class.get(cls.name)
        if span is not None:
            for i in range(*span):
                entries[i][1].append(rd.result_name)
            continue
        first = len(entries)
        for item in cls.config:
            entries.append([CONFIG_SOURCE_CLASS, [rd.result_name], item])
        by_class[cls.name] = (first, len(entries))
    for cfg in claim.config:
        if not cfg.requests:
            entries.append([CONFIG_SOURCE_CLAIM, [], cfg.configuration])
            continue
        names = set(cfg.requests)
        if any(name in names or (sub is not None and sub in names) for name, sub in chosen_names):
            entries.append([CONFIG_SOURCE_CLAIM, list(cfg.requests), cfg.configuration])
    out = []
    for source, requests, configuration in entries:
        if requests:
            names = set(requests)
            if all(name in names or (sub is not None and sub in names) for name, sub in chosen_names):
                requests = []
        out.append(DeviceAllocationConfiguration(source, tuple(requests), configuration))
    return tuple(out)


def _same_requirement(a: NodeSelectorRequirement, b: NodeSelectorRequirement) -> bool:
    return a.key == b.key and a.operator == b.operator and set(a.values) == set(b.values)


_NODE_NAME_SELECTORS: dict[str, NodeSelector] = {}


def node_name_selector(node_name: str) -> NodeSelector:
    """`metadata.name In (node)`, built once per node name (the objects are immutable, so every
    allocation on the node shares one)."""
    selector = _NODE_NAME_SELECTORS.get(node_name)
    if selector is None:
        if len(_NODE_NAME_SELECTORS) >= 100_000:
            _NODE_NAME_SELECTORS.clear()
        selector = _NODE_NAME_SELECTORS[node_name] = NodeSelector((NodeSelectorTerm(
            match_fields=(NodeSelectorRequirement("metadata.name", "In", (node_name,)),)),))
    return selector


def _build_node_selector(internal, node_name: str, claim: ResourceClaim, variant: str) -> NodeSelector | None:
    fields: list[NodeSelectorRequirement] = []
    exprs: list[NodeSelectorRequirement] = []
    for r in internal:
        dev, sl = r[1].device, r[1].slice      # search.RESULT_CAND
        if sl.per_device_node_selection is True:
            nn, ns = dev.node_name, dev.node_selector
        else:
            nn, ns = sl.node_name, sl.node_selector
        if nn or (dev.binds_to_node and variant != STABLE):
            return node_name_selector(node_name)
        if ns is None or not ns.terms:
            continue
        if len(ns.terms) > 1:
            raise AllocationError(f"create NodeSelector for claim {claim.name}: "
                                  f"unsupported ResourceSlice.NodeSelector with {len(ns.terms)} terms")
        term = ns.terms[0]
        for req in term.match_fields:
            if not any(_same_requirement(req, have) for have in fields):
                fields.append(req)
        for req in term.match_expressions:
            if not any(_same_requirement(req, have) for have in exprs):
                exprs.append(req)
    if fields or exprs:
        return NodeSelector((NodeSelectorTerm(match_expressions=tuple(exprs), match_fields=tuple(fields)),))
    return None
