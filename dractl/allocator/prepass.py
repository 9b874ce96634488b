"""The pre-pass of an allocation attempt (docs/spec/allocator.md#prepass): every request and
subrequest of every claim validated against the features and classes, turned into `RequestData`, and
the claims' constraints built. Errors here fail the whole attempt, before any device is looked
at."""

from __future__ import annotations

import sys
from typing import NamedTuple

from dractl.allocator.constraints import (
    Constraint,
    DistinctAttributeConstraint,
    MatchAttributeConstraint,
)
from dractl.allocator.errors import AllocationError
from dractl.allocator.features import STABLE
from dractl.allocator.pools import Candidate
from dractl.api.resource import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_RESULTS_MAX_SIZE,
    DeviceClass,
    DeviceRequest,
    ResourceClaim,
)

MAX_DEVICES = ALLOCATION_RESULTS_MAX_SIZE


def go_int(value: int) -> int:
    """`value` as Go's 64-bit int holds it: sums past the int range wrap around (two's complement).
    The snapshot's device-limit arithmetic is done in such ints (upstream #141323)."""
    return (value + 2 ** 63) % 2 ** 64 - 2 ** 63


class RequestIndex(NamedTuple):
    """Where a (sub)request sits: claim, request of the claim, subrequest of a firstAvailable
    request (None for a request without subrequests)."""

    claim: int
    request: int
    subrequest: int | None


class RequestData:
    """A request, or one subrequest of a firstAvailable request, ready for the search."""

    __slots__ = ("at", "name", "base", "sub", "result_name", "request", "cls", "class_selectors",
                 "selectors", "mode", "need", "all_devices", "admin", "tolerations", "cap_requests",
                 "verdicts", "last", "derived", "may_exceed")

    def __init__(self, at: RequestIndex, parent: DeviceRequest, request, cls: DeviceClass, class_selectors: tuple):
        self.at = at
        self.request = request
        in_sub = at.subrequest is not None
        self.name = request.name if in_sub else parent.name
        self.base = parent.name
        self.sub = request.name if in_sub else None
        self.result_name = f"{parent.name}/{request.name}" if in_sub else parent.name
        self.cls = cls
        self.class_selectors = class_selectors
        self.selectors = tuple([sel.cel_expression for sel in request.selectors]) if request.selectors else ()
        self.mode = request.allocation_mode
        self.need = 0
        self.all_devices: list[Candidate] | None = None
        self.admin = request.admin_access is True
        self.tolerations = request.tolerations
        self.cap_requests = request.capacity.requests if request.capacity is not None else None
        # Device -> fact verdict (checks.fact_verdict) for this request's shape; shared with every
        # request of the same shape, across calls (see checks.FactCache).
        self.verdicts: dict = {}
        # The last request of the last claim (or one of its subrequests): once it has all its
        # devices, the search is done.
        self.last = False
        # (name, expression) of the 1.37 derived attributes; filled by the pre-pass when the
        # DRADerivedAttributes feature is on (ignored otherwise, as a scheduler without the gate does).
        self.derived: tuple[tuple[str, str], ...] = ()
        # Whether picking this request's devices could take the claim over MAX_DEVICES, counting
        # the most devices the claim's earlier requests can have (the pre-pass sets it; the
        # search checks the limit only where it can be hit).
        self.may_exceed = True

    @property
    def label(self) -> str:
        return self.result_name

    @property
    def shape(self) -> tuple:
        """What the fact checks read of the request (see checks.FACT_CHECKS)."""
        return (self.class_selectors, self.selectors, self.tolerations)

    def __repr__(self) -> str:
        return f"RequestData({self.result_name}, at={tuple(self.at)})"


# RequestIndex objects by (claim, request, subrequest): the few positions there are, made once
# (a NamedTuple costs two calls to make, a dict look-up by subscript none).
_INDEXES: dict[tuple, RequestIndex] = {}


def _index(c: int, j: int, s: int | None) -> RequestIndex:
    key = (c, j, s)
    if key in _INDEXES:
        return _INDEXES[key]
    at = _INDEXES[key] = RequestIndex(c, j, s)
    return at


