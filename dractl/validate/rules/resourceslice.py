"""ResourceSlice (docs/spec/api-and-scheduling.md#resourceslice-checklist). Codes 12xx.

Limits that changed between releases follow the target version: devices per slice (128, or 64
with taints/counters from 1.35 and list attributes from 1.36), taints per device (4 in 1.34, 16
later), the counter model (1.34 totals vs 1.35+ sets), the `None` taint effect (1.35+) and the
48-attribute-value limit (1.36+).
"""

from __future__ import annotations

from typing import Any

from dractl.api.limits import (
    ATTR_VALUE_MAX_LENGTH,
    ATTR_VALUES_MAX,
    ATTRS_AND_CAPACITY_MAX,
    CONSUMES_PER_DEVICE_MAX,
    COUNTER_SETS_MAX,
    COUNTERS_PER_CONSUMPTION_MAX,
    COUNTERS_PER_SET_MAX,
    DEVICE_COUNTERS_MAX_134,
    DEVICE_TAINTS_MAX,
    DEVICE_TAINTS_MAX_134,
    DEVICES_MAX,
    DEVICES_MAX_ADVANCED,
    SHARED_COUNTERS_MAX_134,
    SLICE_DEVICE_COUNTERS_MAX_134,
    VALID_VALUES_MAX,
)
from dractl.api.quantity import Quantity
from dractl.findings import ERROR, WARNING, MapKey, register

from . import common, slicefields
from ._base import (
    BAD,
    Emitter,
    duplicate,
    forbidden,
    get_bool,
    get_int,
    get_list,
    get_map,
    get_obj,
    get_opt_str,
    get_str,
    invalid,
    required,
    too_long,
    too_many,
)
from ._base import parsed_quantity as _quantity
from ._formats import (
    SEMVER_MSG,
    SEMVER_RE,
    check_dns_label,
    check_dns_subdomain,
    check_driver_name,
    check_pool_name,
    check_qualified_name,
    is_dns1123_label,
)

C_DRIVER = register("DRA1201", ERROR, "spec.driver is missing or not a valid driver name")
C_POOL_NAME = register("DRA1202", ERROR, "spec.pool.name is missing or invalid")
C_SLICE_COUNT = register("DRA1203", ERROR, "spec.pool.resourceSliceCount must be greater than zero")
C_GENERATION = register("DRA1204", ERROR, "spec.pool.generation must not be negative")
C_NODE_SELECTION_NONE = register("DRA1205", ERROR,
                                 "none of nodeName, nodeSelector, allNodes, perDeviceNodeSelection "
                                 "is set")
C_NODE_SELECTION_MANY = register("DRA1206", ERROR,
                                 "more than one of nodeName, nodeSelector, allNodes, "
                                 "perDeviceNodeSelection is set")
C_NODE_NAME = register("DRA1207", ERROR, "spec.nodeName is empty or not a valid node name")
C_NODE_SELECTOR = register("DRA1208", ERROR,
                           "spec.nodeSelector is invalid or does not have exactly one term")
C_TRUE_OR_UNSET = register("DRA1209", ERROR,
                           "allNodes / perDeviceNodeSelection must be unset or true")
C_DEVICES_XOR_COUNTERS = register("DRA1210", ERROR,
                                  "a slice has both devices and sharedCounters (1.35+)")
C_DEVICES_MAX = register("DRA1211", ERROR,
                         "too many devices in a slice (128, or 64 with taints, counters or list "
                         "attributes)")
C_DEVICE_NAME = register("DRA1212", ERROR, "device name is not a DNS label")
C_DEVICE_DUP = register("DRA1213", ERROR, "device names in a slice must be unique")
C_ATTRS_MAX = register("DRA1214", ERROR, "a device has more than 32 attributes and capacities")
C_ATTR_KEY = register("DRA1215", ERROR, "attribute or capacity name is not a qualified name")
C_ATTR_ONE_VALUE = register("DRA1216", ERROR, "an attribute must set exactly one value")
C_ATTR_TOO_LONG = register("DRA1217", ERROR, "string or version attribute longer than 64 bytes")
C_ATTR_SEMVER = register("DRA1218", ERROR, "version attribute is not semver 2.0.0")
C_ATTR_VALUES_MAX = register("DRA1219", ERROR,
                             "a device has more than 48 attribute values (1.36+)")
C_ATTR_LIST_EMPTY = register("DRA1220", ERROR, "list-typed attribute is empty")
C_REQUEST_POLICY_FORBIDDEN = register("DRA1221", ERROR,
                                      "capacity requestPolicy on a device without "
                                      "allowMultipleAllocations")
