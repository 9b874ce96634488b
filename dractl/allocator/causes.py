"""What exactly made a device fail a check, for explanations (dractl's own; upstream's allocator
only says "cannot allocate all claims"). Built on the failure path only, never by the search.

Each builder gets (search, rd, cand, error) and returns a `Cause` or None. The texts name the
object that causes the rejection: the taint and where it comes from, the capacity that is missing
or short, the counter that is exhausted, the selector that is false, the pool that is invalid.
"""

from __future__ import annotations

import json
from fractions import Fraction

from dractl.allocator import reasons as R
from dractl.allocator.capacity import consumed_amount, violates_policy
from dractl.allocator.celglue import CelFailure
from dractl.allocator.results import Cause
from dractl.allocator.taints import untolerated_taint
from dractl.api.quantity import Quantity
from dractl.suggest import closest_match

# Long CEL expressions are cut in explanation lines (the manifest has them whole).
_MAX_EXPRESSION = 120
_MAX_LISTED = 8


def taint_text(taint) -> str:
    """`key=value:Effect` (kubectl's notation for taints), `key:Effect` without a value."""
    return (f"{taint.key}={taint.value}" if taint.value else taint.key) + f":{taint.effect}"


def toleration_yaml(taint) -> str:
    """A `tolerations` list entry (YAML flow style, strings JSON-quoted) admitting `taint`."""
    fields = [("key", taint.key)]
    if taint.value:
        fields += [("operator", "Equal"), ("value", taint.value)]
    else:
        fields.append(("operator", "Exists"))
    fields.append(("effect", taint.effect))
    return "- {" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in fields) + "}"


def _listed(names) -> str:
    names = list(names)
    shown = ", ".join(names[:_MAX_LISTED])
    return shown + (f" and {len(names) - _MAX_LISTED} more" if len(names) > _MAX_LISTED else "")


def _quantity(value, like: Quantity) -> str:
    return Quantity(Fraction(value), like.format).canonical()


# -- per-device causes ------------------------------------------------------------------------------

def _tainted(search, rd, cand, error) -> Cause | None:
    taint = untolerated_taint(cand.device.taints, rd.tolerations)
    if taint is None:
        return None
    rule = next((r for r in getattr(search.inventory, "taint_rules", ()) if r.taint is taint), None)
    source = ("DeviceTaintRule", rule.name) if rule is not None else ("ResourceSlice", cand.slice.name)
    return Cause(f"taint {taint_text(taint)}", source,
                 ("tolerated by this entry of the request's tolerations:", toleration_yaml(taint)),
                 item=() if rule is not None else ("taint", cand.device.name, taint))


def _capacity(search, rd, cand, error) -> Cause | None:
    dev = cand.device
    requests = rd.cap_requests or {}
    caps = dev.capacities
    for name in sorted(requests):
        if name not in caps:
            published = f"it publishes {_listed(sorted(caps))}" if caps else "it publishes no capacity"
            hint = closest_match(name, caps)
            return Cause(f"the device publishes no capacity {name} ({published}"
                         + (f"; did you mean {hint}?" if hint else "") + ")")
    fractional = search.f.fractional_capacity_range
    committed = search.state.committed_capacity(cand.id) or {}
    for name in sorted(caps):
        cap = caps[name]
        amount = consumed_amount(requests.get(name), cap, fractional)
        if cap.request_policy is not None and violates_policy(amount, cap.request_policy, fractional):
            return Cause(f"capacity {name}: {amount.canonical()} is not allowed by the device's "
                         f"requestPolicy ({_policy_text(cap.request_policy)})")
        used = committed.get(name, 0)
        if amount.value + used > cap.value.value:
            return Cause(f"capacity {name}: needs {amount.canonical()}, "
                         f"{_quantity(max(cap.value.value - used, 0), cap.value)} of "
                         f"{cap.value.canonical()} left", users=bool(used))
    return Cause("capacity fits on its own, but not next to this pod's other requests for the device")


