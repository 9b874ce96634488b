"""The ``device`` variable exactly as Kubernetes builds it (dynamic-resource-allocation/cel).

* attribute/capacity names split at the first ``/``; names without a domain go to the driver's
  domain (``parseQualifiedName``);
* attribute values: int, bool, string, version (-> Semver, strict parse), list-typed values as
  lists (DRAListTypeAttributes; see :func:`list_attributes_exposed`);
* an attribute without a supported value, or with an unparsable version, makes *every* evaluation
  on that device fail (``attribute <name>: unsupported attribute value`` /
  ``attribute <name>: parse semantic version: ...``) — the conversion happens per evaluation
  upstream, before the expression runs;
* capacity values become Quantities;
* ``device.attributes[...]``/``device.capacity[...]`` yield an empty map for an unknown domain;
* ``allowMultipleAllocations`` defaults to false.
"""

from __future__ import annotations

from typing import Any, Hashable, Mapping, Protocol, runtime_checkable

# API limits the static cost estimate relies on.
from dractl.api.limits import (
    ATTR_VALUE_MAX_LENGTH,
    ATTRS_AND_CAPACITY_MAX,
    C_IDENTIFIER_MAX,
    DOMAIN_MAX,
    DRIVER_NAME_MAX,
)
from dractl.api.quantity import Quantity
from dractl.api.releases import in_force
from dractl.api.values import LIST_TYPES, AttributeValue
from dractl.api.versions import FeatureGates

from .k8stypes import CelQuantity, Semver, SemverError
from .values import DefaultMap, EvalError


@runtime_checkable
class CelDevice(Protocol):
    key: Hashable
    driver: str
    attributes: Mapping[str, AttributeValue | None]
    capacity: Mapping[str, Quantity]
    allow_multiple_allocations: bool


def split_name(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    if not sep:
        return driver, name
    return domain, ident


def list_attributes_exposed(gates: FeatureGates) -> bool:
    """Whether list-typed attribute values reach CEL.

    Release switches (dractl/api/releases.py): `list_attributes_ungated_in_cel` (1.37, the
    snapshot converts them whatever the gate says: compile_test runs the list cases with the gate
    on and off); `list_attribute_values` (1.36: only with DRAListTypeAttributes in the compiler
    features); older versions do not know the fields at all (``unsupported attribute value``).
    """
    version = gates.version
    if in_force("list_attributes_ungated_in_cel", version):
        return True
    if not in_force("list_attribute_values", version):
        return False
    return gates.enabled("DRAListTypeAttributes")


class Activation:
    """One device converted for CEL: built once per device and reused by every selector."""

    __slots__ = ("env", "error", "oversized")

    def __init__(self, env: dict | None, error: EvalError | None, oversized: bool):
        self.env = env
        self.error = error
        self.oversized = oversized


def _convert(name: str, av: AttributeValue | None, lists: bool) -> Any:
    if av is None or not isinstance(av, AttributeValue):
        raise EvalError(f"attribute {name}: unsupported attribute value")
    t, v = av.type, av.value
    if t in LIST_TYPES:
        if not lists:
            raise EvalError(f"attribute {name}: unsupported attribute value")
        if t == "versions":
            out = []
            for x in v:  # type: ignore[union-attr]
                try:
                    out.append(Semver.parse(str(x)))
                except SemverError as e:
                    raise EvalError(f"attribute {name}: parse semantic version: {e}") from None
            return tuple(out)
        return tuple(v)  # type: ignore[arg-type]
    if t == "version":
        try:
            return Semver.parse(str(v))
        except SemverError as e:
            raise EvalError(f"attribute {name}: parse semantic version: {e}") from None
    if t == "int":
        if type(v) is bool or not isinstance(v, int):
            raise EvalError(f"attribute {name}: unsupported attribute value")
        return int(v)
    if t == "bool":
        return bool(v)
    if t == "string":
        return str(v)
    raise EvalError(f"attribute {name}: unsupported attribute value")


_PLAIN = (str, int, bool)


def content_key(device: CelDevice) -> tuple | None:
    """Everything build_activation reads from a device, as a hashable key (types included, so
    that True and 1 or 1 and 1.0 never share one); None for values of other types, which then
    get an activation of their own."""
    parts: list = [type(device.driver), device.driver,
                   bool(getattr(device, "allow_multiple_allocations", False))]
    for name, av in (device.attributes or {}).items():
        if av is None:
            parts.append((name, None))
            continue
        if type(av) is not AttributeValue:
            return None
        value = av.value
        kind = type(value)
        if kind is tuple:
            if any(type(x) not in _PLAIN for x in value):
                return None
            value = tuple((type(x), x) for x in value)
        elif kind not in _PLAIN:
            return None
        parts.append((name, av.type, kind, value))
    parts.append("capacity")
    for name, q in (device.capacity or {}).items():
        if type(q) is not Quantity:
            return None
        parts.append((name, type(q.value), q.value, q.format))
    return tuple(parts)


def build_activation(device: CelDevice, gates: FeatureGates) -> Activation:
    lists = list_attributes_exposed(gates)
    driver = device.driver or ""
    attributes: dict[str, dict] = {}
    oversized = len(driver) > DRIVER_NAME_MAX
    error: EvalError | None = None
    attrs = device.attributes or {}
    caps = device.capacity or {}
    if len(attrs) + len(caps) > ATTRS_AND_CAPACITY_MAX:
        oversized = True
    for name, av in attrs.items():
        try:
            value = _convert(name, av, lists)
        except EvalError as e:
            if error is None:
                error = e
            continue
        domain, ident = split_name(name, driver)
        if len(domain) > DOMAIN_MAX or len(ident) > C_IDENTIFIER_MAX:
            oversized = True
        if isinstance(value, (str, tuple)) and len(value) > ATTR_VALUE_MAX_LENGTH:
            oversized = True
        bucket = attributes.setdefault(domain, {})
        # both "id" and "<driver>/id": upstream keeps whichever map iteration writes last;
        # dractl prefers the explicitly qualified name (docs/spec/allocator.md#device-variable)
        if ident in bucket and "/" not in name:
            continue
        bucket[ident] = value
    capacity: dict[str, dict] = {}
    for name, q in caps.items():
        domain, ident = split_name(name, driver)
        if len(domain) > DOMAIN_MAX or len(ident) > C_IDENTIFIER_MAX:
            oversized = True
        cq = q if isinstance(q, CelQuantity) else CelQuantity.of(q, q.canonical())
        bucket = capacity.setdefault(domain, {})
        if ident in bucket and "/" not in name:
            continue
        bucket[ident] = cq
    if error is not None:
        return Activation(None, error, oversized)
    env = {
        "device": {
            "driver": driver,
            "attributes": DefaultMap(attributes),
            "capacity": DefaultMap(capacity),
            "allowMultipleAllocations": bool(getattr(device, "allow_multiple_allocations", False)),
        }
    }
    return Activation(env, None, oversized)
