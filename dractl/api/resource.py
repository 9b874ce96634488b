"""Immutable models of the resource.k8s.io/v1 kinds the allocator works on.

Built from already-parsed dicts in v1 shape (older API versions are converted to v1 dicts before they
get here). Construction is tolerant: optional fields may be missing, unknown fields are ignored.
API defaulting that changes allocation decisions is applied here (empty allocation mode becomes
ExactCount, ExactCount with count 0 or unset becomes 1, empty toleration operator becomes Equal),
so that a model always looks like an object the API server would have stored.

Quantities are `Quantity`, attribute values `AttributeValue` (None when no union member is set,
which upstream reports as "unsupported attribute value" when the device is used).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from dractl.api.defaults import EXACT_COUNT, allocation_defaults
from dractl.api.limits import RESULTS_MAX
from dractl.api.quantity import Quantity, QuantityError
from dractl.api.record import FrozenRecord
from dractl.api.values import AttributeValue, attribute_from_manifest

ALLOCATION_MODE_EXACT_COUNT = EXACT_COUNT
ALLOCATION_MODE_ALL = "All"

TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
TAINT_EFFECT_NO_EXECUTE = "NoExecute"
TAINT_EFFECT_NONE = "None"

CONFIG_SOURCE_CLASS = "FromClass"
CONFIG_SOURCE_CLAIM = "FromClaim"

ALLOCATION_RESULTS_MAX_SIZE = RESULTS_MAX

_EMPTY: Mapping[str, Any] = MappingProxyType({})
_set = object.__setattr__  # FrozenRecord __init__s set fields as a frozen dataclass's does


def _empty_map() -> Mapping[str, Any]:
    return _EMPTY


class ModelError(ValueError):
    """An object cannot be turned into a model (e.g. a quantity that does not parse)."""


# -- helpers ----------------------------------------------------------------------------------


def _map(raw: Any) -> Mapping[str, Any]:
    return raw if (type(raw) is dict or isinstance(raw, Mapping)) else _EMPTY


def _list(raw: Any) -> list:
    return list(raw) if isinstance(raw, (list, tuple)) else []


def _str(raw: Any) -> str:
    return raw if isinstance(raw, str) else ("" if raw is None else str(raw))


def _opt_bool(raw: Any) -> bool | None:
    return raw if isinstance(raw, bool) else None


def _quantity(raw: Any, where: str) -> Quantity:
    try:
        return Quantity.from_manifest(raw)
    except QuantityError as exc:
        raise ModelError(f"{where}: {exc}") from None


def _opt_quantity(raw: Any, where: str) -> Quantity | None:
    return None if raw is None else _quantity(raw, where)


def _frozen(d: dict) -> Mapping:
    return MappingProxyType(d)


def _str_tuple_or_none(raw: Any) -> tuple[str, ...] | None:
    """A string list; an absent *or empty* list is None (the API server drops empty lists)."""
    if not isinstance(raw, (list, tuple)) or not raw:
        return None
    return tuple(_str(v) for v in raw)


# -- core/v1 node selectors (used by slices, devices and allocation results) ------------------


class NodeSelectorRequirement(FrozenRecord):
    __slots__ = ("key", "operator", "values")

    def __init__(self, key: str, operator: str, values: tuple[str, ...] = ()) -> None:
        _set(self, "key", key)
        _set(self, "operator", operator)
        _set(self, "values", values)

    @classmethod
    def from_dict(cls, raw: Any) -> "NodeSelectorRequirement":
        m = _map(raw)
        return cls(_str(m.get("key")), _str(m.get("operator")),
                   tuple(_str(v) for v in _list(m.get("values"))))

    def to_dict(self) -> dict:
        out: dict = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        return out


class NodeSelectorTerm(FrozenRecord):
    __slots__ = ("match_expressions", "match_fields")

    def __init__(self, match_expressions: tuple[NodeSelectorRequirement, ...] = (),
                 match_fields: tuple[NodeSelectorRequirement, ...] = ()) -> None:
        _set(self, "match_expressions", match_expressions)
        _set(self, "match_fields", match_fields)

    @classmethod
    def from_dict(cls, raw: Any) -> "NodeSelectorTerm":
        m = _map(raw)
        return cls(tuple(NodeSelectorRequirement.from_dict(r) for r in _list(m.get("matchExpressions"))),
                   tuple(NodeSelectorRequirement.from_dict(r) for r in _list(m.get("matchFields"))))

    def to_dict(self) -> dict:
        out: dict = {}
        if self.match_expressions:
            out["matchExpressions"] = [r.to_dict() for r in self.match_expressions]
        if self.match_fields:
            out["matchFields"] = [r.to_dict() for r in self.match_fields]
        return out


class NodeSelector(FrozenRecord):
    __slots__ = ("terms",)

    def __init__(self, terms: tuple[NodeSelectorTerm, ...] = ()) -> None:
        _set(self, "terms", terms)

    @classmethod
    def from_dict(cls, raw: Any) -> "NodeSelector | None":
        if raw is None:
            return None
        return cls(tuple(NodeSelectorTerm.from_dict(t) for t in _list(_map(raw).get("nodeSelectorTerms"))))

    def to_dict(self) -> dict:
        return {"nodeSelectorTerms": [t.to_dict() for t in self.terms]}


# -- DeviceClass --------------------------------------------------------------------------------


class DeviceSelector(FrozenRecord):
    """One selector; `cel_expression` is None when the selector has no `cel` member."""

    __slots__ = ("cel_expression",)

    def __init__(self, cel_expression: str | None) -> None:
        _set(self, "cel_expression", cel_expression)

    @classmethod
    def from_dict(cls, raw: Any) -> "DeviceSelector":
        cel = _map(raw).get("cel")
        if not (type(cel) is dict or isinstance(cel, Mapping)):
            return cls(None)
        return cls(_str(cel.get("expression")))


class DeviceClass(FrozenRecord):
    __slots__ = ("name", "selectors", "config", "extended_resource_name")

    def __init__(self, name: str,
                 selectors: tuple[DeviceSelector, ...] = (),
                 config: tuple[Mapping[str, Any], ...] = (),
                 extended_resource_name: str | None = None) -> None:
        # config: DeviceConfiguration dicts (currently `{"opaque": {...}}`), passed through as is.
        _set(self, "name", name)
        _set(self, "selectors", selectors)
        _set(self, "config", config)
        _set(self, "extended_resource_name", extended_resource_name)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> "DeviceClass":
        spec = _map(doc.get("spec"))
        return cls(
            name=_str(_map(doc.get("metadata")).get("name")),
            selectors=tuple(DeviceSelector.from_dict(s) for s in _list(spec.get("selectors"))),
            config=tuple(_device_configuration(c) for c in _list(spec.get("config"))),
            extended_resource_name=spec.get("extendedResourceName") or None,
        )


def _device_configuration(raw: Any) -> Mapping[str, Any]:
    """The DeviceConfiguration part of a config entry (everything except `requests`/`source`)."""
    m = _map(raw)
    return _frozen({k: v for k, v in m.items() if k not in ("requests", "source")})


# -- ResourceSlice --------------------------------------------------------------------------------


class ResourcePool(FrozenRecord):
    __slots__ = ("name", "generation", "resource_slice_count")

    def __init__(self, name: str, generation: int = 0, resource_slice_count: int = 0) -> None:
        _set(self, "name", name)
        _set(self, "generation", generation)
        _set(self, "resource_slice_count", resource_slice_count)

    @classmethod
    def from_dict(cls, raw: Any) -> "ResourcePool":
        m = _map(raw)
        return cls(_str(m.get("name")), int(m.get("generation") or 0), int(m.get("resourceSliceCount") or 0))


class CounterSet(FrozenRecord):
    __slots__ = ("name", "counters")

    def __init__(self, name: str, counters: Mapping[str, Quantity]) -> None:
        _set(self, "name", name)
        _set(self, "counters", counters)

    @classmethod
    def from_dict(cls, raw: Any, where: str) -> "CounterSet":
        m = _map(raw)
        name = _str(m.get("name"))
        counters = {
            _str(k): _quantity(_map(v).get("value"), f"{where}: counter set {name}: counter {k}")
            for k, v in _map(m.get("counters")).items()
        }
        return cls(name, _frozen(counters))


class DeviceCounterConsumption(FrozenRecord):
    __slots__ = ("counter_set", "counters", "compatibility_groups")

    def __init__(self, counter_set: str, counters: Mapping[str, Quantity],
                 compatibility_groups: tuple[str, ...] = ()) -> None:
        _set(self, "counter_set", counter_set)
        _set(self, "counters", counters)
        # 1.37 (DRADeviceCompatibilityGroups): unset, null and [] all mean "no groups".
        _set(self, "compatibility_groups", compatibility_groups)

    @classmethod
    def from_dict(cls, raw: Any, where: str) -> "DeviceCounterConsumption":
        m = _map(raw)
        name = _str(m.get("counterSet"))
        counters = {
            _str(k): _quantity(_map(v).get("value"), f"{where}: consumesCounters {name}: counter {k}")
            for k, v in _map(m.get("counters")).items()
        }
        return cls(name, _frozen(counters), tuple(_str(g) for g in _list(m.get("compatibilityGroups"))))


class CapacityRequestPolicyRange(FrozenRecord):
    __slots__ = ("min", "max", "step")

    def __init__(self, min: Quantity | None = None,
                 max: Quantity | None = None,
                 step: Quantity | None = None) -> None:
        _set(self, "min", min)
        _set(self, "max", max)
        _set(self, "step", step)


class CapacityRequestPolicy(FrozenRecord):
    __slots__ = ("default", "valid_values", "valid_range")

    def __init__(self, default: Quantity | None = None,
                 valid_values: tuple[Quantity, ...] | None = None,
                 valid_range: CapacityRequestPolicyRange | None = None) -> None:
        _set(self, "default", default)
        _set(self, "valid_values", valid_values)
        _set(self, "valid_range", valid_range)

    @classmethod
    def from_dict(cls, raw: Any, where: str) -> "CapacityRequestPolicy | None":
        if not (type(raw) is dict or isinstance(raw, Mapping)):
            return None
        vv = raw.get("validValues")
        vr = raw.get("validRange")
        return cls(
            default=_opt_quantity(raw.get("default"), f"{where}: default"),
            valid_values=(tuple(_quantity(v, f"{where}: validValues") for v in vv)
                          if isinstance(vv, (list, tuple)) else None),
            valid_range=(CapacityRequestPolicyRange(
                _opt_quantity(vr.get("min"), f"{where}: validRange.min"),
                _opt_quantity(vr.get("max"), f"{where}: validRange.max"),
                _opt_quantity(vr.get("step"), f"{where}: validRange.step"),
            ) if (type(vr) is dict or isinstance(vr, Mapping)) else None),
        )


class DeviceCapacity(FrozenRecord):
    __slots__ = ("value", "request_policy")

    def __init__(self, value: Quantity,
                 request_policy: CapacityRequestPolicy | None = None) -> None:
        _set(self, "value", value)
        _set(self, "request_policy", request_policy)


class DeviceTaint(FrozenRecord):
    __slots__ = ("key", "value", "effect", "time_added")

    def __init__(self, key: str,
                 value: str = "",
                 effect: str = "",
                 time_added: str | None = None) -> None:
        _set(self, "key", key)
        _set(self, "value", value)
        _set(self, "effect", effect)
        _set(self, "time_added", time_added)

    @classmethod
    def from_dict(cls, raw: Any) -> "DeviceTaint":
        m = _map(raw)
        return cls(_str(m.get("key")), _str(m.get("value")), _str(m.get("effect")),
                   _str(m.get("timeAdded")) or None)


@dataclass(frozen=True, eq=False)
class Device:
    """One device of a slice. Satisfies the CEL `CelDevice` protocol (key, driver, attributes,
    capacity, allow_multiple_allocations). Identity (`key`) includes the slice name, so two
    devices with the same name in different slices (an invalid pool) stay distinct."""

    name: str
    driver: str
    pool: str
    slice_name: str
    attributes: Mapping[str, AttributeValue | None] = field(default_factory=_empty_map)
    capacities: Mapping[str, DeviceCapacity] = field(default_factory=_empty_map)
    consumes_counters: tuple[DeviceCounterConsumption, ...] = ()
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: tuple[DeviceTaint, ...] = ()
    binds_to_node: bool = False
    binding_conditions: tuple[str, ...] | None = None
    binding_failure_conditions: tuple[str, ...] | None = None
    allow_multiple_allocations: bool = False
    # Derived, filled in by __post_init__.
    key: tuple = field(init=False, repr=False)
    id: tuple[str, str, str] = field(init=False, repr=False)
    capacity: Mapping[str, Quantity] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", (self.driver, self.pool, self.name, self.slice_name))
        object.__setattr__(self, "id", (self.driver, self.pool, self.name))
        object.__setattr__(self, "capacity", _frozen({k: c.value for k, c in self.capacities.items()}))

    @property
    def id_str(self) -> str:
        return f"{self.driver}/{self.pool}/{self.name}"

    @classmethod
    def from_dict(cls, raw: Any, *, driver: str, pool: str, slice_name: str) -> "Device":
        # A cluster has thousands of devices, most with only a name, attributes and capacity:
        # each optional field is read only when present (absent gives what its parser gives
        # for None: (), None or False).
        m = _map(raw)
        get = m.get
        name = _str(get("name"))
        attributes = {_str(k): attribute_from_manifest(v) for k, v in _map(get("attributes")).items()}
        capacities = {}
        raw_capacity = get("capacity")
        if raw_capacity is not None:
            where = f"slice {slice_name}: device {name}"
            for k, v in _map(raw_capacity).items():
                cm = _map(v)
                capacities[_str(k)] = DeviceCapacity(
                    _quantity(cm.get("value"), f"{where}: capacity {k}"),
                    CapacityRequestPolicy.from_dict(cm.get("requestPolicy"),
                                                    f"{where}: capacity {k}: requestPolicy"),
                )
        counters, taints = get("consumesCounters"), get("taints")
        node_name, binding, failure = get("nodeName"), get("bindingConditions"), get("bindingFailureConditions")
        return cls(
            name=name, driver=driver, pool=pool, slice_name=slice_name,
            attributes=_frozen(attributes),
            capacities=_frozen(capacities),
            consumes_counters=() if counters is None else tuple(
                DeviceCounterConsumption.from_dict(c, f"slice {slice_name}: device {name}")
                for c in _list(counters)),
            node_name=None if node_name is None else (_str(node_name) or None),
            node_selector=NodeSelector.from_dict(get("nodeSelector")),
            all_nodes=_opt_bool(get("allNodes")),
            taints=() if taints is None else tuple(DeviceTaint.from_dict(t) for t in _list(taints)),
            binds_to_node=get("bindsToNode") is True,
            binding_conditions=None if binding is None else _str_tuple_or_none(binding),
            binding_failure_conditions=None if failure is None else _str_tuple_or_none(failure),
            allow_multiple_allocations=get("allowMultipleAllocations") is True,
        )


@dataclass(frozen=True, eq=False)
class ResourceSlice:
    name: str
    driver: str
    pool: ResourcePool
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    # None = field absent; upstream distinguishes "set to false" from "absent" in one place.
    per_device_node_selection: bool | None = None
    devices: tuple[Device, ...] = ()
    shared_counters: tuple[CounterSet, ...] = ()
    # 1.37 (DRAPartitionableDevicesType): the string attribute that names each partition's type.
    partition_type_attribute: str | None = None
    # 1.37 (DRAOptionalNodeOperations): node operations the kubelet may skip; None when absent or empty.
    skip_node_operations: tuple[str, ...] | None = None

    @property
    def pool_id(self) -> tuple[str, str]:
        return (self.driver, self.pool.name)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> "ResourceSlice":
        name = _str(_map(doc.get("metadata")).get("name"))
        spec = _map(doc.get("spec"))
        driver = _str(spec.get("driver"))
        pool = ResourcePool.from_dict(spec.get("pool"))
        pdns = spec.get("perDeviceNodeSelection")
        return cls(
            name=name, driver=driver, pool=pool,
            node_name=_str(spec.get("nodeName")) or None,
            node_selector=NodeSelector.from_dict(spec.get("nodeSelector")),
            all_nodes=_opt_bool(spec.get("allNodes")),
            per_device_node_selection=pdns if isinstance(pdns, bool) else None,
            devices=tuple(Device.from_dict(d, driver=driver, pool=pool.name, slice_name=name)
                          for d in _list(spec.get("devices"))),
            shared_counters=tuple(CounterSet.from_dict(c, f"slice {name}")
                                  for c in _list(spec.get("sharedCounters"))),
            partition_type_attribute=_str(spec.get("partitionTypeAttribute")) or None,
            skip_node_operations=_str_tuple_or_none(spec.get("skipNodeOperations")),
        )


# -- DeviceTaintRule ------------------------------------------------------------------------------


class DeviceTaintSelector(FrozenRecord):
    __slots__ = ("driver", "pool", "device")

    def __init__(self, driver: str | None = None,
                 pool: str | None = None,
                 device: str | None = None) -> None:
        _set(self, "driver", driver)
        _set(self, "pool", pool)
        _set(self, "device", device)


class DeviceTaintRule(FrozenRecord):
    __slots__ = ("name", "selector", "taint")

    def __init__(self, name: str, selector: DeviceTaintSelector | None, taint: DeviceTaint) -> None:
        _set(self, "name", name)
        _set(self, "selector", selector)
        _set(self, "taint", taint)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> "DeviceTaintRule":
        spec = _map(doc.get("spec"))
        sel = spec.get("deviceSelector")
        selector = None
        if (type(sel) is dict or isinstance(sel, Mapping)):
            selector = DeviceTaintSelector(_str(sel.get("driver")) or None, _str(sel.get("pool")) or None,
                                           _str(sel.get("device")) or None)
        return cls(_str(_map(doc.get("metadata")).get("name")), selector, DeviceTaint.from_dict(spec.get("taint")))


# -- ResourceClaim --------------------------------------------------------------------------------


class DeviceToleration(FrozenRecord):
    __slots__ = ("key", "operator", "value", "effect", "toleration_seconds")

    def __init__(self, key: str = "",
                 operator: str = "Equal",
                 value: str = "",
                 effect: str = "",
                 toleration_seconds: int | None = None) -> None:
        _set(self, "key", key)
        _set(self, "operator", operator)
        _set(self, "value", value)
        _set(self, "effect", effect)
        _set(self, "toleration_seconds", toleration_seconds)

    @classmethod
    def from_dict(cls, raw: Any) -> "DeviceToleration":
        m = _map(raw)
        ts = m.get("tolerationSeconds")
        return cls(_str(m.get("key")), _str(m.get("operator")) or "Equal", _str(m.get("value")),
                   _str(m.get("effect")), ts if isinstance(ts, int) and not isinstance(ts, bool) else None)

    def to_dict(self) -> dict:
        out: dict = {}
        if self.key:
            out["key"] = self.key
        out["operator"] = self.operator
        if self.value:
            out["value"] = self.value
        if self.effect:
            out["effect"] = self.effect
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out


class CapacityRequirements(FrozenRecord):
    __slots__ = ("requests",)

    def __init__(self, requests: Mapping[str, Quantity] = _EMPTY) -> None:
        _set(self, "requests", requests)


def _capacity_requirements(raw: Any, where: str) -> CapacityRequirements | None:
    if not (type(raw) is dict or isinstance(raw, Mapping)):
        return None
    return CapacityRequirements(_frozen({
        _str(k): _quantity(v, f"{where}: capacity request {k}") for k, v in _map(raw.get("requests")).items()
    }))


@dataclass(frozen=True)
class DeviceDerivedAttribute:
    """1.37 (DRADerivedAttributes): a per-device value computed by CEL for constraints."""

    name: str
    expression: str

    @classmethod
    def from_dict(cls, raw: Any) -> "DeviceDerivedAttribute":
        m = _map(raw)
        return cls(_str(m.get("name")), _str(m.get("expression")))


def _derived_attributes(m: Mapping[str, Any]) -> tuple[DeviceDerivedAttribute, ...]:
    return tuple(DeviceDerivedAttribute.from_dict(d) for d in _list(m.get("derivedAttributes")))


def _mode_and_count(m: Mapping[str, Any]) -> tuple[str, int]:
    """allocationMode and count, typed (a count of another type reads as unset), with the API
    server's defaults (dractl.api.defaults, the one implementation)."""
    raw_count = m.get("count")
    count = raw_count if isinstance(raw_count, int) and not isinstance(raw_count, bool) else 0
    return allocation_defaults(_str(m.get("allocationMode")), count)