C_REQUEST_POLICY = register("DRA1222", ERROR, "capacity requestPolicy is inconsistent")
C_TAINTS_MAX = register("DRA1223", ERROR, "a device has too many taints (4 in 1.34, 16 later)")
C_TAINT = register("DRA1224", ERROR, "invalid device taint (key, value, effect)")
C_BINDING = register("DRA1225", ERROR, "device binding conditions are invalid")
C_PER_DEVICE_NODE = register("DRA1226", ERROR,
                             "per-device nodeName/nodeSelector/allNodes used wrongly")
C_COUNTER_SETS_MAX = register("DRA1227", ERROR, "too many shared counter sets or counters")
C_COUNTER_SET_NAME = register("DRA1228", ERROR,
                              "counter set name missing, not a DNS label or duplicated")
C_COUNTERS = register("DRA1229", ERROR, "counter set without counters, or invalid counter names")
C_CONSUMES = register("DRA1230", ERROR, "consumesCounters entry is invalid or duplicated")
C_FRACTIONAL_OFF = register("DRA1236", WARNING,
                            "fractional validRange while DRAFractionalCapacityRange is off: "
                            "integer arithmetic rounds the bounds up", "dractl")
C_NODE_ALLOCATABLE = register("DRA1231", ERROR,
                              "nodeAllocatableResources (1.37) / nodeAllocatableResourceMappings "
                              "(1.36) is invalid")

_ATTR_SCALARS = ("bool", "int", "string", "version")
_ATTR_LISTS = ("bools", "ints", "strings", "versions")
_ATTR_MEMBERS = frozenset(_ATTR_SCALARS + _ATTR_LISTS)
_ATTR_LIST_SET = frozenset(_ATTR_LISTS)
_UNCHECKED_SCALARS = frozenset({"int", "bool", "string"})  # (a string only for its length)
_MAX_INT64 = 2**63 - 1


def check_resource_slice(em: Emitter, doc: dict) -> None:
    common.check_object_name(em, doc)
    spec = get_obj(doc, "spec")
    if not isinstance(spec, dict):
        return
    _drop_disabled(em, spec)
    path = ("spec",)

    driver = get_str(spec, "driver")
    if driver is not BAD:
        check_driver_name(em, C_DRIVER, driver, path + ("driver",))
    pool = get_obj(spec, "pool")
    if pool is not BAD:
        pool = pool or {}
        name = get_str(pool, "name")
        if name is not BAD:
            check_pool_name(em, C_POOL_NAME, name, path + ("pool", "name"))
        count = get_int(pool, "resourceSliceCount")
        if count is not BAD and count <= 0:
            em.add(C_SLICE_COUNT, invalid(count, "must be greater than zero"),
                   path + ("pool", "resourceSliceCount"))
        generation = get_int(pool, "generation")
        if generation is not BAD and generation < 0:
            em.add(C_GENERATION, invalid(generation, "must be greater than or equal to zero"),
                   path + ("pool", "generation"))

    _check_node_selection(em, spec, path)

    devices = get_opt_list(spec, "devices")
    counters = get_opt_list(spec, "sharedCounters")
    if em.in_force("shared_counters_split") and devices is not None and counters is not None:
        em.add(C_DEVICES_XOR_COUNTERS, invalid("", "only one of `sharedCounters` or `devices` is "
                                                   "allowed"), path)
    per_device = get_bool(spec, "perDeviceNodeSelection") is True
    if isinstance(devices, list):
        _check_devices(em, spec, devices, path + ("devices",), per_device)
    if isinstance(counters, list):
        _check_shared_counters(em, counters, path + ("sharedCounters",))
    slicefields.check_partition_type_attribute(em, spec, devices)
    slicefields.check_skip_node_operations(em, slicefields.C_SKIP_NODE_OPERATIONS,
                                           spec.get("skipNodeOperations"),
                                           path + ("skipNodeOperations",))


def get_opt_list(obj: Any, key: str) -> Any:
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return None
    return value if isinstance(value, list) else BAD


# -- feature gates --------------------------------------------------------------------------

