"""DynamicResources: the pod's ResourceClaims (upstream plugins/dynamicresources).

Two registered plugins share this module: `ClaimsAvailableOnNode` is the first check of
upstream's Filter (an allocated claim pins the pod to the nodes its allocation can reach);
dractl runs it before NodeResourcesFit and the allocation after, the order in which dractl has
always reported verdicts. `DynamicResources` is everything else.
"""

from __future__ import annotations

from dractl.allocator.errors import INVALID_POOLS_MESSAGE
from dractl.allocator.nodes import NodeSelectorError, node_selector_matches
from dractl.api.releases import in_force
from dractl.simulate import reasons as R
from dractl.simulate.claimcontroller import ClaimController, ClaimProblem
from dractl.simulate.explain import (
    MAX_EXPLAINED_NODES,
    cel_error_details,
    explain_node,
    group_explanations,
)
from dractl.simulate.framework import Code, Plugin, rejected, unresolvable
from dractl.simulate.state import MAX_RESERVED_FOR, Reason

NAME = "DynamicResources"
# The allocator found no devices: the one verdict the PostFilter explains per node.
CANNOT_ALLOCATE = unresolvable("cannot allocate all claims", NAME)


def _unique(claims: list) -> list:
    seen, out = set(), []
    for c in claims:
        if id(c) not in seen:
            seen.add(id(c))
            out.append(c)
    return out


def _taint_text(taint) -> str:
    return f"{taint.key}={taint.value}" if taint.value else taint.key


def consumer_of(result, ref) -> dict:
    """The reservedFor entry the pod's use of the claim writes (the PodGroup's for group claims)."""
    if ref.reserved_for == "podgroup" and result.group is not None:
        return result.group.reservation
    return {"resource": "pods", "name": result.pod.name, "uid": result.pod.uid}


def is_reserved(claim, consumer: dict) -> bool:
    return any(r.get("uid") == consumer["uid"] and r.get("resource") == consumer["resource"]
               for r in claim.reserved_for)


class ClaimsAvailableOnNode(Plugin):
    name = "DynamicResources"

    # Filter: an allocated claim whose node selector excludes the node -> UnschedulableAndUnresolvable.
    def filter(self, state, attempt):
        info = attempt.node.info
        for claim in state.allocated:
            selector = claim.allocation.node_selector if claim.allocation else None
            if selector is None:
                continue
            try:
                ok = node_selector_matches(selector, info)
            except NodeSelectorError:
                ok = False
            if not ok:
                return unresolvable("resourceclaim not available on the node", NAME)
        return None


