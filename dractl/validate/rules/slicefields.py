"""ResourceSlice fields new in Kubernetes 1.37 (codes 1232-1234), and the 1.37 shape of the node
allocatable resources.

Sources (docs/spec/api-and-scheduling.md#slice-fields-137): k/k
pkg/apis/resource/validation/validation.go at ae5d4d35 for `partitionTypeAttribute`,
`skipNodeOperations` and `nodeAllocatableResources` (exact messages); the released API documentation
for `compatibilityGroups` (#139795 merged after that commit). The #139795 review (liggitt,
2026-07-22, staging/src/k8s.io/api/resource/v1/types.go) shows the field validated declaratively,
`+k8s:listType=atomic`, `+k8s:optional`, `+k8s:maxItems` (8 in the PR, cut to the released 2 in that
review): declarative maxItems reports apimachinery's `field.TooMany` ("Too many: 3: must have at
most 2 items") and stops there, as below. Which tag enforces "the names must be unique" was not
visible, so the Duplicate message stays UNCONFIRMED; so does any rule on a group name's format (none
is documented).

* `spec.partitionTypeAttribute` (gate DRAPartitionableDevicesType): only on a slice with a device
  that consumes counters; every such device must carry it as a string attribute, looked up under
  the full name or, in the driver's own domain, the bare name.
* `spec.skipNodeOperations` and `status.allocation.devices.results[].skipNodeOperations` (gate
  DRAOptionalNodeOperations): a set of `NodePrepareResources`, `NodeUnprepareResources`, `*`;
  preparing may only be skipped when unpreparing is skipped too.
* `devices[].consumesCounters[].compatibilityGroups` (gate DRADeviceCompatibilityGroups): at
  most 2, unique.
* `devices[].nodeAllocatableResources` (1.37; gate DRANodeAllocatableResources) replaces 1.36's
  `nodeAllocatableResourceMappings`: a map of node-allocatable names to `{mapping?, overhead?}`.
"""

from __future__ import annotations

from typing import Any

from dractl.api.limits import (
    COMPATIBILITY_GROUPS_MAX,
)
from dractl.findings import ERROR, WARNING, MapKey, register

from . import common
from ._base import (
    BAD,
    Emitter,
    duplicate,
    get_list,
    get_map,
    get_obj,
    get_opt_str,
    invalid,
    not_found,
    required,
    too_many,
    unsupported,
)
from ._base import parsed_quantity as _quantity
from ._formats import check_fully_qualified_name

C_COMPATIBILITY_GROUPS = register("DRA1232", ERROR,
                                  "consumesCounters compatibilityGroups: more than 2 or repeated")
C_PARTITION_TYPE = register("DRA1233", ERROR,
                            "partitionTypeAttribute on a slice without counter-consuming devices, "
                            "malformed, or missing / not a string on such a device")
C_SKIP_NODE_OPERATIONS = register("DRA1234", ERROR,
                                  "skipNodeOperations has an unknown or repeated value, or skips "
                                  "NodePrepareResources without NodeUnprepareResources")

SKIP_PREPARE, SKIP_UNPREPARE, SKIP_ALL = "NodePrepareResources", "NodeUnprepareResources", "*"
# Declarative enum; the order of upstream's "supported values" list is UNCONFIRMED (sorted here).
_SKIP_VALUES = sorted((SKIP_ALL, SKIP_PREPARE, SKIP_UNPREPARE))

NODE_ALLOCATABLE_137 = "nodeAllocatableResources"
NODE_ALLOCATABLE_136 = "nodeAllocatableResourceMappings"


def node_allocatable_field(em: Emitter) -> str:
    """The device field of the target release (1.36's was tombstoned in 1.37)."""
    return NODE_ALLOCATABLE_137 if em.in_force("node_allocatable_second_alpha") else NODE_ALLOCATABLE_136


# -- feature gates --------------------------------------------------------------------------

def drop_disabled(em: Emitter, spec: dict, devices: list) -> None:
    """Drop the 1.37 fields whose gate is off, with a DRA1910 lint each (API server on create)."""
    if not common.gate_enabled(em, "DRAPartitionableDevicesType") and \
            spec.get("partitionTypeAttribute") is not None:
        del spec["partitionTypeAttribute"]
        common.gate_dropped(em, "DRAPartitionableDevicesType", "partitionTypeAttribute",
                            ("spec", "partitionTypeAttribute"))
    if not common.gate_enabled(em, "DRAOptionalNodeOperations") and \
            spec.get("skipNodeOperations") is not None:
        del spec["skipNodeOperations"]
        common.gate_dropped(em, "DRAOptionalNodeOperations", "skipNodeOperations",
                            ("spec", "skipNodeOperations"),
                            "the kubelet then calls NodePrepareResources and "
                            "NodeUnprepareResources for these devices")
    if common.gate_enabled(em, "DRADeviceCompatibilityGroups"):
        return
    for i, device in enumerate(devices):
        consumes = device.get("consumesCounters") if isinstance(device, dict) else None
        for n, consumption in enumerate(consumes if isinstance(consumes, list) else []):
            if isinstance(consumption, dict) and consumption.get("compatibilityGroups") is not None:
                del consumption["compatibilityGroups"]
                common.gate_dropped(em, "DRADeviceCompatibilityGroups", "compatibilityGroups",
                                    ("spec", "devices", i, "consumesCounters", n,
                                     "compatibilityGroups"),
                                    "the device is then treated as having no groups")


