"""DynamicResources: the pod's ResourceClaims, one plugin at upstream's place in every extension
point (pkg/scheduler/framework/plugins/dynamicresources, dynamicresources.go), with its parts for
extended resources (extendedresources.py, upstream's extendeddynamicresources.go) and for
node-allocatable resources (nodeallocatable.py, upstream's nodeallocatabledynamicresources.go).
Its cycle state lives under its name (stateKey "DynamicResources"); other code reads it through
the accessors at the end of this module."""

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
from dractl.simulate.framework import SKIP, Code, Plugin, Status, rejected, unresolvable
from dractl.simulate.plugins import draclaims
from dractl.simulate.plugins.extendedresources import (
    explain_cannot_fit,
    filter_extended,
    pre_filter_extended,
    reserve_special_claim,
    special_claim_model,
)
from dractl.simulate.plugins.nodeallocatable import NodeAllocatableCheck
from dractl.simulate.state import MAX_RESERVED_FOR, Reason

NAME = "DynamicResources"
# The allocator found no devices: the one verdict the PostFilter explains per node.
CANNOT_ALLOCATE = unresolvable("cannot allocate all claims", NAME)
NOT_AVAILABLE = unresolvable("resourceclaim not available on the node", NAME)
TIMED_OUT = "timed out trying to allocate devices"


class NodeAllocation:
    """What Filter found on one node where the pod fits (upstream's nodeAllocation): the
    allocation, and what only some pods have (class attributes until set)."""

    through_dra: tuple = ()     # extended requests served through DRA here (KEP-5004)
    special = None              # the special claim's model for this node
    native: dict | None = None  # node-allocatable amounts of the devices (KEP-5517)
    charges = None              # per-claim node-allocatable charges (1.37 statuses)

    def __init__(self, outcome) -> None:
        self.outcome = outcome  # AllocationOutcome, or None when nothing needed devices


class DRAState:
    """DynamicResources' cycle state (upstream's stateData). Class attributes are the state of a
    pod without claims; PreFilter sets the rest when the pod has some."""

    refs: list = []              # PodClaimRef of the pod
    pending: list = []           # ClaimState still to allocate, unique, pod order
    pending_models: list = []    # their ResourceClaim models (read-only)
    allocated: list = []         # ClaimState already allocated, unique
    extended: list = []          # ExtendedRequest the special claim may serve (KEP-5004)
    claimed = False              # PreFilter finished: the pod has claims (upstream's state.claims)
    constraints: object = None   # dractl's podgroup-constraints for this pod (once computed)
    constraints_known = False
    nodes: dict = {}             # node name -> NodeAllocation (a dict of its own once claimed)
    specials: dict = {}          # the special claim's model per set of requests (likewise)


def _unique(claims: list) -> list:
    seen, out = set(), []
    for c in claims:
        if id(c) not in seen:
            seen.add(id(c))
            out.append(c)
    return out


def consumer_of(result, ref) -> dict:
    """The reservedFor entry the pod's use of the claim writes (the PodGroup's for group claims)."""
    if ref.reserved_for == "podgroup" and result.group is not None:
        return result.group.reservation
    return {"resource": "pods", "name": result.pod.name, "uid": result.pod.uid}


def is_reserved(claim, consumer: dict) -> bool:
    return any(r.get("uid") == consumer["uid"] and r.get("resource") == consumer["resource"]
               for r in claim.reserved_for)


def _available_on(claim, node) -> bool:
    selector = claim.allocation.node_selector if claim.allocation else None
    if selector is None:
        return True
    try:
        return node_selector_matches(selector, node.info)
    except NodeSelectorError:
        return False