def _drop_disabled(em: Emitter, spec: dict) -> None:
    gate = lambda name: common.gate_enabled(em, name)  # noqa: E731
    devices = spec.get("devices") if isinstance(spec.get("devices"), list) else []

    def drop(obj: dict, key: str, gate_name: str, path: tuple, consequence: str = "") -> None:
        if obj.get(key) is not None:
            del obj[key]
            common.gate_dropped(em, gate_name, key, path, consequence)

    # Gates are fixed for the run: looked up once per slice, not once per device.
    taints_on = gate("DRADeviceTaints")
    partitionable_on = gate("DRAPartitionableDevices")
    binding_conditions_on = gate("DRADeviceBindingConditions")
    consumable_on = gate("DRAConsumableCapacity")
    node_allocatable_on = gate("DRANodeAllocatableResources")
    list_attributes_on = gate("DRAListTypeAttributes")
    node_allocatable = slicefields.node_allocatable_field(em)
    slicefields.drop_disabled(em, spec, devices)
    if not partitionable_on:
        drop(spec, "sharedCounters", "DRAPartitionableDevices", ("spec", "sharedCounters"))
        drop(spec, "perDeviceNodeSelection", "DRAPartitionableDevices",
             ("spec", "perDeviceNodeSelection"))
    binding = binding_conditions_on and gate("DRAResourceClaimDeviceStatus")
    missing = ("DRADeviceBindingConditions" if not binding_conditions_on
               else "DRAResourceClaimDeviceStatus")
    # Per device, in this order: (gate off?, key, gate named, consequence). Paths are built only
    # for a field that is there (a slice of a thousand plain devices drops nothing).
    device_drops = []
    if not taints_on:
        device_drops.append(("taints", "DRADeviceTaints"))
    if not partitionable_on:
        device_drops += [(key, "DRAPartitionableDevices")
                         for key in ("consumesCounters", "nodeName", "nodeSelector", "allNodes")]
    if not binding:
        device_drops += [(key, missing)
                         for key in ("bindsToNode", "bindingConditions", "bindingFailureConditions")]
    if not consumable_on:
        device_drops.append(("allowMultipleAllocations", "DRAConsumableCapacity"))
    for i, device in enumerate(devices):
        if not isinstance(device, dict):
            continue
        dpath = ("spec", "devices", i)
        for key, gate_name in device_drops:
            if device.get(key) is not None:
                drop(device, key, gate_name, dpath + (key,))
            if key == "allowMultipleAllocations":
                _drop_request_policies(drop, device, dpath)
        if not node_allocatable_on and device.get(node_allocatable) is not None:
            drop(device, node_allocatable, "DRANodeAllocatableResources",
                 dpath + (node_allocatable,))
        if not list_attributes_on:
            _drop_list_attributes(drop, device, dpath)


def _drop_request_policies(drop, device: dict, dpath: tuple) -> None:
    capacity = device.get("capacity")
    if not isinstance(capacity, dict):
        return
    for key in sorted(k for k in capacity if isinstance(k, str)):
        value = capacity[key]
        if isinstance(value, dict) and value.get("requestPolicy") is not None:
            drop(value, "requestPolicy", "DRAConsumableCapacity",
                 dpath + ("capacity", MapKey(key), "requestPolicy"))


def _has_list_attribute(attributes: dict) -> bool:
    """Whether some attribute sets a list member. Nearly every attribute is one scalar: a set
    test over all of them at once, in C, answers for those; the lookups run only when some
    attribute names a list member (or a value is not a map)."""
    try:
        if all(map(_ATTR_LIST_SET.isdisjoint, attributes.values())):
            return False
    except TypeError:  # a value that is no collection: looked at one by one below
        pass
    for value in attributes.values():
        if isinstance(value, dict) and not _ATTR_LIST_SET.isdisjoint(value) and \
                any(value.get(m) is not None for m in _ATTR_LISTS):
            return True
    return False


def _drop_list_attributes(drop, device: dict, dpath: tuple) -> None:
    attributes = device.get("attributes")
    if not isinstance(attributes, dict) or not _has_list_attribute(attributes):
        return
    for key in sorted(k for k in attributes if isinstance(k, str)):
        value = attributes[key]
        if not isinstance(value, dict):
            continue
        for member in _ATTR_LISTS:
            if value.get(member) is not None:
                drop(value, member, "DRAListTypeAttributes",
                     dpath + ("attributes", MapKey(key), member),
                     "the attribute is left without a value")


# -- node selection ---------------------------------------------------------------------------

def _check_node_selection(em: Emitter, spec: dict, path: tuple) -> None:
    set_fields: list[str] = []
    node_name = get_opt_str(spec, "nodeName")
    if isinstance(node_name, str):
        if node_name:
            set_fields.append("`nodeName`")
            check_dns_subdomain(em, C_NODE_NAME, node_name, path + ("nodeName",))
        else:
            em.add(C_NODE_NAME, invalid("", "must be either unset or set to a non-empty string"),
                   path + ("nodeName",))
    selector = get_obj(spec, "nodeSelector")
    if isinstance(selector, dict):
        set_fields.append("`nodeSelector`")
        common.check_node_selector(em, C_NODE_SELECTOR, selector, path + ("nodeSelector",))
        terms = get_list(selector, "nodeSelectorTerms")
        if terms is not BAD and len(terms) != 1:
            em.add(C_NODE_SELECTOR, invalid(terms if terms else None,
                                            "must have exactly one node selector term"),
                   path + ("nodeSelector", "nodeSelectorTerms"))
    for key, label in (("allNodes", "`allNodes`"),
                       ("perDeviceNodeSelection", "`perDeviceNodeSelection`")):
        value = get_bool(spec, key)
        if value is True:
            set_fields.append(label)
        elif value is False:
            em.add(C_TRUE_OR_UNSET, invalid(False, "must be either unset or set to true"),
                   path + (key,))
    if not set_fields:
        em.add(C_NODE_SELECTION_NONE, required("exactly one of `nodeName`, `nodeSelector`, "
                                               "`allNodes`, `perDeviceNodeSelection` is required"),
               path)
    elif len(set_fields) > 1:
        em.add(C_NODE_SELECTION_MANY, invalid("{" + ", ".join(set_fields) + "}",
                                              "exactly one of `nodeName`, `nodeSelector`, "
                                              "`allNodes`, `perDeviceNodeSelection` is required, "
                                              "but multiple fields are set"), path)