class DynamicResources(Plugin):
    name = NAME

    def __init__(self, cluster) -> None:
        super().__init__(cluster)
        self.gates = cluster.gates
        version = cluster.gates.version
        self.all_pool_node_only = in_force("all_request_bad_pool_node_only", version)
        self.timeout_is_error = in_force("filter_timeout_is_error", version)
        self.has_score = in_force("prioritized_list_score", version)
        self.controller = ClaimController(cluster)

    # -- PreFilter: the claims (created from templates by the simulated controller), then the
    #    checks no node can change: missing classes, gates, admin access, NoExecute taints.
    def pre_filter(self, state):
        result = state.result
        try:
            refs = self.controller.resolve(state.pod, result)
            result.claims = refs
            self._check_claims(state, refs)
        except ClaimProblem as problem:
            return rejected(problem.reason, NAME)
        claims = [r.claim for r in refs if r.claim is not None]
        state.refs = refs
        state.pending = _unique([c for c in claims if c.allocation is None])
        state.pending_models = [c.model for c in state.pending]
        state.allocated = _unique([c for c in claims if c.allocation is not None])
        return None

    def _check_claims(self, state, refs) -> None:
        for ref in refs:
            claim = ref.claim
            if claim is not None and claim.allocation is not None:
                self._check_tainted_claim(state.pod, claim)
            if claim is None or claim.allocation is not None:
                continue
            if claim.model is None:
                raise ClaimProblem(Reason(R.MODEL, f"ResourceClaim {claim.ref}: {claim.model_error}"))
            for req in claim.model.requests:
                self._check_request(claim, req)
            if self.gates.enabled("DRAAdminAccess"):
                self._check_admin_access(claim)

    def _check_request(self, claim, req) -> None:
        if req.first_available and not self.gates.enabled("DRAPrioritizedList"):
            raise ClaimProblem(Reason(R.GATE_DISABLED, f"resource claim {claim.ref}, request "
                                      f"{req.name}: has subrequests, but the DRAPrioritizedList "
                                      "feature is disabled"))
        if req.exactly is None and not req.first_available:
            raise ClaimProblem(Reason(R.UNKNOWN_REQUEST, f"resource claim {claim.ref}, request "
                                      f"{req.name}: unknown request type"))
        wanted = [(req.name, req.exactly.device_class_name)] if req.exactly else [
            (f"{req.name}/{s.name}", s.device_class_name) for s in req.first_available]
        for shown, class_name in wanted:
            if class_name not in self.cluster.class_names:
                raise ClaimProblem(Reason(R.CLASS_NOT_FOUND, f"request {shown}: device class "
                                          f"{class_name} does not exist"))

    def _check_tainted_claim(self, pod, claim) -> None:
        """An allocated claim with an untolerated NoExecute device gets no new consumers (the
        API documentation of request tolerations; pods already using it are evicted)."""
        if not self.gates.enabled("DRADeviceTaints") or any(
                r.get("uid") == pod.uid for r in claim.reserved_for):
            return
        for device, taint in self.cluster.no_execute_taints(claim):
            raise ClaimProblem(Reason(
                R.TAINTED_CLAIM, f"resource claim {claim.ref}: device {device} has the NoExecute taint "
                f"{_taint_text(taint)} which the allocation does not tolerate; the scheduler does not "
                "let new pods reserve the claim while it has such devices"))

    def _check_admin_access(self, claim) -> None:
        if not any(r.exactly and r.exactly.admin_access for r in claim.model.requests):
            return
        ns = self.cluster.namespaces.get(claim.namespace)
        label = "resource.kubernetes.io/admin-access"
        if ns is None:
            claim.reasons.append(Reason(R.ADMIN_NAMESPACE_UNKNOWN, f"claim {claim.ref} requests admin "
                                        f"access; the API server requires namespace {claim.namespace} "
                                        f"to carry the label {label}=true, and no Namespace object was "
                                        "given to check it", severity="warning"))
            return
        labels = (ns.get("metadata") or {}).get("labels") or {}
        if str(labels.get(label)) != "true":
            raise ClaimProblem(Reason(R.ADMIN_NAMESPACE, f"claim {claim.ref} requests admin access, but "
                                      f"namespace {claim.namespace} does not have the label {label}=true "
                                      "(the API server rejects such claims)"))

    # -- Filter: the structured allocator for the claims still to allocate (and KEP-5004's
    #    extended-resource claim). An allocator error is Error: it aborts the pod's attempt.
    def cycle_key(self, state):
        # The verdicts depend on the claims' specs (dicts) and on the allocated claims'
        # allocations (their ids: an allocation object lives as long as its claim has it).
        key = tuple([c.manifest.get("spec") for c in state.pending]
                     + [id(c.allocation) for c in state.allocated])
        active = self.cluster.active_group_constraint  # dractl's podgroup-constraints extension
        return key if active is None else key + (active.key(),)

    def filter(self, state, attempt):
        models = state.pending_models
        if attempt.special is not None:
            models = models + [attempt.special]
        if not models:
            return None
        outcome = self.cluster.allocator.allocate(attempt.node.info, models,
                                                  timeout=self.cluster.options.timeout,
                                                  extra_constraints=self._group_constraints(state))
        if outcome.allocated:
            attempt.outcome = outcome
            return None
        if outcome.is_error:
            if outcome.timed_out:
                return self._timed_out(outcome)
            if outcome.node_failure or self._all_pool_unusable_on_node(outcome):
                return unresolvable(outcome.error or "invalid resource pools were encountered", NAME)
            return rejected(Reason(R.ALLOCATOR_ERROR, outcome.error or "allocation error",
                                   details=cel_error_details(outcome)), NAME, Code.ERROR)
        return CANNOT_ALLOCATE

    def _group_constraints(self, state):
        """dractl's podgroup-constraints extension: the group's constraints in force for this
        pod's claims (computed once per cycle), or None."""
        active = self.cluster.active_group_constraint
        if active is None:
            return None
        found = state.data.get("GroupConstraints", state)
        if found is state:
            found = state.data["GroupConstraints"] = active.for_pod(state)
        return found

    def _all_pool_unusable_on_node(self, outcome) -> bool:
        """1.38 (#141898): an `All` request meeting an incomplete or invalid pool on this node
        no longer fails the scheduling attempt; the node is unsuitable and other nodes are tried.
        Up to 1.37 it is an allocator error that aborts the attempt. (The allocator reports it
        only as a message; the phrase is its own, dractl/allocator/prepass.py.)"""
        if not self.all_pool_node_only or not outcome.error:
            return False
        return "asks for all devices, but resource pool" in outcome.error

    def _timed_out(self, outcome):
        """DRASchedulerFilterTimeout. Before 1.36 a timeout made the node
        UnschedulableAndUnresolvable (other nodes were tried, the pod could end up "unschedulable");
        from 1.36 (#137607) it is an Error: the attempt fails and is retried with back-off."""
        message = f"timed out trying to allocate devices ({outcome.error})"
        if not self.timeout_is_error:
            return unresolvable(message, NAME)
        return rejected(Reason(R.ALLOCATOR_ERROR, message), NAME, Code.ERROR)

    # -- PostFilter: no claim to deallocate (the dry run has no retry); dractl's explanation of
    #    each node where allocation failed, grouped by identical explanations.
    def post_filter(self, state, statuses, total):
        result = state.result
        models = state.pending_models
        per_node: dict[str, list[str]] = {}
        explained = 0
        for node_name, status in statuses.items():
            if not models or not (status is CANNOT_ALLOCATE or _invalid_pools(status)):
                continue
            if explained >= MAX_EXPLAINED_NODES:
                per_node[node_name] = ["(not explained: too many nodes)"]
                continue
            explained += 1
            lines, devices = explain_node(self.cluster, self.cluster.node_by_name[node_name], models,
                                          self.cluster.shortcuts, state.key, self._group_constraints(state))
            result.node_explanations[node_name] = lines
            result.node_devices[node_name] = devices
            per_node[node_name] = lines
        for lines, names in group_explanations(per_node):
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            state.details.append(f"{len(names)} node(s) ({shown}):")
            state.details.extend(f"  {line}" for line in lines)
        return "still not schedulable" if result.claims else "no new claims to deallocate"

    # -- Score: 1.35+ (#134711; 1.34 has no DRA score), 8 - index of the chosen subrequest per
    #    firstAvailable request (earlier alternatives are better).
    def scores(self, state):
        if not self.has_score:
            return False
        return any(req.first_available for c in state.pending for req in c.model.requests)

    def score(self, state, attempt):
        outcome = attempt.outcome
        if outcome is None:
            return 0
        total = 0
        for claim, alloc in zip(state.pending, outcome.results, strict=False):
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

    def score_bound(self, state):
        """Per prioritized list, the score of its first alternative that some device of the
        inventory could satisfy at all (dractl's own bound; see shortcuts.py)."""
        total = 0
        for claim in state.pending:
            for request in claim.model.requests:
                for index, sub in enumerate(request.first_available):
                    if self.cluster.allocator.could_match(sub.device_class_name, sub.selectors):
                        total += 8 - index
                        break
        return total

    # -- Reserve: the API server rejects a 257th reservedFor entry, which PreBind would write;
    #    dractl checks first, then commits the allocations (the assume cache).
    def reserve(self, state, attempt):
        result = state.result
        to_reserve = []  # (claim, reservedFor entry) that PreBind writes
        for ref in result.claims:
            claim = ref.claim
            if claim is None:
                continue
            consumer = consumer_of(result, ref)
            if is_reserved(claim, consumer):
                continue
            if len(claim.reserved_for) >= MAX_RESERVED_FOR:
                return rejected(_reserved_for_full(claim), NAME)
            to_reserve.append((claim, consumer))
        state.data[NAME] = to_reserve
        if attempt.outcome is not None:
            node_name = attempt.node.name
            for claim, allocation in zip(state.pending, attempt.outcome.results, strict=False):
                self.cluster.commit_allocation(claim, allocation, node_name)
        return None

    # -- PreBind: reservedFor of every claim, then warnings about the placement (binding
    #    conditions the pod would wait for, NoExecute taints that would evict it).
    def pre_bind(self, state, attempt):
        result = state.result
        for claim, consumer in state.data[NAME]:
            # Two pod claims naming one claim: reserved once.
            if not is_reserved(claim, consumer):
                self.cluster.reserve_claim(claim, consumer)
        for ref in result.claims:
            claim = ref.claim
            if claim is None or claim.allocation is None:
                continue
            self._warn_no_execute(result, claim)
            self._warn_binding_conditions(result, claim)
        return None

    def _warn_binding_conditions(self, result, claim) -> None:
        waiting = [r for r in claim.allocation.devices if r.binding_conditions]
        if waiting:
            devices = ", ".join(f"{r.driver}/{r.pool}/{r.device}" for r in waiting)
            conditions = sorted({c for r in waiting for c in r.binding_conditions or ()})
            result.reasons.append(Reason(
                R.BINDING_CONDITIONS, f"claim {claim.ref}: the pod would wait in PreBind for "
                f"binding conditions {', '.join(conditions)} on {devices} (placement is tentative)",
                severity="warning"))

    def _warn_no_execute(self, result, claim) -> None:
        """A device of the claim carries a NoExecute taint its result does not tolerate (possible
        for claims allocated before the taint appeared, e.g. through a DeviceTaintRule): the
        eviction controller would evict every pod using the claim."""
        if not self.gates.enabled("DRADeviceTaints"):
            return
        for device, taint in self.cluster.no_execute_taints(claim):
            result.reasons.append(Reason(
                R.EVICTION, f"claim {claim.ref}: device {device} has the NoExecute taint "
                f"{_taint_text(taint)} which the allocation does not tolerate: the pod would be "
                "evicted (with every other pod using the claim)", severity="warning"))


def _invalid_pools(status) -> bool:
    """The node failed on invalid pools (upstream's message; dractl explains which and why)."""
    return status.plugin == NAME and status.reason == INVALID_POOLS_MESSAGE


def _reserved_for_full(claim) -> Reason:
    fix = ("put the claim on the pods' PodGroup (spec.resourceClaims of the PodGroup, "
           "same entry in every pod; Kubernetes 1.36+ with DRAWorkloadResourceClaims) so "
           "that one reservedFor entry covers the whole group")
    return Reason(R.RESERVED_FOR_FULL,
                  f"add reservation to claim {claim.ref}: ResourceClaim.resource.k8s.io "
                  f"\"{claim.name}\" is invalid: status.reservedFor: Too many: "
                  f"{len(claim.reserved_for) + 1}: must have at most {MAX_RESERVED_FOR} items",
                  details=(f"dractl: more than {MAX_RESERVED_FOR} pods share this claim; to fix it, "
                           + fix,))