class DynamicResources(Plugin):
    name = NAME
    pod_fields = ("spec.containers[].resources", "spec.initContainers[].resources", "spec.resources",
                  "spec.overhead")

    def __init__(self, cluster) -> None:
        super().__init__(cluster)
        self.gates = cluster.gates
        version = cluster.gates.version
        self.all_pool_node_only = in_force("all_request_bad_pool_node_only", version)
        self.timeout_is_error = in_force("filter_timeout_is_error", version)
        self.has_score = in_force("prioritized_list_score", version)
        self.controller = ClaimController(cluster)
        self.native = NodeAllocatableCheck(cluster)

    # -- PreFilter: the claims (created from templates by the simulated controller; a claim that
    #    cannot be found keeps the pod out of the queue, PreEnqueue), the special claim for
    #    extended resources, then the checks no node can change. No claims: Skip.
    def pre_filter(self, state):
        dra = DRAState()
        state.write(NAME, dra)
        result = state.result
        try:
            refs = self.controller.resolve(state.pod, result)
            result.claims = refs
            draclaims.check_claims(self.cluster, state.pod, refs)
        except draclaims.SchedulingProblem as problem:
            return rejected(problem.reason, NAME).as_event()
        except ClaimProblem as problem:
            return rejected(problem.reason, NAME)
        claims = [r.claim for r in refs if r.claim is not None]
        dra.extended = pre_filter_extended(self.cluster, state.pod)
        if not claims and not dra.extended:
            return SKIP
        dra.refs = refs
        dra.pending = _unique([c for c in claims if c.allocation is None])
        dra.pending_models = [c.model for c in dra.pending]
        dra.allocated = _unique([c for c in claims if c.allocation is not None])
        dra.claimed, dra.nodes = True, {}
        if dra.extended:
            dra.specials = {}
        return None

    def cycle_key(self, state):
        # The verdicts depend on the claims' specs (dicts) and on the allocated claims'
        # allocations (their ids: an allocation object lives as long as its claim has it).
        dra = state.read(NAME)
        key = tuple([c.manifest.get("spec") for c in dra.pending] + [id(c.allocation) for c in dra.allocated])
        active = self.cluster.active_group_constraint  # dractl's podgroup-constraints extension
        return key if active is None else key + (active.key(),)

    # -- Filter, in upstream's order: the extended resources the node does not offer, the
    #    allocated claims' node selectors (remembered), the structured allocator for the claims
    #    still to allocate (its failure decides first), then the unavailable claims, then the
    #    node-allocatable resources of the devices. An allocator error is Error: it aborts the
    #    pod's attempt.
    def filter(self, state, node):
        dra = state.read(NAME)
        through_dra, special = (), None
        if dra.extended:
            status, through_dra = filter_extended(self.cluster, dra.extended, node.name)
            if status is not None:
                return status
            if through_dra:
                special = special_claim_model(dra.specials, state.pod, through_dra)
            elif not any(r.claim is not None for r in dra.refs):
                return None  # the device plugins serve everything; nothing left for DRA
        unavailable = bool(dra.allocated) and any(not _available_on(c, node) for c in dra.allocated)
        models = dra.pending_models if special is None else dra.pending_models + [special]
        outcome = None
        if models:
            outcome = self.cluster.allocator.allocate(node.info, models, timeout=self.cluster.options.timeout,
                                                      extra_constraints=self._group_constraints(state, dra))
            if not outcome.allocated:
                return self._allocation_failed(node, outcome)
        if unavailable:
            return NOT_AVAILABLE
        native = charges = None
        if self.native.enabled:
            status, native, charges = self.native.filter(dra, state.pod, node, outcome)
            if status is not None:
                return status
        if outcome is not None or native or through_dra:
            found = dra.nodes[node.name] = NodeAllocation(outcome)
            if through_dra:
                found.through_dra, found.special = through_dra, special
            if native:
                found.native, found.charges = native, charges
        return None

    def _allocation_failed(self, node, outcome) -> Status:
        if outcome.is_error:
            if outcome.timed_out:
                return self._timed_out(node)
            if outcome.node_failure or self._all_pool_unusable_on_node(outcome):
                return unresolvable(outcome.error or INVALID_POOLS_MESSAGE, NAME)
            return rejected(Reason(R.ALLOCATOR_ERROR, outcome.error or "allocation error",
                                   details=cel_error_details(outcome)), NAME, Code.ERROR)
        return CANNOT_ALLOCATE

    def _group_constraints(self, state, dra):
        """dractl's podgroup-constraints extension: the group's constraints in force for this
        pod's claims (computed once per cycle), or None."""
        active = self.cluster.active_group_constraint
        if active is None:
            return None
        if not dra.constraints_known:
            dra.constraints, dra.constraints_known = active.for_pod(state.pod, dra.refs), True
        return dra.constraints

    def _all_pool_unusable_on_node(self, outcome) -> bool:
        """1.38 (#141898): an `All` request meeting an incomplete or invalid pool on this node
        no longer fails the scheduling attempt; the node is unsuitable and other nodes are tried.
        Up to 1.37 it is an allocator error that aborts the attempt. (The allocator reports it
        only as a message; the phrase is its own, dractl/allocator/prepass.py.)"""
        if not self.all_pool_node_only or not outcome.error:
            return False
        return "asks for all devices, but resource pool" in outcome.error

    def _timed_out(self, node) -> Status:
        """DRASchedulerFilterTimeout. Before 1.36 a timeout made the node
        UnschedulableAndUnresolvable (other nodes were tried, the pod could end up "unschedulable");
        from 1.36 (#137607) it is an Error naming the node: the attempt fails and is retried
        with back-off."""
        if not self.timeout_is_error:
            return unresolvable(TIMED_OUT, NAME)
        return rejected(Reason(R.ALLOCATOR_ERROR, f"node {node.name}: {TIMED_OUT}"), NAME, Code.ERROR)

    # -- PostFilter: upstream would deallocate an allocated claim that is unavailable on some
    #    node and reserved by no other pod ("deallocation of ResourceClaim completed"; the dry
    #    run does not retry); dractl's explanation of each node where allocation failed, grouped
    #    by identical explanations.
    def post_filter(self, state, statuses, total):
        dra = state.read(NAME)
        if dra is None or not dra.claimed:
            return "no new claims to deallocate"
        self._explain(state, dra, statuses)
        state.explanation.extend(explain_cannot_fit(self.cluster, dra.extended, statuses))
        if self._deallocatable(state, dra, statuses):
            return "deallocation of ResourceClaim completed"
        return "still not schedulable"

    def _deallocatable(self, state, dra, statuses) -> bool:
        """PostFilter's choice: an unavailable claim reserved by nobody or only by this pod."""
        nodes = [self.cluster.node_by_name[n] for n, s in statuses.items() if s is NOT_AVAILABLE]
        uid = state.pod.uid
        for claim in dra.allocated:
            if not any(not _available_on(claim, node) for node in nodes):
                continue
            holders = claim.reserved_for
            if not holders or (len(holders) == 1 and holders[0].get("uid") == uid):
                return True
        return False

    def _explain(self, state, dra, statuses) -> None:
        result = state.result
        models = dra.pending_models
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
                                          self.cluster.shortcuts, state.key, self._group_constraints(state, dra))
            result.node_explanations[node_name] = lines
            result.node_devices[node_name] = devices
            per_node[node_name] = lines
        for lines, names in group_explanations(per_node):
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            state.explanation.append(f"{len(names)} node(s) ({shown}):")
            state.explanation.extend(f"  {line}" for line in lines)

    # -- Score: 1.35+ (#134711; 1.34 has no DRA score), 8 - index of the chosen subrequest per
    #    firstAvailable request (earlier alternatives are better).
    def scores(self, state):
        if not self.has_score:
            return False
        dra = state.read(NAME)
        return dra is not None and any(req.first_available for c in dra.pending for req in c.model.requests)

    def score(self, state, node):
        dra = state.read(NAME)
        found = dra.nodes.get(node.name)
        if found is None or found.outcome is None:
            return 0
        total = 0
        for claim, alloc in zip(dra.pending, found.outcome.results, strict=False):
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
        for claim in state.read(NAME).pending:
            for request in claim.model.requests:
                for index, sub in enumerate(request.first_available):
                    if self.cluster.allocator.could_match(sub.device_class_name, sub.selectors):
                        total += 8 - index
                        break
        return total

    # -- Reserve: the allocations are committed (the assume cache: later pods see the devices in
    #    use), the special claim is created, the pod's node-allocatable statuses are set.
    def reserve(self, state, node):
        dra = state.read(NAME)
        if dra is None or not dra.claimed:
            return None
        found = dra.nodes.get(node.name)
        if found is None:
            return None
        cluster = self.cluster
        if found.outcome is not None:
            for claim, allocation in zip(dra.pending, found.outcome.results, strict=False):
                cluster.commit_allocation(claim, allocation, node.name)
            if found.special is not None:
                reserve_special_claim(cluster, state.result, found.through_dra,
                                      found.outcome.results[-1], node.name)
        if found.charges:
            cluster.journal.set_item(state.pod.status, "nodeAllocatableResourceClaimStatuses",
                                     self.native.claim_statuses(dra, state.pod, found.charges))
        return None

    # -- PreBind: reservedFor of every claim (the API server refuses a 257th entry), then
    #    warnings about the placement (binding conditions, NoExecute taints that would evict).
    def pre_bind(self, state, node):
        dra = state.read(NAME)
        if dra is None or not dra.claimed:
            return None
        result = state.result
        for ref in result.claims:
            claim = ref.claim
            if claim is None:
                continue
            consumer = consumer_of(result, ref)
            if is_reserved(claim, consumer):
                continue  # two pod claims naming one claim: reserved once
            if len(claim.reserved_for) >= MAX_RESERVED_FOR:
                return rejected(draclaims.reserved_for_full(claim), NAME, Code.ERROR)
            self.cluster.reserve_claim(claim, consumer)
        for ref in result.claims:
            claim = ref.claim
            if claim is not None and claim.allocation is not None:
                draclaims.placement_warnings(self.cluster, result, claim)
        return None


def _invalid_pools(status) -> bool:
    """The node failed on invalid pools (upstream's message; dractl explains which and why)."""
    return status.plugin == NAME and status.reason == INVALID_POOLS_MESSAGE


# -- accessors for the scheduling loop and dractl's extensions --------------------------------
def pending_claims(state) -> list:
    """The pod's claims still to allocate (empty when DynamicResources skipped the pod)."""
    dra = state.read(NAME)
    return dra.pending if dra is not None else []


def pending_models(state) -> list:
    dra = state.read(NAME)
    return dra.pending_models if dra is not None else []


def assumed_resources(state, node_name: str) -> tuple[frozenset, dict]:
    """(the extended resources DRA serves on the node, the node-allocatable amounts of the
    pod's devices) for the assume step, like ExtractPodNodeAllocatableResourceClaimStatus."""
    dra = state.read(NAME)
    found = dra.nodes.get(node_name) if dra is not None else None
    if found is None or not (found.through_dra or found.native):
        return _NOTHING
    return frozenset(e.resource for e in found.through_dra), found.native or {}


_NOTHING: tuple[frozenset, dict] = (frozenset(), {})
