"""The dry run: kube-scheduler's DynamicResources plugin over the whole input, one pod at a time.

For each pod, in input order: resolve its claims (simulating the resourceclaim controller for
templates), run PreFilter's checks, then for each node in inventory order the non-DRA filters,
the allocated claims' node selectors and the structured allocator for the claims that still need
devices. The chosen node's allocations are committed before the next pod, so later pods see the
devices as in use (the scheduler's assume cache). docs/api-and-scheduling.md, section 3.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterable

from dractl.allocator import Allocator
from dractl.allocator.nodes import NodeSelectorError, node_selector_matches
from dractl.allocator.reasons import DESCRIPTIONS
from dractl.allocator.taints import untolerated_taint
from dractl.api.convert import to_v1
from dractl.api.resource import (AllocationResult, DeviceClass, DeviceTaintRule, ModelError,
                                 ResourceClaim, ResourceSlice)
from dractl.api.versions import FeatureGates
from dractl.load.document import Document
from dractl.simulate import reasons as R
from dractl.simulate.groups import GroupIndex, PodGroupInfo
from dractl.simulate.names import claim_generate_name, generated_name, uid_for
from dractl.simulate.nodes import SimNode, pod_fits_node
from dractl.simulate.resources import (ExtendedRequest, allocatable, extended_class_map,
                                       extended_requests, insufficient, pod_requests)
from dractl.simulate.pods import (CONTROLLER_KINDS, MAX_PODS, PodInput, TooManyPods,
                                  expand_controller, pod_from_document)
from dractl.simulate.state import (ALLOCATED, ALREADY_ALLOCATED, CLAIM_ERROR, DELETE_PROTECTION_FINALIZER,
                                   INVALID, MAX_RESERVED_FOR, PENDING, SCHEDULED, UNSATISFIABLE,
                                   UNSCHEDULABLE, ClaimState, Plan, PodClaimRef, PodResult, Reason)

NODE_ORDERS = ("first", "least-allocated", "most-allocated")
_SHARE_NS = uuid.UUID("0d3f3c52-3a8e-4f57-9a0e-8f1c6b7d2e10")
# Allocator explanations are a second, diagnostic search per failing node; cap the work spent on
# one unschedulable pod (the rest are summarised by their scheduler reason).
MAX_EXPLAINED_NODES = 64
# Explanations kept for reuse (node, claim specs, node state): bounded, cleared when full.
_EXPLAINED_CACHE_MAX = 20_000


@dataclass
class Options:
    only_node: str | None = None
    node_order: str = "first"
    timeout: float | None = 10.0          # per node and pod, like the scheduler's filterTimeout
    simulate_controllers: bool = True
    lenient_env: bool = False             # env refs: skip devices lacking the attribute
    progress: Any = None                  # progress(done, total) as pods are placed (a UI hook)


@dataclass
class _Attempt:
    """A node where the pod fits: the allocator outcome and what else placing it implies."""

    outcome: Any                         # AllocationOutcome, or None when nothing needed devices
    ext: tuple = ()                      # extended resources served through DRA on this node
    special: ResourceClaim | None = None  # the extended-resource claim's model
    native: dict = None                  # node-allocatable amounts of DRA devices (KEP-5517)

    def __post_init__(self) -> None:
        if self.native is None:
            self.native = {}


def _native_mappings(docs) -> dict:
    """(driver, pool, device) -> {resource: {capacityKey, multiplier}} from ResourceSlices'
    nodeAllocatableResourceMappings (1.36/1.37 shape) or nodeAllocatableResources.mapping (HEAD)."""
    from fractions import Fraction

    from dractl.api.quantity import Quantity, QuantityError

    out: dict = {}
    for doc in docs:
        if doc.kind != "ResourceSlice" or doc.group != "resource.k8s.io":
            continue
        spec = to_v1(doc.data).get("spec") or {}
        pool = (spec.get("pool") or {}).get("name")
        for device in spec.get("devices") or []:
            if not isinstance(device, dict):
                continue
            mappings = {}
            for resource, m in (device.get("nodeAllocatableResourceMappings") or {}).items():
                if isinstance(m, dict):
                    mappings[resource] = (m.get("capacityKey"), m.get("allocationMultiplier"))
            for resource, m in (device.get("nodeAllocatableResources") or {}).items():
                mapping = m.get("mapping") if isinstance(m, dict) else None
                if isinstance(mapping, dict):
                    mappings[resource] = (mapping.get("capacityKey"),
                                          mapping.get("deviceMultiplier") or mapping.get("capacityMultiplier"))
            parsed = {}
            for resource, (key, multiplier) in mappings.items():
                try:
                    mult = Quantity.parse(multiplier).value if multiplier is not None else Fraction(1)
                except (QuantityError, TypeError):
                    continue
                parsed[resource] = {"capacityKey": key, "multiplier": mult}
            if parsed:
                out[(spec.get("driver"), pool, device.get("name"))] = parsed
    return out


class _Failure(Exception):
    """The pod cannot be scheduled for a reason that no node can change."""

    def __init__(self, reason: Reason):
        super().__init__(reason.message)
        self.reason = reason


class Simulation:
    # The ordered scan of least-/most-allocated (see _schedule); tests turn it off to compare
    # with the full scan.
    SCAN_BY_USAGE = True

    def __init__(self, documents: Iterable[Document], gates: FeatureGates,
                 options: Options | None = None, invalid: set[int] | None = None):
        self.gates = gates
        self.options = options or Options()
        self.invalid = invalid or set()
        self.plan = Plan()
        self._share_seq = 0
        self._docs = list(documents)
        self._build()

    # ------------------------------------------------------------------ inventory --------------
    def _build(self) -> None:
        classes: list[DeviceClass] = []
        slices: list[ResourceSlice] = []
        rules: list[DeviceTaintRule] = []
        self.templates: dict[tuple[str, str], dict] = {}
        self.claims: dict[tuple[str, str], ClaimState] = {}
        self.namespaces: dict[str, dict] = {}
        self.node_docs: list[Document] = []
        self.pod_docs: list[Document] = []
        self.class_names: set[str] = set()
        self.groups = GroupIndex()
        group_docs: list[Document] = []
        class_info: list[tuple] = []
        for doc in self._docs:
            kind, group = doc.kind, doc.group
            bad = id(doc) in self.invalid
            if group == "resource.k8s.io":
                data = to_v1(doc.data)
                try:
                    if kind == "DeviceClass" and not bad:
                        model = DeviceClass.from_dict(data)
                        classes.append(model)
                        self.class_names.add(doc.name)
                        class_info.append((doc.name, str(doc.metadata.get("creationTimestamp") or ""),
                                           model.extended_resource_name))
                    elif kind == "ResourceSlice" and not bad:
                        slices.append(ResourceSlice.from_dict(data))
                    elif kind == "DeviceTaintRule" and not bad:
                        rules.append(DeviceTaintRule.from_dict(data))
                    elif kind == "ResourceClaimTemplate":
                        ns = doc.namespace or "default"
                        self.templates[(ns, doc.name)] = {"doc": doc, "data": data, "invalid": bad}
                    elif kind == "ResourceClaim":
                        self._add_input_claim(doc, data, bad)
                except (ModelError, ValueError, TypeError) as exc:
                    self.plan.reasons.append(Reason(R.MODEL, f"{doc.file}: {kind} {doc.name}: {exc}; "
                                                    "ignored by the dry run"))
            elif kind == "Node" and not doc.group:
                self.node_docs.append(doc)
            elif kind == "Namespace" and not doc.group:
                self.namespaces[doc.name] = doc.data
            elif kind == "Pod" and not doc.group or kind in CONTROLLER_KINDS:
                self.pod_docs.append(doc)
            elif group == "scheduling.k8s.io" and kind in ("Workload", "PodGroup") and not bad:
                group_docs.append(doc)
        # Workloads first: a PodGroup may take its policy from its Workload's template.
        for doc in sorted(group_docs, key=lambda d: d.kind != "Workload"):
            self.groups.add(doc)

        self.extended_classes = extended_class_map(class_info) \
            if self.gates.enabled("DRAExtendedResource") else {}
        self.native_mappings = _native_mappings(self._docs) \
            if self.gates.enabled("DRANodeAllocatableResources") else {}
        self.nodes = self._build_nodes(slices)
        self.node_alloc = {n.name: allocatable(n.allocatable) for n in self.nodes}
        self.node_requested: dict[str, dict] = {n.name: {} for n in self.nodes}
        self.node_pods: Counter = Counter()
        self.plan.nodes = [n.name for n in self.nodes]
        self.node_by_name = {n.name: n for n in self.nodes}
        pre_allocated = [c.model for c in self.claims.values() if c.pre_allocated and c.model]
        self.allocator = Allocator(self.gates, classes, slices, pre_allocated, rules,
                                   share_id=self._next_share_id)
        # Which node each node-local pool belongs to: decides whose failure caches an allocation
        # invalidates, and what least/most-allocated count.
        self.pool_node: dict[tuple[str, str], str] = {}
        shared_pools = set()
        for sl in slices:
            pid = (sl.driver, sl.pool.name)
            if sl.node_name and self.pool_node.get(pid, sl.node_name) == sl.node_name:
                self.pool_node[pid] = sl.node_name
            else:
                shared_pools.add(pid)
        for pid in shared_pools:
            self.pool_node.pop(pid, None)
        self.node_devices_used: Counter = Counter()
        for claim in self.claims.values():
            if claim.pre_allocated and claim.allocation:
                self._count_devices(claim.allocation, +1)
        self.node_version: Counter = Counter()
        self.shared_version = 0
        self.node_index = {n.name: i for i, n in enumerate(self.nodes)}
        # First-fit frontier per pod signature: every node before it is known (cached) to fail.
        self._frontier: dict[tuple, int] = {}
        self._spec_json: dict[int, str] = {}
        self._fail_cache: dict[tuple, tuple] = {}
        self._explained: dict[tuple, tuple] = {}  # see _explain_node
        self._last_failure: dict[tuple, tuple] = {}  # see _repeat_failure
        self.state_stamp = 0  # bumped whenever any node's state changes
        self._devices = None
        self._tx: list | None = None      # undo log while a gang is being placed

    def _add_input_claim(self, doc: Document, data: dict, bad: bool) -> None:
        ns = doc.namespace or "default"
        # Only metadata changes during the run (uid, finalizers); the rest stays shared with the
        # input and reports copy before printing.
        manifest = dict(data)
        meta = manifest["metadata"] = dict(data.get("metadata") or {}) \
            if isinstance(data.get("metadata"), dict) else {}
        if isinstance(meta.get("finalizers"), list):
            meta["finalizers"] = list(meta["finalizers"])
        meta.setdefault("namespace", ns)
        meta.setdefault("uid", uid_for("ResourceClaim", ns, doc.name))
        model = None
        model_error = ""
        try:
            model = ResourceClaim.from_dict(manifest)
        except (ModelError, ValueError, TypeError) as exc:
            model_error = str(exc)
        status = manifest.get("status") if isinstance(manifest.get("status"), dict) else {}
        state = ClaimState(ns, doc.name, meta["uid"], manifest, model, doc,
                           pre_allocated=model is not None and model.allocation is not None,
                           model_error=model_error)
        if state.pre_allocated:
            state.allocation = model.allocation
            state.status = ALREADY_ALLOCATED
            state.reserved_for = [r for r in status.get("reservedFor") or [] if isinstance(r, dict)]
        if bad:
            state.status = CLAIM_ERROR
            state.reasons.append(Reason(R.CLAIM_INVALID, "the claim has validation errors; not allocated"))
        elif model_error:
            state.status = CLAIM_ERROR
            state.reasons.append(Reason(R.MODEL, model_error))
        self.claims[state.key] = state
        self.plan.claims.append(state)

    def _build_nodes(self, slices: list[ResourceSlice]) -> list[SimNode]:
        nodes: list[SimNode] = []
        seen = set()
        for doc in self.node_docs:
            node = SimNode.from_manifest(doc.data)
            if node.name and node.name not in seen:
                seen.add(node.name)
                nodes.append(node)
        # Nodes named only by slices (an inventory without Node objects): in slice order.
        inferred = []
        for sl in slices:
            if sl.node_name and sl.node_name not in seen:
                seen.add(sl.node_name)
                inferred.append(SimNode.inferred(sl.node_name))
        if inferred and nodes:
            self.plan.reasons.append(Reason(
                R.NODE_INFERRED, f"{len(inferred)} node(s) named by ResourceSlices have no Node "
                f"object ({', '.join(n.name for n in inferred[:5])}{', ...' if len(inferred) > 5 else ''}); "
                "assumed to exist without labels or taints", severity="warning"))
        return nodes + inferred

    def _next_share_id(self) -> str:
        self._share_seq += 1
        return str(uuid.uuid5(_SHARE_NS, f"share/{self._share_seq}"))

    def _count_devices(self, allocation: AllocationResult, sign: int) -> None:
        for r in allocation.devices:
            node = self.pool_node.get((r.driver, r.pool))
            if node:
                self.node_devices_used[node] += sign

    # ------------------------------------------------------------------ run ---------------------
    def run(self) -> Plan:
        if not self.nodes:
            self.plan.reasons.append(Reason(R.NO_NODES, "no nodes: give Node objects or ResourceSlices "
                                            "with spec.nodeName (e.g. --inventory builtin:example-gpu)"))
        budget = MAX_PODS
        for doc in self.pod_docs:
            try:
                if doc.kind == "Pod":
                    if budget <= 0:
                        raise TooManyPods(1)
                    pods = [pod_from_document(doc)]
                elif doc.kind == "DaemonSet":
                    pods = self._daemonset_pods(doc)
                else:
                    pods = expand_controller(doc, budget=budget)
            except TooManyPods as exc:
                self.plan.reasons.append(Reason(
                    R.TOO_MANY_PODS, f"{doc.kind} {doc.namespace or 'default'}/{doc.name} would create "
                    f"{exc.count} pod(s); a dry run expands at most {MAX_PODS} pods in all "
                    f"({budget} left); its pods are not simulated"))
                continue
            budget -= len(pods)
            for pod in pods:
                result = PodResult(pod)
                self.plan.pods.append(result)
                if id(doc) in self.invalid:
                    result.status = INVALID
                    result.reasons.append(Reason(R.POD_INVALID, f"{doc.kind} {doc.name} has validation "
                                                 "errors; not scheduled"))
        if self.gates.enabled("GenericWorkload"):
            for result in self.plan.pods:
                group, problem = self.groups.group_of(result.pod.spec, result.namespace)
                result.group, result.group_problem = group, problem
                if group is not None and result.status != INVALID:
                    group.members.append(result)
        done: set[int] = set()
        report = self.options.progress
        total = len(self.plan.pods)
        for n, result in enumerate(self.plan.pods):
            if report is not None:
                report(n, total)
            if id(result) in done or result.status == INVALID:
                continue
            if result.group_problem:
                result.reasons.append(Reason(R.NOT_ENQUEUED, result.group_problem, details=(
                    "PreEnqueue keeps the pod out of the scheduling queue until its group exists",)))
                continue
            group = result.group
            if group is not None and group.policy == "gang":
                self._schedule_gang(group)
                done.update(id(m) for m in group.members)
                continue
            self._schedule(result)
        if report is not None:
            report(total, total)
        self._allocate_unreferenced()
        seen: set[int] = set()
        for result in self.plan.pods:
            if result.group is not None and id(result.group) not in seen:
                seen.add(id(result.group))
                self.plan.groups.append(result.group)
        return self.plan

    # ------------------------------------------------------------------ gangs ---------------------
    def _schedule_gang(self, group: PodGroupInfo) -> None:
        """All-or-nothing (KEP-4671, 1.37's PodGroup scheduling cycle): members are tried in input
        order on a tentative state; unless minCount of them fit, every change is undone."""
        members = group.members
        label = f"gang {group.namespace}/{group.name} (minCount {group.min_count})"
        if len(members) < group.min_count:
            for m in members:
                m.reasons.append(Reason(R.GANG, "waiting for minCount pods from a gang to appear in "
                                        "scheduling queue", details=(
                                            f"{label}: {len(members)} member pod(s) given, "
                                            f"{group.min_count - len(members)} more needed",)))
            return
        self._tx = []
        placed = 0
        first_failure: PodResult | None = None
        attempted = 0
        for i, m in enumerate(members):
            attempted = i + 1
            self._schedule(m)
            if m.status == SCHEDULED:
                placed += 1
            elif first_failure is None:
                first_failure = m
            if placed + (len(members) - i - 1) < group.min_count:
                break  # PlacementFeasible: the gang can no longer reach minCount
        tx, self._tx = self._tx, None
        if placed >= group.min_count:
            for m in members:
                if m.status != SCHEDULED:
                    m.reasons.append(Reason(R.GANG, f"{label} was admitted with {placed} pod(s); this "
                                            "member did not fit and stays pending", severity="warning"))
            return
        for undo in reversed(tx):
            undo()
        self._bump_shared()  # failures cached during the attempt saw the tentative state
        why = ""
        if first_failure is not None:
            first_reason = next((r for r in first_failure.reasons if r.severity == "error"), None)
            why = f"; {first_failure.namespace}/{first_failure.name} broke it" + (
                f": {first_reason.message}" if first_reason else "")
        verdict = Reason(R.GANG, f"{label}: only {placed} of {len(members)} pod(s) could be placed "
                         f"together, so none is{why}")
        for idx, m in enumerate(members):
            m.status, m.node = UNSCHEDULABLE, ""
            if idx >= attempted:
                m.reasons.append(Reason(R.GANG, "not attempted: the gang could no longer reach minCount",
                                        severity="warning"))
            m.reasons.append(verdict)

    def _log(self, undo) -> None:
        if self._tx is not None:
            self._tx.append(undo)

    def _daemonset_pods(self, doc: Document) -> list[PodInput]:
        # One pod per node the template may run on (nodeSelector, affinity, taints).
        probe = expand_controller(doc, ["__probe__"])
        if not probe:
            return []
        spec = dict(probe[0].spec)
        spec.pop("affinity", None)
        tmpl = (doc.data.get("spec") or {}).get("template") or {}
        tmpl_spec = tmpl.get("spec") if isinstance(tmpl.get("spec"), dict) else {}
        if tmpl_spec.get("affinity"):
            spec["affinity"] = tmpl_spec["affinity"]
        eligible = [n.name for n in self.nodes if pod_fits_node(spec, n) is None]
        return expand_controller(doc, eligible)

    # ------------------------------------------------------------------ one pod -----------------
    def _schedule(self, result: PodResult) -> None:
        pod = result.pod
        try:
            refs = self._resolve_claims(pod, result)
            result.claims = refs
            self._prefilter(pod, refs)
        except _Failure as failure:
            result.status = UNSCHEDULABLE
            result.reasons.append(failure.reason)
            return
        claims = [r.claim for r in refs if r.claim is not None]
        pending = _unique([c for c in claims if c.allocation is None])
        allocated = _unique([c for c in claims if c.allocation is not None])

        if pod.node_name():
            result.reasons.append(Reason(
                R.NODE_NAME_BYPASS, f"spec.nodeName is set to {pod.node_name()}: such pods bypass "
                "kube-scheduler, so nothing would allocate their claims (dractl places the pod on "
                "that node only)" if pending else f"spec.nodeName is set to {pod.node_name()}: "
                "placed on that node only", severity="warning"))
            if pod.node_name() not in self.node_by_name:
                result.status = UNSCHEDULABLE
                result.reasons.append(Reason(R.NODE_NOT_FOUND, f"node {pod.node_name()} not found"))
                return
        candidates = self.nodes
        if self.options.only_node:
            node = self.node_by_name.get(self.options.only_node)
            candidates = [node] if node else []
            if node is None:
                result.status = UNSCHEDULABLE
                result.reasons.append(Reason(R.NODE_NOT_FOUND, f"node {self.options.only_node} (--node) "
                                             "not found"))
                return
        if not candidates:
            result.status = UNSCHEDULABLE
            result.reasons.append(Reason(R.NO_NODES, "0/0 nodes are available: no nodes in the inventory"))
            return

        pending_models = [c.model for c in pending]
        demand = pod_requests(pod.spec)
        ext = extended_requests(pod.spec, self.extended_classes) if self.extended_classes else []
        signature = self._signature(pod, pending, allocated) + (tuple(sorted(demand.items())),)
        wants_score = any(req.first_available for c in pending for req in c.model.requests)
        exhaustive = wants_score or self.options.node_order != "first"
        # With only prioritized-list scoring, the first node reaching the best score any node
        # could get wins: the scan stops there.
        best_score = self._best_possible_score(pending) \
            if wants_score and self.options.node_order == "first" else None
        if candidates is self.nodes:
            # dractl's own shortcut, same result: the last pod with these claims, placement and
            # demands failed everywhere, and no node has changed since -- this one fails alike.
            # (A full cluster: every further pod with the same template.)
            last = self._last_failure.get(signature)
            if last is not None and last[0] == self.state_stamp:
                self._repeat_failure(result, pending_models, last)
                return
        feasible: list[tuple[SimNode, Any]] = []
        use_frontier = not exhaustive and candidates is self.nodes
        start = self._frontier.get(signature, 0) if use_frontier else 0
        frontier = start
        scan: Iterable[int] = range(start, len(candidates))
        by_usage = self.SCAN_BY_USAGE and exhaustive and best_score is None and not wants_score
        if by_usage:
            # least-/most-allocated without prioritized lists: the choice is the feasible node
            # with the fewest (most) allocated devices, ties in inventory order -- so the nodes
            # are tried in that order and the first feasible one is the choice (dractl's own
            # shortcut; a full scan of every node per pod made this mode quadratic).
            sign = 1 if self.options.node_order == "least-allocated" else -1
            used = self.node_devices_used
            scan = sorted(range(len(candidates)), key=lambda i: (sign * used[candidates[i].name], i))
        for index in scan:
            node = candidates[index]
            reason = self._cached_failure(node, signature)
            if reason is None:
                reason, outcome = self._filter(pod, node, pending_models, allocated, result, demand, ext)
                if isinstance(outcome, _Failure):
                    result.status = UNSCHEDULABLE
                    result.reasons.append(outcome.reason)
                    return
                if reason is not None:
                    self._remember_failure(node, signature, reason)
            if reason is not None:
                result.node_failures[node.name] = reason
                if frontier == index:
                    frontier = index + 1
                continue
            feasible.append((node, outcome))
            if not exhaustive or by_usage:
                break
            if best_score is not None and self._dra_score(outcome, pending) == best_score:
                break  # no node can score higher than this one; the first such node wins anyway
        if use_frontier:
            self._frontier[signature] = frontier

        if not feasible:
            for node in candidates[:start]:  # skipped: their failures are cached
                result.node_failures[node.name] = self._fail_cache[(node.name, signature)][2]
            result.node_failures = {n.name: result.node_failures[n.name] for n in candidates
                                    if n.name in result.node_failures}
            result.status = UNSCHEDULABLE
            reason = self._no_fit_reason(result, pending_models, len(candidates), signature)
            result.reasons.append(reason)
            if candidates is self.nodes:
                self._last_failure[signature] = (
                    self.state_stamp, result.node_failures, reason,
                    tuple(m.ref for m in pending_models), result.node_explanations,
                    result.node_devices)
            return
        if by_usage and len(result.node_failures) > 1:  # nodes tried first, in inventory order
            order = self.node_index
            result.node_failures = {name: result.node_failures[name] for name in
                                    sorted(result.node_failures, key=lambda n: order.get(n, 0))}
        node, attempt = self._choose(feasible, pending) if exhaustive else feasible[0]
        self._bind(result, node, pending, attempt)

    def _repeat_failure(self, result: PodResult, pending_models: list[ResourceClaim],
                        last: tuple) -> None:
        _, failures, reason, refs, explanations, devices = last
        rename = {old: model.ref for old, model in zip(refs, pending_models) if old != model.ref}
        # Shared with the earlier pod, read-only: per-node reasons and device lines name no claim.
        result.node_failures = failures
        result.node_devices = devices
        result.node_explanations = _RenamedLines(explanations, rename)
        result.status = UNSCHEDULABLE
        result.reasons.append(dataclasses.replace(
            reason, details=tuple(_rename_claims(line, rename) for line in reason.details)))

    def _signature(self, pod: PodInput, pending: list[ClaimState], allocated: list[ClaimState]) -> tuple:
        spec = pod.spec
        placement = json.dumps([spec.get("nodeName"), spec.get("nodeSelector"), spec.get("affinity"),
                                spec.get("tolerations")], sort_keys=True, default=str)
        claims = "|".join(self._spec_signature(c.manifest.get("spec")) for c in pending)
        selectors = tuple(id(c.allocation) for c in allocated)
        return (placement, claims, selectors)

    def _spec_signature(self, spec) -> str:
        key = id(spec)  # specs live as long as the run; generated claims share the template's
        text = self._spec_json.get(key)
        if text is None:
            text = self._spec_json[key] = json.dumps(spec, sort_keys=True, default=str)
        return text

    def _bump(self, node_name: str) -> None:
        """The node's state changed: its cached failures are stale."""
        self.state_stamp += 1
        self.node_version[node_name] += 1
        index = self.node_index.get(node_name)
        if index is not None and self._frontier:
            for sig, start in self._frontier.items():
                if start > index:
                    self._frontier[sig] = index

    def _bump_shared(self) -> None:
        self.state_stamp += 1
        self.shared_version += 1
        self._frontier.clear()

    def _cached_failure(self, node: SimNode, signature: tuple) -> str | None:
        hit = self._fail_cache.get((node.name, signature))
        if hit and hit[0] == self.node_version[node.name] and hit[1] == self.shared_version:
            return hit[2]
        return None

    def _remember_failure(self, node: SimNode, signature: tuple, reason: str) -> None:
        self._fail_cache[(node.name, signature)] = (self.node_version[node.name], self.shared_version,
                                                    reason)

    def _filter(self, pod: PodInput, node: SimNode, pending_models: list[ResourceClaim],
                allocated: list[ClaimState], result: PodResult, demand: dict,
                ext: list[ExtendedRequest]):
        """(failure reason or None, _Attempt or _Failure or None)."""
        reason = pod_fits_node(pod.spec, node)
        if reason is not None:
            return reason, None
        for claim in allocated:
            selector = claim.allocation.node_selector if claim.allocation else None
            if selector is None:
                continue
            try:
                ok = node_selector_matches(selector, node.info)
            except NodeSelectorError:
                ok = False
            if not ok:
                return "resourceclaim not available on the node", None
        alloc = self.node_alloc[node.name]
        # Extended resources the node's device plugin does not offer go through DRA (KEP-5004).
        ext_dra = tuple(e for e in ext if e.resource not in alloc)
        if any(e.device_class is None or e.count < 0 for e in ext_dra):
            return "cannot fit resource", None
        if "pods" in alloc and self.node_pods[node.name] + 1 > alloc["pods"]:
            return "Too many pods", None
        if alloc:
            dra_names = {e.resource for e in ext_dra}
            fit = insufficient({k: v for k, v in demand.items() if k not in dra_names},
                               self._free(node.name), alloc)
            if fit:
                return ", ".join(fit), None
        models = list(pending_models)
        special = self._extended_claim_model(pod, ext_dra) if ext_dra else None
        if special is not None:
            models.append(special)
        if not models:
            return None, _Attempt(None, ext_dra, special)
        outcome = self.allocator.allocate(node.info, models, timeout=self.options.timeout)
        if outcome.allocated:
            attempt = _Attempt(outcome, ext_dra, special)
            if self.native_mappings:
                problem = self._native_fit(node, demand, attempt, allocated, pending_models)
                if problem:
                    return problem, None
            return None, attempt
        if outcome.is_error:
            if outcome.timed_out:
                return f"timed out trying to allocate devices ({outcome.error})", None
            if outcome.node_failure:
                return outcome.error or "invalid resource pools were encountered", None
            return None, _Failure(Reason(R.ALLOCATOR_ERROR, outcome.error or "allocation error"))
        return "cannot allocate all claims", None

    def _free(self, node_name: str) -> dict:
        alloc, used = self.node_alloc[node_name], self.node_requested[node_name]
        return {k: v - used.get(k, 0) for k, v in alloc.items()}

    def _extended_claim_model(self, pod: PodInput, ext: tuple) -> ResourceClaim:
        requests = [{"name": e.request_name, "exactly": {"deviceClassName": e.device_class,
                                                         "allocationMode": "ExactCount",
                                                         "count": e.count}} for e in ext]
        manifest = {"metadata": {"name": f"{pod.name}-extended-resources", "namespace": pod.namespace,
                                 "uid": uid_for("ExtendedClaim", pod.namespace, pod.name)},
                    "spec": {"devices": {"requests": requests}}}
        return ResourceClaim.from_dict(manifest)

    def _native_fit(self, node: SimNode, demand: dict, attempt: "_Attempt",
                    allocated: list[ClaimState], pending_models: list[ResourceClaim]) -> str | None:
        """KEP-5517: node-allocatable amounts of the allocated devices add to the pod's demand;
        a claim with a mapped device cannot be shared across pods (alpha rule)."""
        amounts: dict = {}
        for claim in allocated:
            extra = self._mapped_amounts(claim.allocation)
            if extra and claim.reserved_for:
                return (f"node allocatable resource claim {claim.name} has a mapped device and "
                        "cannot be shared across pods")
            for k, v in extra.items():
                amounts[k] = amounts.get(k, 0) + v
        for allocation in attempt.outcome.results[:len(pending_models)]:
            for k, v in self._mapped_amounts(allocation).items():
                amounts[k] = amounts.get(k, 0) + v
        attempt.native = amounts
        if not amounts or not self.node_alloc[node.name]:
            return None
        total = dict(demand)
        for k, v in amounts.items():
            total[k] = total.get(k, 0) + v
        fit = insufficient(total, self._free(node.name), self.node_alloc[node.name])
        return ", ".join(fit) if fit else None

    def _mapped_amounts(self, allocation: AllocationResult | None) -> dict:
        out: dict = {}
        if allocation is None:
            return out
        for r in allocation.devices:
            for resource, mapping in self.native_mappings.get((r.driver, r.pool, r.device), {}).items():
                multiplier = mapping.get("multiplier", 1)
                key = mapping.get("capacityKey")
                if key:
                    consumed = (r.consumed_capacity or {}).get(key)
                    if consumed is None:
                        continue
                    amount = consumed.value * multiplier
                else:
                    amount = multiplier
                out[resource] = out.get(resource, 0) + amount
        return out

    def _best_possible_score(self, pending: list[ClaimState]) -> int:
        """An upper bound of _dra_score on any node: per prioritized list, the score of its first
        alternative that some device of the inventory could satisfy at all (dractl's own
        shortcut; the choice is the one a full scan makes)."""
        total = 0
        for claim in pending:
            for request in claim.model.requests:
                for index, sub in enumerate(request.first_available):
                    if self.allocator.could_match(sub.device_class_name, sub.selectors):
                        total += 8 - index
                        break
        return total

    @staticmethod
    def _dra_score(attempt, pending: list[ClaimState]) -> int:
        """1.36+ DynamicResources score: 8 - index of the chosen subrequest, per firstAvailable
        request (earlier alternatives are better)."""
        outcome = attempt.outcome if attempt is not None else None
        if outcome is None:
            return 0
        total = 0
        for claim, alloc in zip(pending, outcome.results):
            subs = {r.name: r for r in claim.model.requests if r.first_available}
            if not subs:
                continue
            counted = set()
            for res in alloc.devices:
                parent, _, sub = res.request.partition("/")
                if parent in subs and sub and parent not in counted:
                    counted.add(parent)
                    names = [s.name for s in subs[parent].first_available]
                    if sub in names:
                        total += 8 - names.index(sub)
        return total

    def _choose(self, feasible: list, pending: list[ClaimState]):
        """Among feasible nodes: highest DRA score (prioritized lists, 1.36+), then the node order
        policy, then inventory order (Python's sort is stable)."""
        def score(item) -> int:
            return self._dra_score(item[1], pending)

        def used(item) -> int:
            return self.node_devices_used[item[0].name]

        order = self.options.node_order
        keyed = sorted(feasible, key=lambda it: (-score(it),
                                                 used(it) if order == "least-allocated"
                                                 else -used(it) if order == "most-allocated" else 0))
        return keyed[0]

    def _consumer(self, result: PodResult, ref: PodClaimRef) -> dict:
        if ref.reserved_for == "podgroup" and result.group is not None:
            return result.group.reservation
        return {"resource": "pods", "name": result.pod.name, "uid": result.pod.uid}

    def _bind(self, result: PodResult, node: SimNode, pending: list[ClaimState], attempt) -> None:
        outcome = attempt.outcome if attempt is not None else None
        # PreBind: the API server rejects a 257th reservedFor entry; the whole attempt fails.
        for ref in result.claims:
            claim = ref.claim
            if claim is None or _reserved(claim, self._consumer(result, ref)):
                continue
            if len(claim.reserved_for) >= MAX_RESERVED_FOR:
                result.status = UNSCHEDULABLE
                fix = ("put the claim on the pods' PodGroup (spec.resourceClaims of the PodGroup, "
                       "same entry in every pod; Kubernetes 1.36+ with DRAWorkloadResourceClaims) so "
                       "that one reservedFor entry covers the whole group")
                result.reasons.append(Reason(
                    R.RESERVED_FOR_FULL,
                    f"add reservation to claim {claim.ref}: ResourceClaim.resource.k8s.io "
                    f"\"{claim.name}\" is invalid: status.reservedFor: Too many: "
                    f"{len(claim.reserved_for) + 1}: must have at most {MAX_RESERVED_FOR} items",
                    details=(f"dractl: more than {MAX_RESERVED_FOR} pods share this claim; to fix it, "
                             + fix,)))
                return
        if outcome is not None:
            for claim, allocation in zip(pending, outcome.results):
                self._commit_allocation(claim, allocation, node.name)
            if attempt.special is not None:
                self._create_extended_claim(result, attempt, outcome.results[-1], node.name)
        self._charge(result, node.name, attempt)
        for ref in result.claims:
            claim = ref.claim
            consumer = self._consumer(result, ref)
            if claim is None or _reserved(claim, consumer):
                continue
            claim.reserved_for.append(consumer)
            touched = claim.touched
            claim.touched = True

            def undo(claim=claim, consumer=consumer, touched=touched):
                claim.reserved_for.remove(consumer)
                claim.touched = touched
            self._log(undo)
        result.status = SCHEDULED
        result.node = node.name
        self._log(lambda: _unplace(result))
        self._warn_after_placement(result, node)

    def _charge(self, result: PodResult, node_name: str, attempt) -> None:
        """Account the pod's requests (and DRA-mapped native resources) on the node."""
        if not self.node_alloc[node_name]:
            return
        ext_dra = {e.resource for e in attempt.ext} if attempt is not None else set()
        charge = {k: v for k, v in pod_requests(result.pod.spec).items() if k not in ext_dra}
        for k, v in (attempt.native if attempt is not None else {}).items():
            charge[k] = charge.get(k, 0) + v
        charge.pop("pods", None)
        used = self.node_requested[node_name]
        for k, v in charge.items():
            used[k] = used.get(k, 0) + v
        self.node_pods[node_name] += 1
        self._bump(node_name)

        def undo():
            for k, v in charge.items():
                used[k] -= v
            self.node_pods[node_name] -= 1
            self._bump(node_name)
        self._log(undo)

    def _create_extended_claim(self, result: PodResult, attempt, allocation: AllocationResult,
                               node_name: str) -> None:
        """The special claim KEP-5004 creates at PreBind for DRA-backed extended resources."""
        pod = result.pod
        name = generated_name(f"{pod.name}-extended-resources-", f"{pod.uid}/extended")
        meta = {"name": name, "generateName": f"{pod.name}-extended-resources-",
                "namespace": pod.namespace,
                "uid": uid_for("ResourceClaim", pod.namespace, name),
                "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid,
                                     "controller": True, "blockOwnerDeletion": True}]}
        manifest = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
                    "spec": {"devices": {"requests": [
                        {"name": e.request_name, "exactly": {"deviceClassName": e.device_class,
                                                             "allocationMode": "ExactCount",
                                                             "count": e.count}} for e in attempt.ext]}}}
        model = ResourceClaim.from_dict(manifest)
        state = ClaimState(pod.namespace, name, meta["uid"], manifest, model, None, generated=True,
                           touched=True, referenced=True)
        self._add_generated(state)
        self._commit_allocation(state, allocation, node_name)
        state.reserved_for.append({"resource": "pods", "name": pod.name, "uid": pod.uid})
        status = {"resourceClaimName": name, "requestMappings": [
            {"containerName": e.container, "resourceName": e.resource, "requestName": e.request_name}
            for e in attempt.ext]}
        pod.status["extendedResourceClaimStatus"] = status
        result.claims.append(PodClaimRef("(extended resources)", state))
        self._log(lambda: pod.status.pop("extendedResourceClaimStatus", None))

    def _commit_allocation(self, claim: ClaimState, allocation: AllocationResult, node_name: str) -> None:
        saved = (claim.allocation, claim.status, claim.node, claim.touched)
        self.allocator.commit(claim.model, allocation)
        claim.allocation = allocation
        claim.status = ALLOCATED
        claim.node = node_name
        claim.touched = True
        self._count_devices(allocation, +1)
        self._invalidate(allocation, node_name)
        finalizers = claim.manifest.setdefault("metadata", {}).setdefault("finalizers", [])
        added = DELETE_PROTECTION_FINALIZER not in finalizers
        if added:
            finalizers.append(DELETE_PROTECTION_FINALIZER)

        def undo():
            self.allocator.release(claim.model)
            self._count_devices(allocation, -1)
            claim.allocation, claim.status, claim.node, claim.touched = saved
            if added:
                finalizers.remove(DELETE_PROTECTION_FINALIZER)
        self._log(undo)

    def _invalidate(self, allocation: AllocationResult, node_name: str) -> None:
        self._bump(node_name)
        for r in allocation.devices:
            owner = self.pool_node.get((r.driver, r.pool))
            if owner is None:
                self._bump_shared()  # a pool several nodes can see
            elif owner != node_name:
                self._bump(owner)

    def _warn_after_placement(self, result: PodResult, node: SimNode) -> None:
        for ref in result.claims:
            claim = ref.claim
            if claim is None or claim.allocation is None:
                continue
            self._warn_no_execute(result, claim)
            waiting = [r for r in claim.allocation.devices if r.binding_conditions]
            if waiting:
                devices = ", ".join(f"{r.driver}/{r.pool}/{r.device}" for r in waiting)
                conditions = sorted({c for r in waiting for c in r.binding_conditions or ()})
                result.reasons.append(Reason(
                    R.BINDING_CONDITIONS, f"claim {claim.ref}: the pod would wait in PreBind for "
                    f"binding conditions {', '.join(conditions)} on {devices} (placement is tentative)",
                    severity="warning"))

    def _warn_no_execute(self, result: PodResult, claim: ClaimState) -> None:
        """A device of the claim carries a NoExecute taint its result does not tolerate (possible
        for claims allocated before the taint appeared, e.g. through a DeviceTaintRule): the
        eviction controller would evict every pod using the claim."""
        if not self.gates.enabled("DRADeviceTaints"):
            return
        for device, taint in self._no_execute_taints(claim):
            result.reasons.append(Reason(
                R.EVICTION, f"claim {claim.ref}: device {device} has the NoExecute taint "
                f"{_taint_text(taint)} which the allocation does not tolerate: the pod would be "
                "evicted (with every other pod using the claim)", severity="warning"))

    # ------------------------------------------------------------------ claims ------------------
    def _resolve_claims(self, pod: PodInput, result: PodResult) -> list[PodClaimRef]:
        refs: list[PodClaimRef] = []
        statuses = {s.get("name"): s for s in pod.status.get("resourceClaimStatuses") or []
                    if isinstance(s, dict)}
        group = result.group
        if group is None or not group.standalone or not self.gates.enabled("DRAWorkloadResourceClaims"):
            group = None
        for entry in pod.pod_claims():
            name = entry.get("name")
            shared = group is not None and group.matching_claim(entry) is not None
            if entry.get("resourceClaimName"):
                claim = self.claims.get((pod.namespace, entry["resourceClaimName"]))
                if claim is None:
                    raise _Failure(Reason(R.CLAIM_NOT_FOUND, f"resourceclaim.resource.k8s.io "
                                          f"\"{entry['resourceClaimName']}\" not found",
                                          details=(f"pod claim {name} names ResourceClaim "
                                                   f"{pod.namespace}/{entry['resourceClaimName']}, "
                                                   "which is not among the inputs",)))
            elif entry.get("resourceClaimTemplateName"):
                if shared:
                    claim = self._group_claim(pod, group, entry)
                else:
                    claim = self._claim_from_template(pod, entry, statuses.get(name), result)
                if claim is None:
                    refs.append(PodClaimRef(name, None))
                    continue
            else:
                raise _Failure(Reason(R.CLAIM_SOURCE, f"pod \"{pod.key}\", spec.resourceClaim "
                                      f"\"{name}\": none of the supported fields are set"))
            if claim.deleting:
                raise _Failure(Reason(R.CLAIM_DELETING, f"resourceclaim \"{claim.name}\" is being deleted"))
            if claim.status == CLAIM_ERROR and claim.model is None or (
                    claim.source is not None and id(claim.source) in self.invalid):
                raise _Failure(Reason(R.CLAIM_INVALID, f"ResourceClaim {claim.ref} has validation "
                                      "errors"))
            claim.referenced = True
            refs.append(PodClaimRef(name, claim, "podgroup" if shared else "pod"))
        return refs

    def _group_claim(self, pod: PodInput, group: PodGroupInfo, entry: dict) -> ClaimState:
        """KEP-5729: one claim per PodGroup from a template, shared by every member pod."""
        name = entry["name"]
        claim_name = group.claim_statuses.get(name)
        if claim_name:
            claim = self.claims.get((pod.namespace, claim_name))
            if claim is None:
                raise _Failure(Reason(R.CLAIM_NOT_FOUND, f"resourceclaim.resource.k8s.io \"{claim_name}\" "
                                      "not found", details=(f"PodGroup {group.name} records it in "
                                                            "status.resourceClaimStatuses",)))
        else:
            template = self._template(pod, entry)
            owner = {"apiVersion": group.api_version or "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
                     "name": group.name, "uid": group.uid, "controller": True,
                     "blockOwnerDeletion": True}
            claim = self._generate_claim(pod.namespace, group.name, name, template, owner,
                                         f"podgroup/{group.uid}/{name}")
            group.claim_statuses[name] = claim.name
            self._log(lambda: group.claim_statuses.pop(name, None))
        if not any(s.get("name") == name for s in pod.status.get("resourceClaimStatuses") or []):
            self._record_pod_claim_status(pod, name, claim.name)
        return claim

    def _template(self, pod: PodInput, entry: dict) -> dict:
        template_name = entry["resourceClaimTemplateName"]
        template = self.templates.get((pod.namespace, template_name))
        if template is None:
            raise _Failure(Reason(R.TEMPLATE_NOT_FOUND, f"resourceclaimtemplate.resource.k8s.io "
                                  f"\"{template_name}\" not found",
                                  details=(f"pod claim {entry['name']}: ResourceClaimTemplate "
                                           f"{pod.namespace}/{template_name} is not among the inputs; "
                                           "the resourceclaim controller cannot create the claim",)))
        if template["invalid"]:
            raise _Failure(Reason(R.CLAIM_INVALID, f"ResourceClaimTemplate {pod.namespace}/{template_name} "
                                  "has validation errors"))
        return template

    def _claim_from_template(self, pod: PodInput, entry: dict, status: dict | None,
                             result: PodResult) -> ClaimState | None:
        name = entry["name"]
        if status is not None:
            claim_name = status.get("resourceClaimName")
            if not claim_name:
                return None  # the controller decided no claim is needed
            claim = self.claims.get((pod.namespace, claim_name))
            if claim is None:
                raise _Failure(Reason(R.CLAIM_NOT_FOUND, f"resourceclaim.resource.k8s.io \"{claim_name}\" "
                                      "not found"))
            owners = claim.owner_uids()
            if any(uid == pod.uid and kind == "Pod" for kind, _, uid in owners):
                return claim
            group = result.group
            if group is not None and self.gates.enabled("DRAWorkloadResourceClaims"):
                if any(kind == "PodGroup" and owner == group.name for kind, owner, _ in owners):
                    return claim
                raise _Failure(Reason(R.CLAIM_NOT_OWNED, f"ResourceClaim {claim.ref} was not created "
                                      f"for Pod {pod.key} (neither Pod nor PodGroup {group.name} is "
                                      "the owner)"))
            raise _Failure(Reason(R.CLAIM_NOT_OWNED, f"ResourceClaim {claim.ref} was not created "
                                  f"for Pod {pod.key} (Pod is not owner)"))
        if not self.options.simulate_controllers:
            raise _Failure(Reason(R.CLAIM_NOT_CREATED, f"pod \"{pod.key}\": ResourceClaim not created yet"))
        template = self._template(pod, entry)
        owner = {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid,
                 "controller": True, "blockOwnerDeletion": True}
        claim = self._generate_claim(pod.namespace, pod.name, name, template, owner,
                                     f"{pod.uid}/{name}")
        self._record_pod_claim_status(pod, name, claim.name)
        return claim

    def _record_pod_claim_status(self, pod: PodInput, pod_claim: str, claim_name: str) -> None:
        statuses = pod.status.setdefault("resourceClaimStatuses", [])
        entry = {"name": pod_claim, "resourceClaimName": claim_name}
        statuses.append(entry)
        self._log(lambda: statuses.remove(entry))

    def _generate_claim(self, namespace: str, owner_name: str, pod_claim: str, template: dict,
                        owner_ref: dict, seed: str) -> ClaimState:
        """What the resourceclaim controller creates from a template (docs 3.14, 3.13)."""
        data = template["data"]
        spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
        tmeta = spec.get("metadata") if isinstance(spec.get("metadata"), dict) else {}
        generate_name = claim_generate_name(owner_name, pod_claim)
        claim_name = generated_name(generate_name, seed)
        meta: dict[str, Any] = {"name": claim_name, "generateName": generate_name,
                                "namespace": namespace,
                                "uid": uid_for("ResourceClaim", namespace, claim_name)}
        if tmeta.get("labels"):
            meta["labels"] = copy.deepcopy(tmeta["labels"])
        meta["annotations"] = {**copy.deepcopy(tmeta.get("annotations") or {}),
                               "resource.kubernetes.io/pod-claim-name": pod_claim}
        meta["ownerReferences"] = [owner_ref]
        # The spec is shared with the template (read-only; reports copy before printing).
        manifest = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
                    "spec": spec.get("spec") or {}}
        model = template.get("model")
        if model is None:  # parse the template's claim spec once, then only rename
            try:
                model = template["model"] = ResourceClaim.from_dict(manifest)
            except (ModelError, ValueError, TypeError) as exc:
                raise _Failure(Reason(R.MODEL, f"claim from template {namespace}/"
                                      f"{data.get('metadata', {}).get('name')}: {exc}")) from None
        model = dataclasses.replace(model, name=claim_name, namespace=namespace, uid=meta["uid"])
        state = ClaimState(namespace, claim_name, meta["uid"], manifest, model, template["doc"],
                           generated=True, touched=True)
        self._add_generated(state)
        return state

    def _add_generated(self, state: ClaimState) -> None:
        self.claims[state.key] = state
        self.plan.claims.append(state)

        def undo():
            self.claims.pop(state.key, None)
            self.plan.claims.remove(state)
        self._log(undo)

    def _prefilter(self, pod: PodInput, refs: list[PodClaimRef]) -> None:
        for ref in refs:
            claim = ref.claim
            if claim is not None and claim.allocation is not None:
                self._check_tainted_claim(pod, claim)
            if claim is None or claim.allocation is not None:
                continue
            if claim.model is None:
                raise _Failure(Reason(R.MODEL, f"ResourceClaim {claim.ref}: {claim.model_error}"))
            for req in claim.model.requests:
                if req.first_available and not self.gates.enabled("DRAPrioritizedList"):
                    raise _Failure(Reason(R.GATE_DISABLED, f"resource claim {claim.ref}, request "
                                          f"{req.name}: has subrequests, but the DRAPrioritizedList "
                                          "feature is disabled"))
                if req.exactly is None and not req.first_available:
                    raise _Failure(Reason(R.UNKNOWN_REQUEST, f"resource claim {claim.ref}, request "
                                          f"{req.name}: unknown request type"))
                wanted = [(req.name, req.exactly.device_class_name)] if req.exactly else [
                    (f"{req.name}/{s.name}", s.device_class_name) for s in req.first_available]
                for shown, class_name in wanted:
                    if class_name not in self.class_names:
                        raise _Failure(Reason(R.CLASS_NOT_FOUND, f"request {shown}: device class "
                                              f"{class_name} does not exist"))
            if self.gates.enabled("DRAAdminAccess"):
                self._check_admin_access(claim)

    def _check_tainted_claim(self, pod: PodInput, claim: ClaimState) -> None:
        """An allocated claim with an untolerated NoExecute device gets no new consumers (the
        API documentation of request tolerations; pods already using it are evicted)."""
        if not self.gates.enabled("DRADeviceTaints") or any(
                r.get("uid") == pod.uid for r in claim.reserved_for):
            return
        for device, taint in self._no_execute_taints(claim):
            raise _Failure(Reason(
                R.TAINTED_CLAIM, f"resource claim {claim.ref}: device {device} has the NoExecute taint "
                f"{_taint_text(taint)} which the allocation does not tolerate; the scheduler does not "
                "let new pods reserve the claim while it has such devices"))

    def _no_execute_taints(self, claim: ClaimState):
        if self._devices is None:
            from dractl.downward import DeviceIndex

            self._devices = DeviceIndex(self.allocator.inventory.slices)
        for r in claim.allocation.devices:
            device = self._devices.get(r.driver, r.pool, r.device)
            if device is None:
                continue
            taint = untolerated_taint([t for t in device.taints if t.effect == "NoExecute"], r.tolerations)
            if taint is not None:
                yield f"{r.driver}/{r.pool}/{r.device}", taint

    def _check_admin_access(self, claim: ClaimState) -> None:
        if not any(r.exactly and r.exactly.admin_access for r in claim.model.requests):
            return
        ns = self.namespaces.get(claim.namespace)
        label = "resource.kubernetes.io/admin-access"
        if ns is None:
            claim.reasons.append(Reason(R.ADMIN_NAMESPACE_UNKNOWN, f"claim {claim.ref} requests admin "
                                        f"access; the API server requires namespace {claim.namespace} "
                                        f"to carry the label {label}=true, and no Namespace object was "
                                        "given to check it", severity="warning"))
            return
        labels = (ns.get("metadata") or {}).get("labels") or {}
        if str(labels.get(label)) != "true":
            raise _Failure(Reason(R.ADMIN_NAMESPACE, f"claim {claim.ref} requests admin access, but "
                                  f"namespace {claim.namespace} does not have the label {label}=true "
                                  "(the API server rejects such claims)"))

    # ------------------------------------------------------------------ explanations ------------
    def _no_fit_reason(self, result: PodResult, pending_models: list[ResourceClaim], total: int,
                       signature: tuple | None = None) -> Reason:
        counts = Counter(result.node_failures.values())
        # kube-scheduler sorts the "<count> <reason>" strings themselves, then the PostFilter
        # plugins speak: DynamicResources (dractl never deallocates: the dry run has no retry),
        # then preemption, which dractl does not simulate.
        summary = ", ".join(sorted(f"{n} {reason}" for reason, n in counts.items()))
        if not result.claims:
            post = "no new claims to deallocate"
        else:
            post = "still not schedulable"
        preemptable = sum(n for reason, n in counts.items() if reason.startswith("Insufficient"))
        preempt_parts = []
        if total - preemptable:
            preempt_parts.append(f"{total - preemptable} Preemption is not helpful for scheduling")
        if preemptable:
            preempt_parts.append(f"{preemptable} No preemption victims found for incoming pod")
        message = (f"0/{total} nodes are available: {summary}. {post}, preemption: 0/{total} nodes "
                   f"are available: {', '.join(sorted(preempt_parts))}.")
        details: list[str] = []
        explained = 0
        groups: dict[tuple, list[str]] = {}
        for node_name, reason in result.node_failures.items():
            if reason != "cannot allocate all claims" or not pending_models:
                continue
            if explained >= MAX_EXPLAINED_NODES:
                groups.setdefault(("(not explained: too many nodes)",), []).append(node_name)
                continue
            explained += 1
            lines, devices = self._explain_node(self.node_by_name[node_name], pending_models,
                                                signature)
            result.node_explanations[node_name] = lines
            result.node_devices[node_name] = devices
            groups.setdefault(tuple(lines), []).append(node_name)
        for lines, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[1][0])):
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            details.append(f"{len(names)} node(s) ({shown}):")
            details.extend(f"  {line}" for line in lines)
        return Reason(R.NO_NODE_FITS, message, details=tuple(details))

    def _explain_node(self, node: SimNode, pending_models: list[ResourceClaim],
                      signature: tuple | None = None) -> tuple[list[str], list[str]]:
        """(lines per request, device-level verdict lines) of why the claims do not fit `node`.

        The diagnostic search is the costly part of an unschedulable pod, and in a full cluster
        every further pod with the same claims fails on the same nodes for the same reasons: the
        explanation is kept per node, claim specs and node state (the versions that also guard the
        failure cache), and only the claim names are filled in again. Device lines name no claim
        and are shared between pods (read-only)."""
        key = None
        if signature is not None:
            key = (node.name, signature, self.node_version[node.name], self.shared_version)
            hit = self._explained.get(key)
            if hit is not None:
                explanation, refs, devices = hit
                rename = dict(zip(refs, (m.ref for m in pending_models)))
                return self._explanation_lines(explanation, pending_models, rename), devices
        try:
            explanation = self.allocator.explain(node.info, pending_models, timeout=self.options.timeout)
        except Exception as exc:  # noqa: BLE001 - an explanation must never break the run
            return [f"(no explanation: {type(exc).__name__}: {exc})"], []
        devices = []
        for req in explanation.requests:
            for verdict in req.devices:
                why = DESCRIPTIONS.get(verdict.reason, verdict.reason) if verdict.reason else "usable"
                devices.append(f"request {req.request}: {verdict.device}: {why}")
        if key is not None:
            if len(self._explained) >= _EXPLAINED_CACHE_MAX:
                self._explained.clear()  # stale node versions: start over rather than grow
            self._explained[key] = (explanation, tuple(m.ref for m in pending_models), devices)
        return self._explanation_lines(explanation, pending_models, {}), devices

    @staticmethod
    def _explanation_lines(explanation, pending_models: list[ResourceClaim],
                           rename: dict[str, str]) -> list[str]:
        classes = _request_classes(pending_models)
        lines = []
        for req in explanation.requests:
            claim = rename.get(req.claim, req.claim)
            rejected = ", ".join(f"{n} {DESCRIPTIONS.get(code, code)}"
                                 for code, n in sorted(req.rejected.items(), key=lambda kv: (-kv[1], kv[0])))
            cls = classes.get((claim, req.request))
            lines.append(f"claim {claim}, request {req.request}"
                         + (f" (class {cls})" if cls else "")
                         + f": needs {req.needed} device(s), {req.eligible} of {req.considered} usable"
                         + (f"; {rejected}" if rejected else ""))
        if explanation.partial:
            lines.append("(explanation partial: the diagnostic search was cut short)")
        return lines

    # ------------------------------------------------------------------ standalone claims -------
    def _allocate_unreferenced(self) -> None:
        """Unallocated claims that no pod uses are allocated together, on the first node where
        that succeeds (as if one pod referenced them all)."""
        todo = [c for c in self.plan.claims if not c.referenced and not c.generated
                and c.allocation is None and c.status == PENDING and c.model is not None]
        if not todo:
            return
        nodes = self.nodes
        if self.options.only_node:
            nodes = [n for n in nodes if n.name == self.options.only_node]
        models = [c.model for c in todo]
        failures: dict[str, str] = {}
        for node in nodes:
            outcome = self.allocator.allocate(node.info, models, timeout=self.options.timeout)
            if outcome.allocated:
                for claim, allocation in zip(todo, outcome.results):
                    self._commit_allocation(claim, allocation, node.name)
                return
            if outcome.is_error and not outcome.node_failure and not outcome.timed_out:
                for claim in todo:
                    claim.status = CLAIM_ERROR
                    claim.reasons.append(Reason(R.ALLOCATOR_ERROR, outcome.error or "allocation error"))
                return
            failures[node.name] = outcome.error if outcome.is_error else "cannot allocate all claims"
        counts = Counter(failures.values())
        summary = ", ".join(f"{n} {reason}" for reason, n in sorted(counts.items()))
        lines: list[str] = []
        for node in nodes[:MAX_EXPLAINED_NODES]:
            if failures.get(node.name) == "cannot allocate all claims":
                lines = [f"on {node.name}: {line}" for line in self._explain_node(node, models)[0]]
                break
        for claim in todo:
            claim.status = UNSATISFIABLE
            claim.reasons.append(Reason(R.UNSATISFIABLE, f"0/{len(nodes)} nodes can allocate the "
                                        f"unreferenced claims together" + (f": {summary}" if summary else ""),
                                        details=tuple(lines)))