def prepare(search) -> None:
    """Fill `search.claim_reqs`, `search.constraints`, `search.results` and `search.class_config`
    (the claims with some class config).
    Raises AllocationError."""
    f = search.f
    check_features = not (f.prioritized_list and f.consumable_capacity)
    depth = 400    # recursion: a few levels per claim and request, two per device
    for c, claim in enumerate(search.claims):
        search.where = (c, None)
        entries: list = []
        lower_bound = 0
        most = 0        # the most devices the requests so far can take (see RequestData.may_exceed)
        class_config = False
        for j, req in enumerate(claim.requests):
            if check_features:
                _check_request_features(f, claim.ref, req)
            if req.first_available:
                subs = tuple([_request_data(search, _index(c, j, s), req, sub)
                              for s, sub in enumerate(req.first_available)])
                entries.append(subs)
                need = min([rd.need for rd in subs])
                for rd in subs:
                    rd.may_exceed = most + rd.need > MAX_DEVICES
                most += max([rd.need for rd in subs])
                class_config = class_config or any([rd.cls.config for rd in subs])
            elif req.exactly is not None:
                key = (c, j, None)
                rd = _request_data(search, _INDEXES[key] if key in _INDEXES else _index(c, j, None), req, req.exactly)
                entries.append(rd)
                need = rd.need
                rd.may_exceed = most + need > MAX_DEVICES
                most += need
                class_config = class_config or bool(rd.cls.config)
            else:
                raise AllocationError(f"resource claim {claim.ref}, request {req.name}: unknown request type")
            if 0 <= need <= MAX_DEVICES - lower_bound:
                lower_bound += need     # what _add_to_claim does with it, in either variant
            else:
                lower_bound = _add_to_claim(search, claim, req, lower_bound, need)
            depth += 3
        if not 0 <= lower_bound <= MAX_DEVICES:
            _check_claim_bound(claim, lower_bound)
        search.claim_reqs.append(entries)
        search.constraints.append(_constraints(search, claim) if claim.constraints else [])
        search.results.append([])
        if class_config:
            search.class_config.add(c)
        depth += 4 + 2 * MAX_DEVICES
    if search.claim_reqs and search.claim_reqs[-1]:
        last = search.claim_reqs[-1][-1]
        for rd in last if type(last) is tuple else (last,):
            rd.last = True
    if sys.getrecursionlimit() < depth:
        sys.setrecursionlimit(depth)


def _add_to_claim(search, claim: ResourceClaim, req: DeviceRequest, bound: int, need: int) -> int:
    """The claim's lower bound with one more request. From #141307 (1.38, and the latest patches of
    1.34-1.37) a request is checked against the room left in the claim, so no sum overflows and
    the error names the request (the wording after "request <name>:" is dractl's: the upstream
    text is not in the store). Before, the sum is a Go int that wraps."""
    if not search.compat.claim_limit_overflow_safe:
        return go_int(bound + need)
    if need > MAX_DEVICES - bound:
        raise AllocationError(f"claim {claim.ref}, request {req.name}: number of requested devices "
                              f"{bound + need} exceeds the claim limit of {MAX_DEVICES}")
    return bound + need


def _check_claim_bound(claim: ResourceClaim, bound: int) -> None:
    if bound > MAX_DEVICES:
        raise AllocationError(f"claim {claim.ref}: number of requested devices {bound} "
                              f"exceeds the claim limit of {MAX_DEVICES}")
    if bound < 0:
        # The snapshot sizes the claim's result list with the wrapped, negative sum: kube-scheduler
        # panics ("makeslice: cap out of range") and restarts (#141323). dractl reports it.
        raise AllocationError(f"claim {claim.ref}: kube-scheduler crashes (panic: runtime error: makeslice: "
                              "cap out of range): the device counts of the claim's requests add up past "
                              "the int range (fixed by upstream #141307)")