def _policy_text(policy) -> str:
    parts = []
    rng = policy.valid_range
    if rng is not None:
        bounds = [f"{label} {q.canonical()}" for label, q in (("min", rng.min), ("max", rng.max),
                                                                ("step", rng.step)) if q is not None]
        parts.append("validRange " + ", ".join(bounds))
    if policy.valid_values:
        parts.append("validValues " + ", ".join(q.canonical() for q in policy.valid_values))
    if policy.default is not None:
        parts.append(f"default {policy.default.canonical()}")
    return "; ".join(parts) or "no policy"


def _counters(search, rd, cand, error) -> Cause | None:
    book = search.counters
    if book is None:
        return None
    avail = book.availability(cand.pool)
    for cc in cand.device.consumes_counters:
        left_in_set = avail.get(cc.counter_set, {})
        for name in sorted(cc.counters):
            need = cc.counters[name]
            left = left_in_set.get(name, 0)
            if left < need.value:
                return Cause(f"counter {name} of counter set {cc.counter_set} (pool {cand.pool.id_str}): "
                             f"needs {need.canonical()}, {_quantity(max(left, 0), need)} left")
    for set_name, counters in sorted(avail.items()):
        for name, left in sorted(counters.items()):
            if left < 0:
                return Cause(f"counter {name} of counter set {set_name} (pool {cand.pool.id_str}) is "
                             "over-committed; no device consuming the pool's counters can be allocated")
    return Cause("counters fit on their own, but not next to this pod's other requests "
                 f"(pool {cand.pool.id_str})")


def _selector_false(search, rd, cand, error, of_class: bool) -> Cause | None:
    expressions = rd.class_selectors if of_class else rd.selectors
    owner = f"class {rd.cls.name}" if of_class else "request"
    for i, expr in enumerate(expressions or ()):
        try:
            if expr is not None and not search.engine.matches(expr, cand.device):
                return Cause(f"{owner} selector #{i}: {_short(expr)}")
        except Exception:  # noqa: BLE001 - an error is reported by its own reason
            return None
    return None


def _short(expression: str) -> str:
    one_line = " ".join(expression.split())
    return one_line if len(one_line) <= _MAX_EXPRESSION else one_line[:_MAX_EXPRESSION - 3] + "..."


def _selector_error(search, rd, cand, error) -> Cause | None:
    failure = getattr(error, "cause", None)
    if isinstance(failure, CelFailure):
        return Cause(cel_failure_text(failure, with_device=False, with_owner=failure.owner.startswith("class ")))
    return Cause(str(error)) if error is not None else None


def cel_failure_text(failure: CelFailure, with_device: bool = True, with_owner: bool = True) -> str:
    """`<owner> selector #i[ on device D]: <error>; the device publishes ...; did you mean X?`
    (without the owner: `request selector #i`)."""
    dev = failure.device
    message = str(getattr(failure.error, "message", failure.error))
    where = f" on device {dev.id_str}" if with_device else ""
    owner = failure.owner if with_owner else "request"
    text = f"{owner} selector #{failure.index}{where}: {message}"
    missing = message[len("no such key: "):].strip() if message.startswith("no such key: ") else None
    if missing is None:
        return text
    return f"{text}; {absent_key_text(missing, dev, 'this device')}"


def absent_key_text(missing: str, dev, device_text: str) -> str:
    """`K is absent from <device>, which publishes attributes ...; did you mean X?`"""
    names = published_attributes(dev)
    hint = closest_match(missing, sorted({n.rpartition("/")[2] for n in names} | set(names)
                                         | {n.rpartition("/")[0] for n in names} | set(dev.capacities)))
    published = f"attributes {_listed(names)}" if names else "no attributes"
    if dev.capacities:
        published += f", capacities {_listed(sorted(dev.capacities))}"
    return (f"{missing} is absent from {device_text}, which publishes {published}"
            + (f"; did you mean {hint}?" if hint and hint != missing else ""))