# -- devices ----------------------------------------------------------------------------------

def _uses_advanced(em: Emitter, devices: list) -> bool:
    if not em.in_force("shared_counters_split"):
        return False
    list_attributes_count = em.in_force("attribute_values_limit")
    for device in devices:
        if not isinstance(device, dict):
            continue
        if device.get("taints") or device.get("consumesCounters"):
            return True
        if list_attributes_count:
            attributes = device.get("attributes")
            if isinstance(attributes, dict) and _has_list_attribute(attributes):
                return True
    return False


def _check_devices(em: Emitter, spec: dict, devices: list, path: tuple, per_device: bool) -> None:
    max_devices = DEVICES_MAX_ADVANCED if _uses_advanced(em, devices) else DEVICES_MAX
    if len(devices) > max_devices:
        em.add(C_DEVICES_MAX, too_many(len(devices), max_devices), path)
        return
    for i, device in enumerate(devices):
        if isinstance(device, dict):
            _check_device(em, device, path + (i,), per_device)
    seen: set = set()
    for i, device in enumerate(devices):
        name = get_str(device, "name") if isinstance(device, dict) else BAD
        if name is BAD:
            continue
        if name in seen:
            em.add(C_DEVICE_DUP, duplicate(name), path + (i,))
        seen.add(name)
    if not em.in_force("shared_counters_split"):
        total = 0
        for device in devices:
            consumes = device.get("consumesCounters") if isinstance(device, dict) else None
            for consumption in consumes if isinstance(consumes, list) else []:
                counters = consumption.get("counters") if isinstance(consumption, dict) else None
                total += len(counters) if isinstance(counters, dict) else 0
        if total > SLICE_DEVICE_COUNTERS_MAX_134:
            # [wording?] 1.34 limit on counters consumed by all devices of a slice.
            em.add(C_CONSUMES, invalid(total, "the total number of counters in devices must not "
                                              f"exceed {SLICE_DEVICE_COUNTERS_MAX_134}"), path)


def _check_device(em: Emitter, device: dict, path: tuple, per_device: bool) -> None:
    name = get_str(device, "name")
    if name is not BAD:
        check_dns_label(em, C_DEVICE_NAME, name, path + ("name",))
    attributes = get_map(device, "attributes")
    capacity = get_map(device, "capacity")
    if attributes is not BAD and capacity is not BAD:
        total = len(attributes) + len(capacity)
        if total > ATTRS_AND_CAPACITY_MAX:
            em.add(C_ATTRS_MAX, invalid(total, "the total number of attributes and capacities must "
                                               f"not exceed {ATTRS_AND_CAPACITY_MAX}"), path)
    if attributes is not BAD and em.in_force("attribute_values_limit"):
        values = _attribute_values(attributes)
        if values > ATTR_VALUES_MAX:
            em.add(C_ATTR_VALUES_MAX, invalid(values, "the total number of attribute values must "
                                                      f"not exceed {ATTR_VALUES_MAX}"), path)
    if attributes is not BAD:
        apath = path + ("attributes",)
        for key in sorted([k for k in attributes if isinstance(k, str)]):
            check_qualified_name(em, C_ATTR_KEY, key, apath)
            value = attributes[key]
            if isinstance(value, dict):
                _check_attribute(em, value, apath, key)
        slicefields.lint_standard_attributes(em, attributes, apath)
    multi = get_bool(device, "allowMultipleAllocations") is True
    if capacity is not BAD:
        cpath = path + ("capacity",)
        for key in sorted([k for k in capacity if isinstance(k, str)]):
            check_qualified_name(em, C_ATTR_KEY, key, cpath)
            value = capacity[key]
            if not isinstance(value, dict) or value.get("requestPolicy") is None:
                continue
            ppath = path + ("capacity", MapKey(key), "requestPolicy")
            if not multi:
                em.add(C_REQUEST_POLICY_FORBIDDEN, forbidden("allowMultipleAllocations must be true"),
                       ppath)
            elif isinstance(value.get("requestPolicy"), dict):
                _check_request_policy(em, value.get("value"), value["requestPolicy"], ppath)

    taints = get_list(device, "taints")
    if taints is not BAD:
        max_taints = DEVICE_TAINTS_MAX if em.in_force("device_taints_135") else DEVICE_TAINTS_MAX_134
        if len(taints) > max_taints:
            em.add(C_TAINTS_MAX, too_many(len(taints), max_taints), path + ("taints",))
        else:
            for t, taint in enumerate(taints):
                if isinstance(taint, dict):
                    common.check_taint(em, C_TAINT, taint, path + ("taints", t))

    consumes = get_list(device, "consumesCounters")
    if consumes is not BAD and consumes:
        _check_consumes(em, consumes, path + ("consumesCounters",))

    _check_per_device_node_selection(em, device, path, per_device)
    common.check_binding_conditions(em, C_BINDING, device, path)
    field_name = slicefields.node_allocatable_field(em)
    mappings = get_map(device, field_name)
    if mappings is not BAD and mappings:
        if field_name == slicefields.NODE_ALLOCATABLE_137:
            slicefields.check_node_allocatable_resources(em, C_NODE_ALLOCATABLE, mappings,
                                                         capacity, path + (field_name,))
        else:
            _check_node_allocatable(em, mappings, capacity if capacity is not BAD else {},
                                    path + (field_name,))