def _check_request_features(f, ref: str, req: DeviceRequest) -> None:
    if req.first_available and not f.prioritized_list:
        raise AllocationError(f"claim {ref}, request {req.name}: has subrequests, "
                              "but the DRAPrioritizedList feature is disabled")
    if not f.consumable_capacity:
        if req.exactly is not None and req.exactly.capacity is not None:
            raise AllocationError(f"claim {ref}, request {req.name}: has capacity requests, "
                                  "but the DRAConsumableCapacity feature is disabled")
        for sub in req.first_available:
            if sub.capacity is not None:
                raise AllocationError(f"claim {ref}, subrequest {sub.name}: has capacity requests, "
                                      "but the DRAConsumableCapacity feature is disabled")


def _constraints(search, claim: ResourceClaim) -> list[Constraint]:
    f = search.f
    out: list[Constraint] = []
    for i, con in enumerate(claim.constraints):
        if con.match_attribute is not None:
            out.append(MatchAttributeConstraint(con.requests, con.match_attribute, f.list_type_attributes))
        elif con.distinct_attribute is not None and search.variant != STABLE:
            out.append(DistinctAttributeConstraint(con.requests, con.distinct_attribute, f.list_type_attributes,
                                                   search.compat.distinct_all_devices))
        else:
            raise AllocationError(f"claim {claim.ref}, constraint #{i}: empty constraint "
                                  "(unsupported constraint type?)")
    return out


def _request_data(search, at: RequestIndex, parent: DeviceRequest, request) -> RequestData:
    name = request.name if at.subrequest is not None else parent.name
    for i, sel in enumerate(request.selectors):
        if sel.cel_expression is None:
            raise AllocationError(f"claim {search.claims[at.claim].ref}, request {name}, selector #{i}: "
                                  "CEL expression empty (unsupported selector type?)")
    if request.admin_access is not None and not search.f.admin_access:
        raise AllocationError(f"claim {search.claims[at.claim].ref}, request {name}: admin access is requested, "
                              "but the feature is disabled")
    class_name = request.device_class_name
    if not class_name:
        raise AllocationError(f"claim {search.claims[at.claim].ref}, request {name}: missing device class name "
                              "(unsupported request type?)")
    classes = search.inventory.classes
    cls = classes[class_name] if class_name in classes else None
    if cls is None:
        raise AllocationError(f"claim {search.claims[at.claim].ref}, request {name}: could not retrieve device "
                              f"class {class_name}: deviceclass.resource.k8s.io \"{class_name}\" not found")
    rd = RequestData(at, parent, request, cls, search.inventory.class_selectors[class_name])
    if search.f.derived_attributes and request.derived_attributes:
        rd.derived = tuple((d.name, d.expression) for d in request.derived_attributes)
    if search.shortcuts:
        table = search.fact_table
        shape = rd.shape
        if shape in table:
            verdicts = table[shape]
        else:
            verdicts = table[shape] = {}
        rd.verdicts = verdicts
    if rd.mode == ALLOCATION_MODE_EXACT_COUNT:
        rd.need = request.count
    elif rd.mode == ALLOCATION_MODE_ALL:
        search.all_requests = True
        search.where = (at.claim, rd)
        rd.all_devices = _all_devices(search, rd)
        rd.need = len(rd.all_devices)
    else:
        raise AllocationError(f"claim {search.claims[at.claim].ref}, request {name}: "
                              f"unsupported count mode {rd.mode}")
    return rd


def _all_devices(search, rd: RequestData) -> list[Candidate]:
    """Every device of the node's pools that the request could use on its own
    (docs/spec/allocator.md#exact-count)."""
    ref = search.claims[rd.at.claim].ref
    for pool in search.np.pools:
        if pool.incomplete:
            raise AllocationError(f"claim {ref}, request {rd.name}: asks for all devices, "
                                  f"but resource pool {pool.id_str} is currently being updated")
        if pool.invalid:
            raise AllocationError(f"claim {ref}, request {rd.name}: asks for all devices, "
                                  f"but resource pool {pool.id_str} is currently invalid")
    out = []
    for cand in search.cands:
        search.check_deadline()
        if search.selectable(rd, cand) and search.capacity_alone(rd, cand):
            out.append(cand)
    return out