# -- skipNodeOperations (slice spec and allocation results) -----------------------------------

def check_skip_node_operations(em: Emitter, code: str, operations: Any, path: tuple) -> None:
    if not isinstance(operations, list) or not operations:
        return
    seen: set = set()
    for k, value in enumerate(operations):
        if not isinstance(value, str):
            continue
        if value not in _SKIP_VALUES:
            em.add(code, unsupported(value, _SKIP_VALUES), path + (k,))
        if value in seen:
            em.add(code, duplicate(value), path + (k,))
        seen.add(value)
    if SKIP_PREPARE in seen and not ({SKIP_UNPREPARE, SKIP_ALL} & seen):
        em.add(code, invalid(operations, "NodePrepareResources cannot be skipped unless "
                                         "NodeUnprepareResources is also skipped"), path)


# -- compatibilityGroups --------------------------------------------------------------------

def check_compatibility_groups(em: Emitter, consumption: dict, path: tuple) -> None:
    groups = get_list(consumption, "compatibilityGroups")
    if groups is BAD or not groups:
        return
    gpath = path + ("compatibilityGroups",)
    if len(groups) > COMPATIBILITY_GROUPS_MAX:
        em.add(C_COMPATIBILITY_GROUPS, too_many(len(groups), COMPATIBILITY_GROUPS_MAX), gpath)
        return
    seen: set = set()
    for k, group in enumerate(groups):
        if not isinstance(group, str):
            continue
        if group in seen:
            em.add(C_COMPATIBILITY_GROUPS, duplicate(group), gpath + (k,))
        seen.add(group)


# -- partitionTypeAttribute -------------------------------------------------------------------

def check_partition_type_attribute(em: Emitter, spec: dict, devices: Any) -> None:
    name = get_opt_str(spec, "partitionTypeAttribute")
    if not isinstance(name, str):
        return
    path = ("spec", "partitionTypeAttribute")
    consuming = [(i, d) for i, d in enumerate(devices if isinstance(devices, list) else [])
                 if isinstance(d, dict) and d.get("consumesCounters")]
    if not consuming:
        em.add(C_PARTITION_TYPE, invalid(name, "may only be set on a slice which declares devices "
                                               "that consume counters"), path)
        return
    before = len(em.findings)
    check_fully_qualified_name(em, C_PARTITION_TYPE, name, path)
    if len(em.findings) > before:
        return  # upstream reports only the format error for a malformed name
    domain, _, bare = name.partition("/")
    driver = spec.get("driver")
    for i, device in consuming:
        attributes = get_map(device, "attributes")
        if attributes is BAD:
            continue
        key = name if name in attributes else (bare if domain == driver and bare in attributes
                                               else None)
        if key is None:
            em.add(C_PARTITION_TYPE, required("device consumes counters and "
                                              "`partitionTypeAttribute` names this attribute, so "
                                              "it must be set"),
                   ("spec", "devices", i, "attributes", MapKey(name)))
            continue
        value = attributes[key]
        if isinstance(value, dict) and not isinstance(value.get("string"), str):
            em.add(C_PARTITION_TYPE, invalid(value, "must be a string value because "
                                                    "`partitionTypeAttribute` names this "
                                                    "attribute"),
                   ("spec", "devices", i, "attributes", MapKey(key)))


# -- nodeAllocatableResources (1.37) ----------------------------------------------------------

def is_node_allocatable_name(name: str) -> bool:
    return name in ("cpu", "memory", "ephemeral-storage") or name.startswith("hugepages-")


def check_node_allocatable_resources(em: Emitter, code: str, resources: dict, capacity: Any,
                                     path: tuple) -> None:
    """validateNodeAllocatableResources (1.37): exact upstream messages (B.6)."""
    capacity = capacity if isinstance(capacity, dict) else {}
    for name in sorted(k for k in resources if isinstance(k, str)):
        kpath = path + (MapKey(name),)
        if not is_node_allocatable_name(name):
            em.add(code, invalid(name, "must be a node allocatable resource name"), kpath)
        entry = resources[name]
        if not isinstance(entry, dict):
            continue
        mapping = get_obj(entry, "mapping")
        overhead = get_obj(entry, "overhead")
        if mapping is None and overhead is None:
            em.add(code, required("at least one of mapping or overhead must be set"), kpath)
        if isinstance(mapping, dict):
            _check_mapping(em, code, mapping, capacity, kpath + ("mapping",))
        if isinstance(overhead, dict):
            _check_overhead(em, code, overhead, kpath + ("overhead",))