def _attribute_values(attributes: dict) -> int:
    """The values a device's attributes hold, as 1.36+ counts them: a list's items, one for
    anything else (an empty list too)."""
    if not _has_list_attribute(attributes):
        return len(attributes)  # one value each (nearly always)
    values = 0
    for attr in attributes.values():
        lists = [attr.get(m) for m in _ATTR_LISTS] if isinstance(attr, dict) else []
        n = sum(len(v) for v in lists if isinstance(v, list))
        values += n if n else 1
    return values


def _check_attribute(em: Emitter, attr: dict, attributes_path: tuple, key: str) -> None:
    """One attribute (`key` in the device's attributes at `attributes_path`). Its path is built
    only for a finding: a slice of a thousand devices has tens of thousands of attributes."""
    if len(attr) == 1:
        (member, value), = attr.items()
        if value is not None and member in _UNCHECKED_SCALARS and not (
                member == "string" and isinstance(value, str)
                and len(value) * 4 > ATTR_VALUE_MAX_LENGTH):
            return  # one int, bool or short string: exactly one value, nothing to check in it
    set_members = 0
    for member in attr:  # usually one key: look only at what is there
        if member in _ATTR_MEMBERS and attr[member] is not None:
            set_members += 1
    string = attr.get("string")
    if isinstance(string, str) and len(string) * 4 > ATTR_VALUE_MAX_LENGTH \
            and len(string.encode()) > ATTR_VALUE_MAX_LENGTH:
        em.add(C_ATTR_TOO_LONG, too_long(ATTR_VALUE_MAX_LENGTH),
               attributes_path + (MapKey(key), "string"))
    version = attr.get("version")
    if isinstance(version, str):
        _check_version(em, version, attributes_path + (MapKey(key), "version"))
    if set_members == 1 and _ATTR_LIST_SET.isdisjoint(attr):
        return  # one scalar value: nothing more to check
    _check_attribute_lists(em, attr, attributes_path + (MapKey(key),), set_members)


def _check_attribute_lists(em: Emitter, attr: dict, path: tuple, set_members: int) -> None:
    """The list members of an attribute, then that it sets exactly one value."""
    for member in _ATTR_LISTS:
        if member not in attr:
            continue
        values = attr[member]
        if not isinstance(values, list):
            continue
        if not values:
            em.add(C_ATTR_LIST_EMPTY, invalid([], "must not be empty if specified"), path + (member,))
        for k, item in enumerate(values):
            if member == "strings" and isinstance(item, str) and \
                    len(item.encode()) > ATTR_VALUE_MAX_LENGTH:
                em.add(C_ATTR_TOO_LONG, too_long(ATTR_VALUE_MAX_LENGTH), path + (member, k))
            elif member == "versions" and isinstance(item, str):
                _check_version(em, item, path + (member, k))
    if set_members == 0:
        em.add(C_ATTR_ONE_VALUE, invalid("", "exactly one value must be specified"), path)
    elif set_members > 1:
        em.add(C_ATTR_ONE_VALUE, invalid(attr, "exactly one value must be specified"), path)


def _check_version(em: Emitter, version: str, path: tuple) -> None:
    if not SEMVER_RE.match(version):
        em.add(C_ATTR_SEMVER, invalid(version, SEMVER_MSG), path)
    if len(version.encode()) > ATTR_VALUE_MAX_LENGTH:
        em.add(C_ATTR_TOO_LONG, too_long(ATTR_VALUE_MAX_LENGTH), path)