def _request_fields(m: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The fields ExactDeviceRequest and DeviceSubRequest share (upstream's two structs repeat
    them; adminAccess is the exact request's only)."""
    mode, count = _mode_and_count(m)
    return {
        "device_class_name": _str(m.get("deviceClassName")),
        "selectors": tuple(DeviceSelector.from_dict(s) for s in _list(m.get("selectors"))),
        "allocation_mode": mode, "count": count,
        "tolerations": tuple(DeviceToleration.from_dict(t) for t in _list(m.get("tolerations"))),
        "capacity": _capacity_requirements(m.get("capacity"), where),
        "derived_attributes": _derived_attributes(m),
    }


class DeviceSubRequest(FrozenRecord):
    __slots__ = ("name", "device_class_name", "selectors", "allocation_mode", "count", "tolerations", "capacity", "admin_access", "derived_attributes")

    def __init__(self, name: str,
                 device_class_name: str,
                 selectors: tuple[DeviceSelector, ...] = (),
                 allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT,
                 count: int = 1,
                 tolerations: tuple[DeviceToleration, ...] = (),
                 capacity: CapacityRequirements | None = None,
                 admin_access: bool | None = None,
                 derived_attributes: tuple[DeviceDerivedAttribute, ...] = ()) -> None:
        # admin_access: subrequests never have it; present for a uniform interface with ExactDeviceRequest.
        _set(self, "name", name)
        _set(self, "device_class_name", device_class_name)
        _set(self, "selectors", selectors)
        _set(self, "allocation_mode", allocation_mode)
        _set(self, "count", count)
        _set(self, "tolerations", tolerations)
        _set(self, "capacity", capacity)
        _set(self, "admin_access", admin_access)
        _set(self, "derived_attributes", derived_attributes)

    @classmethod
    def from_dict(cls, raw: Any, where: str) -> "DeviceSubRequest":
        m = _map(raw)
        name = _str(m.get("name"))
        return cls(name=name, **_request_fields(m, f"{where}/{name}"))


class ExactDeviceRequest(FrozenRecord):
    __slots__ = ("device_class_name", "selectors", "allocation_mode", "count", "admin_access", "tolerations", "capacity", "derived_attributes")

    def __init__(self, device_class_name: str,
                 selectors: tuple[DeviceSelector, ...] = (),
                 allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT,
                 count: int = 1,
                 admin_access: bool | None = None,
                 tolerations: tuple[DeviceToleration, ...] = (),
                 capacity: CapacityRequirements | None = None,
                 derived_attributes: tuple[DeviceDerivedAttribute, ...] = ()) -> None:
        _set(self, "device_class_name", device_class_name)
        _set(self, "selectors", selectors)
        _set(self, "allocation_mode", allocation_mode)
        _set(self, "count", count)
        _set(self, "admin_access", admin_access)
        _set(self, "tolerations", tolerations)
        _set(self, "capacity", capacity)
        _set(self, "derived_attributes", derived_attributes)

    @classmethod
    def from_dict(cls, raw: Any, where: str) -> "ExactDeviceRequest":
        m = _map(raw)
        return cls(admin_access=_opt_bool(m.get("adminAccess")), **_request_fields(m, where))


class DeviceRequest(FrozenRecord):
    __slots__ = ("name", "exactly", "first_available")

    def __init__(self, name: str,
                 exactly: ExactDeviceRequest | None = None,
                 first_available: tuple[DeviceSubRequest, ...] = ()) -> None:
        _set(self, "name", name)
        _set(self, "exactly", exactly)
        _set(self, "first_available", first_available)

    @classmethod
    def from_dict(cls, raw: Any, where: str) -> "DeviceRequest":
        m = _map(raw)
        name = _str(m.get("name"))
        exactly = m.get("exactly")
        return cls(
            name=name,
            exactly=ExactDeviceRequest.from_dict(exactly, f"{where}: request {name}")
            if (type(exactly) is dict or isinstance(exactly, Mapping)) else None,
            first_available=tuple(DeviceSubRequest.from_dict(s, f"{where}: request {name}")
                                  for s in _list(m.get("firstAvailable"))),
        )


class DeviceConstraint(FrozenRecord):
    __slots__ = ("requests", "match_attribute", "distinct_attribute")

    def __init__(self, requests: tuple[str, ...] = (),
                 match_attribute: str | None = None,
                 distinct_attribute: str | None = None) -> None:
        _set(self, "requests", requests)
        _set(self, "match_attribute", match_attribute)
        _set(self, "distinct_attribute", distinct_attribute)

    @classmethod
    def from_dict(cls, raw: Any) -> "DeviceConstraint":
        m = _map(raw)
        return cls(tuple(_str(r) for r in _list(m.get("requests"))),
                   _str(m.get("matchAttribute")) or None, _str(m.get("distinctAttribute")) or None)


class DeviceClaimConfiguration(FrozenRecord):
    __slots__ = ("requests", "configuration")

    def __init__(self, requests: tuple[str, ...], configuration: Mapping[str, Any]) -> None:
        # configuration: e.g. {"opaque": {...}}
        _set(self, "requests", requests)
        _set(self, "configuration", configuration)

    @classmethod
    def from_dict(cls, raw: Any) -> "DeviceClaimConfiguration":
        m = _map(raw)
        return cls(tuple(_str(r) for r in _list(m.get("requests"))), _device_configuration(m))


class DeviceRequestAllocationResult(FrozenRecord):
    __slots__ = ("request", "driver", "pool", "device", "admin_access", "tolerations", "binding_conditions", "binding_failure_conditions", "share_id", "consumed_capacity", "skip_node_operations")

    def __init__(self, request: str,
                 driver: str,
                 pool: str,
                 device: str,
                 admin_access: bool | None = None,
                 tolerations: tuple[DeviceToleration, ...] = (),
                 binding_conditions: tuple[str, ...] | None = None,
                 binding_failure_conditions: tuple[str, ...] | None = None,
                 share_id: str | None = None,
                 consumed_capacity: Mapping[str, Quantity] | None = None,
                 skip_node_operations: tuple[str, ...] | None = None) -> None:
        _set(self, "request", request)
        _set(self, "driver", driver)
        _set(self, "pool", pool)
        _set(self, "device", device)
        _set(self, "admin_access", admin_access)
        _set(self, "tolerations", tolerations)
        _set(self, "binding_conditions", binding_conditions)
        _set(self, "binding_failure_conditions", binding_failure_conditions)
        _set(self, "share_id", share_id)
        _set(self, "consumed_capacity", consumed_capacity)
        # 1.37: copied from the device's slice
        _set(self, "skip_node_operations", skip_node_operations)

    @property
    def device_id(self) -> tuple[str, str, str]:
        return (self.driver, self.pool, self.device)

    @classmethod
    def from_dict(cls, raw: Any, where: str = "result") -> "DeviceRequestAllocationResult":
        m = _map(raw)
        cc = m.get("consumedCapacity")
        return cls(
            request=_str(m.get("request")), driver=_str(m.get("driver")), pool=_str(m.get("pool")),
            device=_str(m.get("device")),
            admin_access=_opt_bool(m.get("adminAccess")),
            tolerations=tuple(DeviceToleration.from_dict(t) for t in _list(m.get("tolerations"))),
            binding_conditions=_str_tuple_or_none(m.get("bindingConditions")),
            binding_failure_conditions=_str_tuple_or_none(m.get("bindingFailureConditions")),
            share_id=_str(m.get("shareID")) or None,
            consumed_capacity=_frozen({_str(k): _quantity(v, f"{where}: consumedCapacity {k}")
                                       for k, v in cc.items()}) if (type(cc) is dict or isinstance(cc, Mapping)) else None,
            skip_node_operations=_str_tuple_or_none(m.get("skipNodeOperations")),
        )

    def to_dict(self) -> dict:
        out: dict = {"request": self.request, "driver": self.driver, "pool": self.pool, "device": self.device}
        if self.admin_access is not None:
            out["adminAccess"] = self.admin_access
        if self.tolerations:
            out["tolerations"] = [t.to_dict() for t in self.tolerations]
        if self.binding_conditions:
            out["bindingConditions"] = list(self.binding_conditions)
        if self.binding_failure_conditions:
            out["bindingFailureConditions"] = list(self.binding_failure_conditions)
        if self.share_id is not None:
            out["shareID"] = self.share_id
        if self.consumed_capacity is not None:
            out["consumedCapacity"] = {k: q.canonical() for k, q in self.consumed_capacity.items()}
        if self.skip_node_operations:
            out["skipNodeOperations"] = list(self.skip_node_operations)
        return out


class DeviceAllocationConfiguration(FrozenRecord):
    __slots__ = ("source", "requests", "configuration")

    def __init__(self, source: str,
                 requests: tuple[str, ...],
                 configuration: Mapping[str, Any]) -> None:
        _set(self, "source", source)
        _set(self, "requests", requests)
        _set(self, "configuration", configuration)

    @classmethod
    def from_dict(cls, raw: Any) -> "DeviceAllocationConfiguration":
        m = _map(raw)
        return cls(_str(m.get("source")), tuple(_str(r) for r in _list(m.get("requests"))),
                   _device_configuration(m))

    def to_dict(self) -> dict:
        out: dict = {"source": self.source}
        if self.requests:
            out["requests"] = list(self.requests)
        out.update(_plain(self.configuration))
        return out


def _plain(value: Any) -> Any:
    """Deep copy into plain dicts/lists (mapping proxies and YAML node types are not serialisable)."""
    if (type(value) is dict or isinstance(value, Mapping)):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class AllocationResult(FrozenRecord):
    __slots__ = ("devices", "config", "node_selector", "allocation_timestamp")

    def __init__(self, devices: tuple[DeviceRequestAllocationResult, ...] = (),
                 config: tuple[DeviceAllocationConfiguration, ...] = (),
                 node_selector: NodeSelector | None = None,
                 allocation_timestamp: str | None = None) -> None:
        _set(self, "devices", devices)
        _set(self, "config", config)
        _set(self, "node_selector", node_selector)
        _set(self, "allocation_timestamp", allocation_timestamp)

    @classmethod
    def from_dict(cls, raw: Any, where: str = "allocation") -> "AllocationResult":
        m = _map(raw)
        devices = _map(m.get("devices"))
        return cls(
            devices=tuple(DeviceRequestAllocationResult.from_dict(r, where) for r in _list(devices.get("results"))),
            config=tuple(DeviceAllocationConfiguration.from_dict(c) for c in _list(devices.get("config"))),
            node_selector=NodeSelector.from_dict(m.get("nodeSelector")),
            allocation_timestamp=_str(m.get("allocationTimestamp")) or None,
        )

    def to_dict(self) -> dict:
        """The `status.allocation` dict, field names as in resource.k8s.io/v1."""
        devices: dict = {"results": [r.to_dict() for r in self.devices]}
        if self.config:
            devices["config"] = [c.to_dict() for c in self.config]
        out: dict = {"devices": devices}
        if self.node_selector is not None:
            out["nodeSelector"] = self.node_selector.to_dict()
        if self.allocation_timestamp:
            out["allocationTimestamp"] = self.allocation_timestamp
        return out


@dataclass(frozen=True, eq=False)
class ResourceClaim:
    name: str
    namespace: str = ""
    uid: str = ""
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config: tuple[DeviceClaimConfiguration, ...] = ()
    allocation: AllocationResult | None = None

    @property
    def ref(self) -> str:
        """`namespace/name`, or `name` without a namespace (klog.KObj formatting)."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    def renamed(self, name: str, namespace: str, uid: str) -> "ResourceClaim":
        """dataclasses.replace(self, name=, namespace=, uid=) without its per-field loop: the
        resourceclaim controller's claims share their template's parsed spec (one per pod)."""
        return ResourceClaim(name, namespace, uid, self.requests, self.constraints, self.config,
                             self.allocation)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> "ResourceClaim":
        meta = _map(doc.get("metadata"))
        name, namespace = _str(meta.get("name")), _str(meta.get("namespace"))
        where = f"claim {namespace}/{name}" if namespace else f"claim {name}"
        devices = _map(_map(doc.get("spec")).get("devices"))
        alloc = _map(doc.get("status")).get("allocation")
        return cls(
            name=name, namespace=namespace, uid=_str(meta.get("uid")),
            requests=tuple(DeviceRequest.from_dict(r, where) for r in _list(devices.get("requests"))),
            constraints=tuple(DeviceConstraint.from_dict(c) for c in _list(devices.get("constraints"))),
            config=tuple(DeviceClaimConfiguration.from_dict(c) for c in _list(devices.get("config"))),
            allocation=AllocationResult.from_dict(alloc, where) if (type(alloc) is dict or isinstance(alloc, Mapping)) else None,
        )


# -- convenience --------------------------------------------------------------------------------

_FACTORIES = {
    "DeviceClass": DeviceClass.from_dict,
    "ResourceSlice": ResourceSlice.from_dict,
    "ResourceClaim": ResourceClaim.from_dict,
    "DeviceTaintRule": DeviceTaintRule.from_dict,
}


def model_from_dict(doc: Mapping[str, Any]):
    """Build the model for a v1 resource.k8s.io document by its `kind`."""
    kind = doc.get("kind")
    try:
        return _FACTORIES[kind](doc)
    except KeyError:
        raise ModelError(f"not a resource.k8s.io kind the allocator models: {kind!r}") from None


def models_from_dicts(docs: Iterable[Mapping[str, Any]]) -> dict[str, list]:
    """Group models by kind, keeping input order within each kind."""
    out: dict[str, list] = {k: [] for k in _FACTORIES}
    for doc in docs:
        if doc.get("kind") in _FACTORIES:
            out[doc["kind"]].append(model_from_dict(doc))
    return out