def published_attributes(dev) -> list[str]:
    """Fully qualified attribute names (a name without a domain belongs to the driver's)."""
    return sorted(name if "/" in name else f"{dev.driver}/{name}" for name in dev.attributes)


def _node_mismatch(search, rd, cand, error) -> Cause | None:
    dev = cand.device
    if dev.node_name:
        return Cause(f"the device is on node {dev.node_name} (spec.devices[].nodeName)")
    if dev.node_selector is not None:
        return Cause(f"the device's nodeSelector does not select node {search.node.name}")
    return Cause("the device names no node", ("ResourceSlice", cand.slice.name))


def _binding(search, rd, cand, error) -> Cause | None:
    return Cause("binding conditions " + ", ".join(cand.device.binding_conditions or ()))


def _counters_disabled(search, rd, cand, error) -> Cause | None:
    return Cause("consumes counter set(s) " + ", ".join(sorted({cc.counter_set for cc in
                                                                cand.device.consumes_counters})))


def _constraint(search, rd, cand, error) -> Cause | None:
    claim = search.claims[rd.at.claim]
    named: list[str] = []
    for con in claim.constraints:
        if con.requests and rd.base not in con.requests:
            continue
        kind, attr = ("matchAttribute", con.match_attribute) if con.match_attribute \
            else ("distinctAttribute", con.distinct_attribute)
        scope = f" of requests {', '.join(con.requests)}" if con.requests else " of all requests"
        named.append(f"{kind} {attr}{scope}")
    if search.extra_constraints is not None:
        named.append("the PodGroup's device constraints (dractl's podgroup-constraints extension)")
    # The reason's own text already says "violates a claim constraint": name which one.
    return Cause("; ".join(named) or "a constraint without requests in common")


def _compatibility(search, rd, cand, error) -> Cause | None:
    groups = sorted({g for cc in cand.device.consumes_counters for g in cc.compatibility_groups})
    sets = sorted({cc.counter_set for cc in cand.device.consumes_counters})
    return Cause(f"compatibility groups {', '.join(groups) or '(none)'} conflict with devices allocated "
                 f"on counter set {', '.join(sets)} (pool {cand.pool.id_str})")


def _allocating(search, rd, cand, error) -> Cause | None:
    """The other (sub)requests of this attempt that could take the same device."""
    from dractl.allocator.checks import static_reason
    rivals = []
    for entries in search.claim_reqs:
        for entry in entries:
            for other in (entry if type(entry) is tuple else (entry,)):
                if other is not rd and other.result_name not in rivals and static_reason(search, other, cand) is None:
                    rivals.append(other.result_name)
    return Cause(f"also wanted by request{'s' if len(rivals) > 1 else ''} {', '.join(rivals)}") if rivals else None


_BUILDERS = {
    R.ALLOCATING: _allocating,
    R.TAINTED: _tainted,
    R.CAPACITY: _capacity,
    R.COUNTERS: _counters,
    R.CLASS_SELECTOR: lambda s, rd, c, e: _selector_false(s, rd, c, e, True),
    R.REQUEST_SELECTOR: lambda s, rd, c, e: _selector_false(s, rd, c, e, False),
    R.SELECTOR_ERROR: _selector_error,
    R.NODE_MISMATCH: _node_mismatch,
    R.BINDING_CONDITIONS: _binding,
    R.COUNTERS_DISABLED: _counters_disabled,
    R.CONSTRAINT: _constraint,
    R.COMPATIBILITY_GROUPS: _compatibility,
    R.IN_USE: lambda s, rd, c, e: Cause("", users=True),
}


def device_cause(search, rd, cand, reason: str, error: Exception | None) -> Cause | None:
    builder = _BUILDERS.get(reason)
    if builder is None:
        return None
    try:
        return builder(search, rd, cand, error)
    except Exception:  # noqa: BLE001 - a missing detail must never break an explanation
        return None