def _check_per_device_node_selection(em: Emitter, device: dict, path: tuple,
                                     per_device: bool) -> None:
    node_name = get_opt_str(device, "nodeName")
    selector = get_obj(device, "nodeSelector")
    all_nodes = get_bool(device, "allNodes")
    if BAD in (node_name, selector, all_nodes):
        return
    if per_device:
        set_fields = []
        if node_name is not None:
            if node_name:
                set_fields.append("`nodeName`")
                check_dns_subdomain(em, C_PER_DEVICE_NODE, node_name, path + ("nodeName",))
            else:
                em.add(C_PER_DEVICE_NODE, invalid("", "must not be empty"), path + ("nodeName",))
        if selector is not None:
            set_fields.append("`nodeSelector`")
            common.check_node_selector(em, C_PER_DEVICE_NODE, selector, path + ("nodeSelector",))
        if all_nodes is True:
            set_fields.append("`allNodes`")
        elif all_nodes is False:
            em.add(C_PER_DEVICE_NODE, invalid(False, "must be either unset or set to true"),
                   path + ("allNodes",))
        detail = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
                  "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")
        if not set_fields:
            em.add(C_PER_DEVICE_NODE, required(detail), path)
        elif len(set_fields) > 1:
            em.add(C_PER_DEVICE_NODE, invalid("{" + ", ".join(set_fields) + "}", detail), path)
    elif node_name is not None or selector is not None or all_nodes is not None:
        em.add(C_PER_DEVICE_NODE, invalid(None, "`nodeName`, `nodeSelector` and `allNodes` can only "
                                                "be set if `perDeviceNodeSelection` is set to true "
                                                "in the ResourceSlice spec"), path)


# -- counters ---------------------------------------------------------------------------------

def _check_counter_map(em: Emitter, code: str, counters: Any, path: tuple, max_items: int | None
                       ) -> None:
    if counters is BAD:
        return
    if not counters:
        em.add(code, required(), path)
        return
    if max_items is not None and len(counters) > max_items:
        em.add(code, too_many(len(counters), max_items), path)
        return
    for key in sorted(k for k in counters if isinstance(k, str)):
        for msg in is_dns1123_label(key):
            em.add(code, invalid(key, msg), path)


def _check_shared_counters(em: Emitter, sets: list, path: tuple) -> None:
    if em.in_force("shared_counters_split") and len(sets) > COUNTER_SETS_MAX:
        em.add(C_COUNTER_SETS_MAX, too_many(len(sets), COUNTER_SETS_MAX), path)
        return
    total = 0
    for s, counter_set in enumerate(sets):
        if not isinstance(counter_set, dict):
            continue
        spath = path + (s,)
        name = get_str(counter_set, "name")
        if name == "":
            em.add(C_COUNTER_SET_NAME, required(), spath + ("name",))
        elif name is not BAD:
            check_dns_label(em, C_COUNTER_SET_NAME, name, spath + ("name",))
        counters = get_map(counter_set, "counters")
        if counters is not BAD:
            total += len(counters)
        _check_counter_map(em, C_COUNTERS, counters, spath + ("counters",),
                           COUNTERS_PER_SET_MAX if em.in_force("shared_counters_split") else None)
    seen: set = set()
    for s, counter_set in enumerate(sets):
        name = get_str(counter_set, "name") if isinstance(counter_set, dict) else BAD
        if name is BAD:
            continue
        if name in seen:
            em.add(C_COUNTER_SET_NAME, duplicate(name), path + (s,))
        seen.add(name)
    if not em.in_force("shared_counters_split") and total > SHARED_COUNTERS_MAX_134:
        # [wording?] 1.34 limited the counters summed over all sets.
        em.add(C_COUNTER_SETS_MAX, invalid(total, "the total number of shared counters must not "
                                                  f"exceed {SHARED_COUNTERS_MAX_134}"), path)


def _check_consumes(em: Emitter, consumes: list, path: tuple) -> None:
    if em.in_force("shared_counters_split") and len(consumes) > CONSUMES_PER_DEVICE_MAX:
        em.add(C_CONSUMES, too_many(len(consumes), CONSUMES_PER_DEVICE_MAX), path)
        return
    total = 0
    for n, consumption in enumerate(consumes):
        if not isinstance(consumption, dict):
            continue
        cpath = path + (n,)
        counter_set = get_str(consumption, "counterSet")
        if counter_set == "":
            em.add(C_CONSUMES, required(), cpath + ("counterSet",))
        elif counter_set is not BAD:
            check_dns_label(em, C_CONSUMES, counter_set, cpath + ("counterSet",))
        counters = get_map(consumption, "counters")
        if counters is not BAD:
            total += len(counters)
        _check_counter_map(em, C_CONSUMES, counters, cpath + ("counters",),
                           COUNTERS_PER_CONSUMPTION_MAX if em.in_force("shared_counters_split") else None)
        slicefields.check_compatibility_groups(em, consumption, cpath)
    seen: set = set()
    for n, consumption in enumerate(consumes):
        counter_set = get_str(consumption, "counterSet") if isinstance(consumption, dict) else BAD
        if counter_set is BAD:
            continue
        if counter_set in seen:
            em.add(C_CONSUMES, duplicate(counter_set), path + (n,))
        seen.add(counter_set)
    if not em.in_force("shared_counters_split") and total > DEVICE_COUNTERS_MAX_134:
        # [wording?] 1.34 limited the counters consumed by one device.
        em.add(C_CONSUMES, invalid(total, "the total number of counters must not exceed "
                                          f"{DEVICE_COUNTERS_MAX_134}"), path)