def _taint_text(taint) -> str:
    return f"{taint.key}={taint.value}" if taint.value else taint.key


def _rename_claims(line: str, rename: dict[str, str]) -> str:
    """An explanation line of an earlier pod, with this pod's claim names."""
    for old, new in rename.items():
        line = line.replace(f"claim {old}, ", f"claim {new}, ")
    return line


class _RenamedLines(Mapping):
    """node name -> explanation lines of an earlier pod, renamed on access (read-only)."""

    def __init__(self, lines: Mapping[str, list[str]], rename: dict[str, str]):
        self._lines, self._rename = lines, rename

    def __getitem__(self, node: str) -> list[str]:
        return [_rename_claims(line, self._rename) for line in self._lines[node]]

    def __iter__(self):
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)


def _request_classes(models: list[ResourceClaim]) -> dict[tuple[str, str], str]:
    out = {}
    for m in models:
        for req in m.requests:
            if req.exactly:
                out[(m.ref, req.name)] = req.exactly.device_class_name
            for sub in req.first_available:
                out[(m.ref, f"{req.name}/{sub.name}")] = sub.device_class_name
    return out


def _unique(claims: list[ClaimState]) -> list[ClaimState]:
    seen, out = set(), []
    for c in claims:
        if id(c) not in seen:
            seen.add(id(c))
            out.append(c)
    return out


def _reserved(claim: ClaimState, consumer: dict) -> bool:
    return any(r.get("uid") == consumer["uid"] and r.get("resource") == consumer["resource"]
               for r in claim.reserved_for)


def _unplace(result: PodResult) -> None:
    result.status = UNSCHEDULABLE
    result.node = ""


def simulate(documents: Iterable[Document], gates: FeatureGates, options: Options | None = None,
             invalid: set[int] | None = None) -> Plan:
    from dractl.downward import resolve_plan

    sim = Simulation(documents, gates, options, invalid)
    plan = sim.run()
    plan.slices = sim.allocator.inventory.slices
    resolve_plan(plan, plan.slices, lenient=sim.options.lenient_env)
    return plan
