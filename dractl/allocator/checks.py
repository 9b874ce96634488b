"""The per-device checks of an allocation attempt, in one ordered list
(docs/spec/allocator.md#selectability, docs/spec/allocator.md#search-order-and-limit,
#allocate-device). The search applies them in this order; the explanation names, for a device, the
first one it fails.

Each check is either
* a *fact*: its result depends only on the device, the request's shape (class selectors, request
  selectors, tolerations), the allocator's features and the CEL engine. Facts are computed once per
  (device, request shape) and reused by every pod and node (`FactCache`); or
* a *state* check: it reads the allocated state or what this attempt has picked so far, so it is
  evaluated each time. The search applies some of them only inside its own loop (`test` is None):
  their rejections reach explanations through the search's recorder.

Errors: a fact or state check may raise `AllocationError` (a CEL error in a selector, a node
selector that cannot be parsed); the search stops with it, an explanation reports `error_reason`.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from dractl.allocator import reasons as R
from dractl.allocator.capacity import capacity_fits
from dractl.allocator.celglue import selector_error
from dractl.allocator.errors import AllocationError
from dractl.allocator.nodes import NodeSelectorError, node_matches
from dractl.allocator.taints import untolerated_taint

PASS = ""   # the verdict of a device that passes every fact check (falsy, unlike a reason code)


class DeviceCheck(NamedTuple):
    reason: str                                   # reason code when the device fails the check
    test: Callable | None                         # (search, rd, cand) -> True when the device passes
    fact: bool                                    # cacheable per (device, request shape)
    error_reason: str | None = None               # what an explanation reports when `test` raises


# -- the checks ------------------------------------------------------------------------------------

def not_in_use(search, rd, cand) -> bool:
    """Exclusively allocated to some claim of the cluster (admin access may share it)."""
    return rd.admin or not search.state.is_allocated(cand.id)


def binding_supported(search, rd, cand) -> bool:
    return not (cand.device.binding_conditions and not search.f.device_binding_and_status)


def selectors_match(search, expressions, dev, owner: str) -> bool:
    """All `expressions` true for `dev`; CEL errors become upstream's allocation errors."""
    matches = search.engine.matches
    for i, expr in enumerate(expressions):
        if expr is None:
            raise AllocationError(f"{owner}: selector #{i}: CEL expression empty (unsupported selector type?)")
        try:
            ok = matches(expr, dev)
        except Exception as exc:
            err = selector_error(exc, owner, i, dev)
            if err is None:
                raise
            raise err from None
        if not ok:
            return False
    return True


def class_selectors_match(search, rd, cand) -> bool:
    return not rd.class_selectors or selectors_match(search, rd.class_selectors, cand.device,
                                                     f"class {rd.cls.name}")


def request_selectors_match(search, rd, cand) -> bool:
    return not rd.selectors or selectors_match(search, rd.selectors, cand.device,
                                               f"claim {search.claims[rd.at.claim].ref}")


def on_node(search, rd, cand) -> bool:
    """Per-device node selection admits the node (other devices were gathered for it)."""
    if not cand.per_device_node_selection:
        return True
    dev = cand.device
    try:
        return node_matches(search.node, dev.node_name, dev.all_nodes, dev.node_selector)
    except NodeSelectorError as exc:
        raise AllocationError(str(exc)) from None


def capacity_alone(search, rd, cand) -> bool:
    """Consumable capacity fits next to what the allocated state consumes (the search also
    counts what this attempt has picked)."""
    return not search.f.consumable_capacity or capacity_fits(
        rd.cap_requests, cand.device, search.state.committed_capacity(cand.id), None,
        search.f.fractional_capacity_range, search.capacity_driver(cand))


def counters_supported(search, rd, cand) -> bool:
    return not (cand.device.consumes_counters and not search.f.partitionable_devices)


def counters_alone(search, rd, cand) -> bool:
    """The device's counters fit what the allocated state leaves (the search also counts what
    this attempt has consumed)."""
    return not cand.device.consumes_counters or search.counters.fits_alone(cand)


def tolerated(search, rd, cand) -> bool:
    dev = cand.device
    return not (search.f.device_taints and dev.taints and untolerated_taint(dev.taints, rd.tolerations) is not None)