# -- consumable capacity ----------------------------------------------------------------------

def _check_request_policy(em: Emitter, capacity_value: Any, policy: dict, path: tuple) -> None:
    cap = _quantity(capacity_value)
    if cap is None:
        return  # malformed quantities are the schema's business
    valid_values = get_list(policy, "validValues")
    valid_range = get_obj(policy, "validRange")
    if valid_values is BAD or valid_range is BAD:
        return
    if valid_values and valid_range is not None:
        em.add(C_REQUEST_POLICY, forbidden('exactly one policy can be specified, cannot specify '
                                           '"validValues" and "validRange" at the same time'), path)
        return
    default_raw = policy.get("default")
    if valid_values:
        if default_raw is None:
            em.add(C_REQUEST_POLICY, required("required when validValues is defined"),
                   path + ("default",))
            return
        default = _quantity(default_raw)
        if default is None:
            return
        _check_valid_values(em, default, cap, valid_values, path + ("validValues",))
    elif valid_range is not None:
        if default_raw is None:
            em.add(C_REQUEST_POLICY, required("required when validRange is defined"),
                   path + ("default",))
            return
        default = _quantity(default_raw)
        if default is None:
            return
        _check_valid_range(em, default, cap, valid_range, path + ("validRange",))


def _check_valid_values(em: Emitter, default: Quantity, cap: Quantity, raw_values: list,
                        path: tuple) -> None:
    values = [_quantity(v) for v in raw_values]
    if any(v is None for v in values):
        return
    for i in range(len(values) - 1):
        if values[i].cmp(values[i + 1]) > 0:
            em.add(C_REQUEST_POLICY, invalid(str(values[i + 1]), "values must be sorted in "
                                                                 "ascending order"), path + (i + 1,))
    found_default = False
    if len(values) > VALID_VALUES_MAX:
        em.add(C_REQUEST_POLICY, too_many(len(values), VALID_VALUES_MAX), path)
    else:
        fractional = common.gate_enabled(em, "DRAFractionalCapacityRange")
        seen: set = set()
        for i, option in enumerate(values):
            if option.cmp(cap) > 0:
                em.add(C_REQUEST_POLICY, invalid(str(option), f"option is larger than capacity "
                                                              f"value: {cap}"), path + (i,))
            if option.cmp(default) == 0:
                found_default = True
        for i, option in enumerate(values):
            key = _decimal_text(option) if fractional else str(option.ceil_int())
            if key in seen:
                em.add(C_REQUEST_POLICY, duplicate(key), path + (i,))
            seen.add(key)
    if not found_default:
        em.add(C_REQUEST_POLICY, invalid(str(default), "default value is not valid according to "
                                                       "the requestPolicy"), path)


def _decimal_text(q: Quantity) -> str:
    v = q.value
    if v.denominator == 1:
        return str(v.numerator)
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        return format(Decimal(v.numerator) / Decimal(v.denominator), "f")


def _is_fractional(q: Quantity) -> bool:
    return q.value.denominator != 1


