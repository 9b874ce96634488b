"""Consumable capacity: request policies, the capacity check and consumed amounts
(docs/spec/allocator.md#consumable-capacity)."""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from dractl.api.quantity import BINARY_SI, Quantity
from dractl.api.resource import (
    CapacityRequestPolicy,
    CapacityRequestPolicyRange,
    Device,
    DeviceCapacity,
)

# resource.MaxMilliValue: the largest value whose milli value fits an int64.
_MAX_MILLI_VALUE = (2 ** 63 - 1) // 1000


def _milli(q: Quantity) -> int:
    """resource.Quantity.MilliValue(): rounded up to a whole milli-unit."""
    return -(-q.value.numerator * 1000 // q.value.denominator)


def use_milli(rng: CapacityRequestPolicyRange, fractional: bool) -> bool:
    """1.37 (DRAFractionalCapacityRange, docs/spec/allocator.md#fractional-capacity-range): the
    range is evaluated in milli-units when the gate is on, every bound fits milli arithmetic, some
    of min/max/step is fractional (the default does not count here) and a step is at least 1m."""
    if not fractional:
        return False
    bounds = [q for q in (rng.min, rng.max, rng.step) if q is not None]
    if any(q.ceil_int() > _MAX_MILLI_VALUE for q in bounds):
        return False
    if not any(_milli(q) % 1000 for q in bounds):
        return False
    return rng.step is None or _milli(rng.step) >= 1


def _round_up_milli(requested: Quantity, rng: CapacityRequestPolicyRange) -> Quantity:
    """roundUpRange in milli-units: min + ceil((request - min) / step) * step."""
    v, lo, step = _milli(requested), _milli(rng.min), _milli(rng.step)
    n = -(-(v - lo) // step)
    total = lo + step * n
    return Quantity(Fraction(total, 1000), rng.step.format)

def _same_representation(a: Quantity, b: Quantity) -> bool:
    # Upstream compares the Go structs; the closest observable equivalent is value and format.
    return a.value == b.value and a.format == b.format


def consumed_amount(requested: Quantity | None, cap: DeviceCapacity, fractional: bool = False) -> Quantity:
    """What one allocation consumes of one capacity (docs/spec/allocator.md#request-policy).
    `fractional`: the DRAFractionalCapacityRange feature (milli-unit range arithmetic, see
    use_milli)."""
    policy = cap.request_policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return cap.value
    if policy is None:
        return requested
    rng = policy.valid_range
    if rng is not None and rng.min is not None:
        if requested < rng.min:
            return rng.min
        if rng.step is None:
            return requested
        if use_milli(rng, fractional):
            return _round_up_milli(requested, rng)
        v, lo, step = requested.ceil_int(), rng.min.ceil_int(), rng.step.ceil_int()
        if step <= 0:
            return requested
        # requested >= min, so added >= 0: n = ceil(added / step) on integers.
        n = -(-(v - lo) // step)
        return Quantity(lo + step * n, BINARY_SI)
    if policy.valid_values is not None:
        for valid in policy.valid_values:
            if requested <= valid:
                return valid
        return requested
    return requested


def violates_policy(amount: Quantity, policy: CapacityRequestPolicy | None, fractional: bool = False) -> bool:
    if policy is None:
        return False
    if policy.default is not None and _same_representation(amount, policy.default):
        return False
    rng = policy.valid_range
    if rng is not None:
        if rng.max is not None and amount > rng.max:
            return True
        if rng.step is not None and rng.min is not None and use_milli(rng, fractional):
            return (_milli(amount) - _milli(rng.min)) % _milli(rng.step) != 0
        if rng.step is not None:
            step = rng.step.ceil_int()
            if step > 0:
                lo = rng.min.ceil_int() if rng.min is not None else 0
                return (amount.ceil_int() - lo) % step != 0
            lo_v = rng.min.value if rng.min is not None else Fraction(0)
            return rng.step.value != 0 and (Fraction(amount.value - lo_v) / rng.step.value).denominator != 1
        return False
    if policy.valid_values:
        return not any(amount == v for v in policy.valid_values)
    return False


def qualified(name: str, driver: str) -> str:
    """The fully-qualified form of a capacity name: an unqualified one belongs to the driver."""
    return name if "/" in name else f"{driver}/{name}"


def requests_for_device(requests: Mapping[str, Quantity], caps: Mapping[str, DeviceCapacity],
                        driver: str) -> dict[str, Quantity] | None:
    """1.38 (#142202): the capacity requests keyed by the device's own capacity names, matching
    names by their fully-qualified form; None when a requested capacity is not on the device.
    Where a request (or a device) spells one capacity both ways, the fully-qualified spelling
    wins (upstream: "prefers fully-qualified"; before, whichever came last in map order)."""
    device_name: dict[str, str] = {}
    for name in caps:
        fqn = qualified(name, driver)
        if fqn not in device_name or "/" in name:
            device_name[fqn] = name
    wanted: dict[str, tuple[bool, Quantity]] = {}
    for key, amount in requests.items():
        fqn = qualified(key, driver)
        if fqn not in wanted or "/" in key:
            wanted[fqn] = ("/" in key, amount)
    out: dict[str, Quantity] = {}
    for fqn, (_, amount) in wanted.items():
        name = device_name.get(fqn)
        if name is None:
            return None
        out[name] = amount
    return out


def _committed_for_device(committed: Mapping[str, Fraction], driver: str) -> dict[str, Fraction]:
    """#142202: committed amounts by fully-qualified name, so a share recorded under one spelling
    counts against the capacity after the driver switched to the other."""
    out: dict[str, Fraction] = {}
    for name, amount in committed.items():
        fqn = qualified(name, driver)
        out[fqn] = out.get(fqn, Fraction(0)) + amount
    return out


def capacity_fits(requests: Mapping[str, Quantity] | None, device: Device,
                  committed: Mapping[str, Fraction] | None, inflight: Mapping[str, Fraction] | None,
                  fractional: bool = False, driver: str | None = None) -> bool:
    """The capacity check of docs/spec/allocator.md#capacity-check: False when a requested capacity
    is not defined on the device, an amount violates the device's request policy, or it does not fit
    next to what is consumed. `driver`: the device's driver when names are compared fully qualified
    (1.38, #142202); None compares them literally, as releases before 1.38 do."""
    caps = device.capacities
    if driver is not None:
        if requests:
            requests = requests_for_device(requests, caps, driver)
            if requests is None:
                return False
        if committed:
            committed = _committed_for_device(committed, driver)
    elif requests:
        for name in requests:
            if name not in caps:
                return False
    for name, cap in caps.items():
        amount = consumed_amount(requests.get(name) if requests else None, cap, fractional)
        if cap.request_policy is not None and violates_policy(amount, cap.request_policy, fractional):
            return False
        total = amount.value
        if committed:
            used = committed.get(qualified(name, driver) if driver is not None else name)
            if used:
                total = total + used
        if inflight:
            used = inflight.get(name)
            if used:
                total = total + used
        if total > cap.value.value:
            return False
    return True


def consumed_capacity(requests: Mapping[str, Quantity] | None, device: Device,
                      fractional: bool = False, driver: str | None = None) -> dict[str, Quantity]:
    """consumedCapacity recorded for a share: every capacity of the device
    (docs/spec/allocator.md#capacity-recorded), under the device's own names (upstream keeps the
    slice's spelling in results, #142202 included). `driver`: as for capacity_fits."""
    if driver is not None and requests:
        requests = requests_for_device(requests, device.capacities, driver) or {}
    return {name: consumed_amount(requests.get(name) if requests else None, cap, fractional)
            for name, cap in device.capacities.items()}