# -- causes of unusable pools and blocked slices ----------------------------------------------------

def pool_cause(search, pool) -> Cause:
    """Why an unusable pool is unusable: which slices are seen against the count declared, or
    which device / slice / counter set makes it invalid."""
    all_slices = search.inventory.slices_of_pool(pool.id) if hasattr(search.inventory, "slices_of_pool") \
        else pool.unusable_slices
    if pool.incomplete:
        first = pool.unusable_slices[0] if pool.unusable_slices else None
        generation = first.pool.generation if first is not None else 0
        declared = first.pool.resource_slice_count if first is not None else 0
        same = sorted(s.name for s in all_slices if s.pool.generation == generation)
        return Cause(f"pool {pool.id_str}: {len(same)} of {declared} ResourceSlice(s) of "
                     f"generation {generation} exist ({_listed(same) or 'none'}); the pool is being updated "
                     "or slices are missing from the inventory", item=("pool", pool.driver, pool.name))
    same_gen = [s for s in all_slices if not pool.unusable_slices
                or s.pool.generation == pool.unusable_slices[0].pool.generation] or list(pool.unusable_slices)
    detail, source = _invalid_detail(pool.invalid_reason, same_gen)
    return Cause(f"pool {pool.id_str}: {pool.invalid_reason}" + (f" ({detail})" if detail else ""),
                 source, item=("pool", pool.driver, pool.name))


def _invalid_detail(reason: str, slices) -> tuple[str, tuple | None]:
    defined = sorted({cs.name for sl in slices for cs in sl.shared_counters})
    if reason.startswith("counter set ") and reason.endswith(" not found"):
        wanted = reason[len("counter set "):-len(" not found")]
        for sl in sorted(slices, key=lambda s: s.name):
            for dev in sl.devices:
                if any(cc.counter_set == wanted for cc in dev.consumes_counters):
                    return (f"device {dev.name} of ResourceSlice {sl.name} consumes counter set {wanted}, "
                            "which no ResourceSlice of the pool defines; the pool defines "
                            + (_listed(defined) if defined else "no counter sets")), ("ResourceSlice", sl.name)
    if reason.startswith("counter ") and " not found in counter set " in reason:
        counter, _, set_name = reason[len("counter "):].partition(" not found in counter set ")
        for sl in sorted(slices, key=lambda s: s.name):
            for dev in sl.devices:
                if any(cc.counter_set == set_name and counter in cc.counters for cc in dev.consumes_counters):
                    return (f"device {dev.name} of ResourceSlice {sl.name} consumes it"), ("ResourceSlice", sl.name)
    for prefix, holds in (("duplicate device name ", lambda sl, n: any(d.name == n for d in sl.devices)),
                          ("duplicate counter set name ", lambda sl, n: any(c.name == n for c in sl.shared_counters))):
        if reason.startswith(prefix):
            name = reason[len(prefix):]
            where = sorted(sl.name for sl in slices if holds(sl, name))
            if not where:
                return "", None
            text = f"in ResourceSlices {_listed(where)}" if len(where) > 1 else f"twice in ResourceSlice {where[0]}"
            return text, ("ResourceSlice", where[0])
    return "", None


def node_operations_cause(search, dev) -> Cause:
    """The slice that skips node operations this node does not support."""
    for pool in search.np.pools:
        for sl in pool.slices:
            if sl.name == dev.slice_name and sl.pool.name == dev.pool and sl.driver == dev.driver:
                skipped = ", ".join(sl.skip_node_operations or ())
                return Cause(f"ResourceSlice {sl.name} sets skipNodeOperations {skipped}; node {search.node.name} does not declare DRAOptionalNodeOperations "
                             "(or the gate is off)", ("ResourceSlice", sl.name))
    return Cause("its slice sets skipNodeOperations")