def _check_valid_range(em: Emitter, default: Quantity, cap: Quantity, vrange: dict,
                       path: tuple) -> None:
    if vrange.get("min") is None:
        em.add(C_REQUEST_POLICY, required("required when validRange is defined"), path + ("min",))
        return
    lo = _quantity(vrange.get("min"))
    hi = _quantity(vrange.get("max")) if vrange.get("max") is not None else None
    step = _quantity(vrange.get("step")) if vrange.get("step") is not None else None
    if lo is None or (vrange.get("max") is not None and hi is None) or \
            (vrange.get("step") is not None and step is None):
        return
    if lo.cmp(cap) > 0:
        em.add(C_REQUEST_POLICY, invalid(str(lo), f"min is larger than capacity value: {cap}"),
               path + ("min",))
    if default.cmp(lo) < 0:
        em.add(C_REQUEST_POLICY, invalid(str(default), f"default is less than min: {lo}"),
               path + ("default",))
    if hi is not None:
        if lo.cmp(hi) > 0:
            em.add(C_REQUEST_POLICY, invalid(str(lo), f"min is larger than max: {hi}"),
                   path + ("max",))
        if hi.cmp(cap) > 0:
            em.add(C_REQUEST_POLICY, invalid(str(hi), f"max is larger than capacity value: {cap}"),
                   path + ("max",))
        if default.cmp(hi) > 0:
            em.add(C_REQUEST_POLICY, invalid(str(default), f"default is more than max: {hi}"),
                   path + ("default",))
    named = [("default", default), ("min", lo), ("max", hi), ("step", step)]
    fractional_on = common.gate_enabled(em, "DRAFractionalCapacityRange")
    use_milli = fractional_on and any(q is not None and _is_fractional(q) for _, q in named)
    if not fractional_on:
        _lint_fractional_bounds(em, [q for _, q in named[1:]], path)
    if use_milli:
        unsafe = False
        for name, q in named:
            if q is not None and (q.value * 1000).denominator != 1:
                em.add(C_REQUEST_POLICY, invalid(str(q), "value cannot be represented as a milli "
                                                         "value"), path + (name,))
                unsafe = True
        if unsafe:
            return
    if step is None:
        return
    if step.sign() <= 0:
        em.add(C_REQUEST_POLICY, invalid(str(step), "must be greater than zero"), path + ("step",))
        return
    added = lo + step
    if added.cmp(cap) > 0:
        em.add(C_REQUEST_POLICY, invalid(str(step), f"one step {added} is larger than capacity "
                                                    f"value: {cap}"), path + ("step",))
    if not use_milli:
        unsafe = False
        for name, q in named:
            if q is None:
                continue
            if q.sign() < 0:
                em.add(C_REQUEST_POLICY, invalid(str(q), "must be greater than or equal to 0"),
                       path + (name,))
                unsafe = True
            elif q.value > _MAX_INT64:
                em.add(C_REQUEST_POLICY, invalid(str(q), "must not be larger than "
                                                         "9223372036854775807"), path + (name,))
                unsafe = True
        if unsafe:
            return
    for value in (default, hi):
        if value is None:
            continue
        if use_milli:
            v, m, s = value.milli_value(), lo.milli_value(), step.milli_value()
        else:
            v, m, s = value.ceil_int(), lo.ceil_int(), step.ceil_int()
        if s != 0 and _go_mod(v - m, s) != 0:
            em.add(C_REQUEST_POLICY, invalid(str(value), f"value is not a multiple of a given step "
                                                         f"({step}) from ({lo})"), path + ("step",))


def _lint_fractional_bounds(em: Emitter, bounds: list, path: tuple) -> None:
    """dractl's lint: with DRAFractionalCapacityRange off the API server accepts fractional
    bounds, and validation and the scheduler then use resource.Quantity.Value(), which rounds
    0.5 up to 1."""
    if any(q is not None and _is_fractional(q) for q in bounds):
        em.add(C_FRACTIONAL_OFF, "validRange has fractional bounds, but feature gate "
                                 "DRAFractionalCapacityRange is disabled for Kubernetes "
                                 f"{em.ctx.kube_version} with the selected --feature-gates (in "
                                 "1.37 it is on only with --min-compatibility-version=1.37): "
                                 "min, max and step are rounded up to whole units", path)


def _go_mod(a: int, b: int) -> int:
    """Go's % (truncated toward zero)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


# -- node allocatable resources, 1.36 shape (1.37's is in slicefields) -------------------------

def _is_node_allocatable_name(name: str) -> bool:
    return name in ("cpu", "memory", "ephemeral-storage") or name.startswith("hugepages-")


def _check_node_allocatable(em: Emitter, mappings: dict, capacity: dict, path: tuple) -> None:
    """[wording?] R44: standard node-allocatable names, a capacity key, non-negative multiplier."""
    for name in sorted(k for k in mappings if isinstance(k, str)):
        mapping = mappings[name]
        kpath = path + (MapKey(name),)
        if not _is_node_allocatable_name(name):
            em.add(C_NODE_ALLOCATABLE, invalid(name, "must be a node allocatable resource name"),
                   kpath)
        if not isinstance(mapping, dict):
            continue
        key = mapping.get("capacityKey")
        if isinstance(key, str):
            if key == "":
                em.add(C_NODE_ALLOCATABLE, invalid("", "capacityKey must not be an empty string"),
                       kpath + ("capacityKey",))
            else:
                check_qualified_name(em, C_NODE_ALLOCATABLE, key, kpath + ("capacityKey",))
                if key not in capacity:
                    from ._base import not_found

                    em.add(C_NODE_ALLOCATABLE, not_found(key), kpath + ("capacityKey",))
        multiplier = mapping.get("allocationMultiplier")
        if multiplier is not None:
            q = _quantity(multiplier)
            if q is not None and q.sign() < 0:
                em.add(C_NODE_ALLOCATABLE, invalid(str(q), "must be greater than or equal to 0"),
                       kpath + ("allocationMultiplier",))