def _check_mapping(em: Emitter, code: str, mapping: dict, capacity: dict, path: tuple) -> None:
    key = get_opt_str(mapping, "capacityKey")
    multiplier = mapping.get("capacityMultiplier")
    if isinstance(key, str):
        if key == "":
            em.add(code, invalid("", "capacityKey must not be an empty string"),
                   path + ("capacityKey",))
        elif key not in capacity:
            em.add(code, not_found(key), path + ("capacityKey",))
        if multiplier is None:
            em.add(code, required("capacityMultiplier is required when capacityKey is set"),
                   path + ("capacityMultiplier",))
    elif key is None and multiplier is not None:
        em.add(code, required("capacityKey is required when capacityMultiplier is set"),
               path + ("capacityKey",))
    for field in ("capacityMultiplier", "deviceMultiplier"):
        q = _quantity(mapping.get(field))
        if q is not None and q.sign() <= 0:
            em.add(code, invalid(str(q), "must be positive"), path + (field,))


def _check_overhead(em: Emitter, code: str, overhead: dict, path: tuple) -> None:
    if overhead.get("perPod") is None and overhead.get("perContainer") is None:
        em.add(code, invalid("", "at least one of perPod or perContainer must be set"), path)
    for field in ("perPod", "perContainer"):
        q = _quantity(overhead.get(field))
        if q is not None and q.sign() < 0:
            em.add(code, invalid(str(q), "must be non-negative"), path + (field,))


# -- standard attributes (dractl's lint) ------------------------------------------------------

STANDARD_DOMAIN = "resource.kubernetes.io"
# k8s.io/dynamic-resource-allocation/deviceattribute: name -> the attribute members it may use.
# numaNode is KEP-6072 (stable in 1.37): an int, or with DRAListTypeAttributes an int list
# (physical node first); pcieRoot may be a list with DRAListTypeAttributes (KEP-5491).
STANDARD_ATTRIBUTES = {
    "resource.kubernetes.io/numaNode": ("int", "ints"),
    "resource.kubernetes.io/pciBusID": ("string",),
    "resource.kubernetes.io/pcieRoot": ("string", "strings"),
}
_MEMBER_TYPES = {"int": "an int", "ints": "an int list", "string": "a string",
                 "strings": "a string list", "bool": "a bool", "bools": "a bool list",
                 "version": "a version", "versions": "a version list"}

C_STANDARD_ATTRIBUTE = register("DRA1235", WARNING,
                                "attribute in the resource.kubernetes.io domain is not a standard "
                                "attribute, or has the wrong type", "dractl")


_STANDARD_PREFIX = STANDARD_DOMAIN + "/"


def lint_standard_attributes(em: Emitter, attributes: dict, path: tuple) -> None:
    """Warn about `resource.kubernetes.io/` attributes that are not the standard ones, or whose
    type differs from what the standard helpers publish (selectors and constraints written for
    the standard name then fail or never match)."""
    standard = sorted(k for k in attributes
                      if isinstance(k, str) and k.startswith(_STANDARD_PREFIX))
    if not standard:
        return  # the usual case: no attribute in the domain (and nothing to import)
    from dractl.suggest import closest_match

    for key in standard:
        kpath = path + (MapKey(key),)
        allowed = STANDARD_ATTRIBUTES.get(key)
        if allowed is None:
            match = closest_match(key, sorted(STANDARD_ATTRIBUTES), cutoff=0.6)
            hint = f' (did you mean "{match}"?)' if match else ""
            em.add(C_STANDARD_ATTRIBUTE, f'"{key}" is not a standard attribute of the '
                                         f"{STANDARD_DOMAIN} domain (standard: "
                                         f"{', '.join(sorted(STANDARD_ATTRIBUTES))}){hint}", kpath)
            continue
        value = attributes[key]
        members = [m for m in (value if isinstance(value, dict) else {}) if value[m] is not None
                   and m in _MEMBER_TYPES]
        if len(members) == 1 and members[0] not in allowed:
            want = " or ".join(_MEMBER_TYPES[m] for m in allowed)
            em.add(C_STANDARD_ATTRIBUTE, f'"{key}" is {_MEMBER_TYPES[members[0]]} here, but the '
                                         f"standard attribute is {want}", kpath)