# The order of the search. `allocate_device` in search.py applies the entries from
# COUNTERS_DISABLED on in this order; everything before CAPACITY decides whether a device is
# selectable at all.
DEVICE_CHECKS: tuple[DeviceCheck, ...] = (
    DeviceCheck(R.IN_USE, not_in_use, False),
    DeviceCheck(R.ALLOCATING, None, False),
    DeviceCheck(R.BINDING_CONDITIONS, binding_supported, True),
    DeviceCheck(R.CLASS_SELECTOR, class_selectors_match, True, R.SELECTOR_ERROR),
    DeviceCheck(R.REQUEST_SELECTOR, request_selectors_match, True, R.SELECTOR_ERROR),
    DeviceCheck(R.NODE_MISMATCH, on_node, False, R.NODE_MISMATCH),
    DeviceCheck(R.CAPACITY, capacity_alone, False),
    DeviceCheck(R.COUNTERS_DISABLED, counters_supported, True),
    DeviceCheck(R.COUNTERS, counters_alone, False),
    DeviceCheck(R.TAINTED, tolerated, True),
    DeviceCheck(R.CONSTRAINT, None, False),
)

FACT_CHECKS = tuple(check for check in DEVICE_CHECKS if check.fact)
_CAPACITY_AT = [check.reason for check in DEVICE_CHECKS].index(R.CAPACITY)
# Fact verdicts that make a device unselectable (the search skips it before touching any state).
UNSELECTABLE = frozenset(check.reason for check in DEVICE_CHECKS[:_CAPACITY_AT] if check.fact)


def fact_verdict_in_order(search, rd, cand) -> str:
    """The first fact check `cand` fails for `rd`, or PASS. Raises AllocationError."""
    for check in FACT_CHECKS:
        if not check.test(search, rd, cand):
            return check.reason
    return PASS


def fact_verdict(search, rd, cand) -> str:
    """fact_verdict_in_order with the checks written out, in the same order: a dry run computes a
    verdict for each new device it meets, and the loop costs a call per check. The search uses
    the loop on its plain path (shortcuts off), so the differential tests compare the two."""
    dev = cand.device
    f = search.f
    if dev.binding_conditions and not f.device_binding_and_status:
        return R.BINDING_CONDITIONS
    if rd.class_selectors and not selectors_match(search, rd.class_selectors, dev, f"class {rd.cls.name}"):
        return R.CLASS_SELECTOR
    if rd.selectors and not selectors_match(search, rd.selectors, dev, f"claim {search.claims[rd.at.claim].ref}"):
        return R.REQUEST_SELECTOR
    if dev.consumes_counters and not f.partitionable_devices:
        return R.COUNTERS_DISABLED
    if f.device_taints and dev.taints and untolerated_taint(dev.taints, rd.tolerations) is not None:
        return R.TAINTED
    return PASS


def static_reason(search, rd, cand) -> str | None:
    """The first check, in search order, that `cand` fails for `rd` on its own (state checks
    against the allocated state only); None when it passes them all."""
    for check in DEVICE_CHECKS:
        if check.test is None:
            continue
        try:
            if not check.test(search, rd, cand):
                return check.reason
        except Exception:  # noqa: BLE001 - an explanation reports any evaluation failure as such
            return check.error_reason or check.reason
    return None


# -- reuse across pods and nodes (dractl's own) ------------------------------------------------------

class FactCache:
    """Fact verdicts per request shape and device, shared by every allocation that sees the same
    devices: across pods, nodes, and Allocator instances built on the same slice objects.

    Keyed safely: `table(prefix)` is one table per (CEL engine, allocator features), where the
    engine is its identity or, for the engine the Allocator builds from feature gates, the gates'
    full key; a table maps the request shape (class selectors, request selectors, tolerations) to
    a dict keyed by the Device object itself (identity), which the cache keeps alive. A device
    rebuilt by a DeviceTaintRule is a new object, so it never sees the verdict of the untainted
    one. Errors are never cached.

    Bounded: once more than `max_entries` verdicts were computed, every table is emptied in place
    (holders of a table keep a valid, empty one)."""

    def __init__(self, max_entries: int = 500_000):
        self.max_entries = max_entries
        self.computed = 0
        self._tables: dict[tuple, dict] = {}

    def table(self, prefix: tuple) -> dict:
        """request shape -> {Device: verdict}, for one (engine key, features)."""
        table = self._tables.get(prefix)
        if table is None:
            table = self._tables[prefix] = {}
        return table

    def store(self, verdicts: dict, device, verdict: str) -> None:
        """Record a computed verdict in `verdicts` (a dict of some table)."""
        self.computed += 1
        if self.computed > self.max_entries:
            self.clear()
        verdicts[device] = verdict

    def clear(self) -> None:
        for table in self._tables.values():
            for verdicts in table.values():
                verdicts.clear()
            table.clear()
        self.computed = 0


SHARED_FACTS = FactCache()
