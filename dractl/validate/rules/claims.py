"""ResourceClaim and ResourceClaimTemplate (docs/spec/api-and-scheduling.md#claim-checklist, status
docs/spec/api-and-scheduling.md#claim-checklist). Codes 10xx.

Works on the v1 shape (older versions are converted first; the emitter maps paths back). Before
validating, the API server's defaulting (docs/spec/api-and-scheduling.md#defaulting) and the
dropping of fields of disabled feature gates (docs/spec/api-and-scheduling.md#modelling) are applied
to a private copy, so the errors are the ones the API server would return.
"""

from __future__ import annotations

from typing import Any

from dractl.api.defaults import default_allocation, default_request, default_tolerations
from dractl.api.limits import (
    ALLOCATION_CONFIG_MAX,
    ANNOTATIONS_MAX_BYTES,
    CONFIG_MAX,
    CONSTRAINTS_MAX,
    DEVICE_STATUS_CONDITIONS_MAX,
    HARDWARE_ADDRESS_MAX,
    INTERFACE_NAME_MAX,
    IPS_MAX,
    REQUESTS_MAX,
    RESERVED_FOR_MAX,
    RESULTS_MAX,
    SUBREQUESTS_MAX,
)
from dractl.findings import (
    ERROR,
    WARNING,  # severity of dractl's own lints (DRA1014, 1017, 1024, 1029)
    register,
)

from . import common, derived, slicefields
from ._base import (
    BAD,
    Emitter,
    duplicate,
    forbidden,
    get,
    get_int,
    get_list,
    get_map,
    get_obj,
    get_str,
    invalid,
    required,
    too_many,
    unsupported,
)
from ._formats import (
    check_dns_label,
    check_dns_subdomain,
    check_driver_name,
    check_label_name,
    check_label_value,
    check_pool_name,
    check_qualified_name,
    check_uid,
    is_dns1123_label,
    is_qualified_name,
)

C_REQUESTS_MAX = register("DRA1001", ERROR, "a claim has more than 32 requests")
C_REQUEST_NAME = register("DRA1002", ERROR, "request name is not a DNS label")
C_REQUEST_DUP = register("DRA1003", ERROR, "request names in a claim must be unique")
C_REQUEST_NONE = register("DRA1004", ERROR,
                          "request sets neither `exactly` nor `firstAvailable`")
C_REQUEST_BOTH = register("DRA1005", ERROR, "request sets both `exactly` and `firstAvailable`")
C_CLASS_NAME = register("DRA1006", ERROR, "deviceClassName is missing or not a DNS subdomain")
C_SELECTORS_MAX = register("DRA1007", ERROR, "a request has more than 32 selectors")
C_ALLOC_MODE = register("DRA1008", ERROR, "allocationMode is not ExactCount or All")
C_COUNT_POSITIVE = register("DRA1009", ERROR, "count must be greater than zero for ExactCount")
C_COUNT_ALL = register("DRA1010", ERROR, "count must not be set when allocationMode is All")
C_SUBREQUESTS_MAX = register("DRA1011", ERROR, "firstAvailable has more than 8 subrequests")
C_SUBREQUEST_NAME = register("DRA1012", ERROR, "subrequest name is not a DNS label")
C_SUBREQUEST_DUP = register("DRA1013", ERROR, "subrequest names in a request must be unique")
# dractl's lints: the API documents these rules but the API server does not enforce them.
C_TOLERATIONS_MAX = register("DRA1014", WARNING,
                             "a request has more than the documented 16 tolerations (not "
                             "enforced by the API server)", "dractl")
C_TOLERATION = register("DRA1015", ERROR, "invalid device toleration (key, operator, value, effect)")
C_CAPACITY_KEY = register("DRA1017", WARNING,
                          "capacity.requests key is not a valid capacity name (the API server "
                          "does not check these keys)", "dractl")
C_CONSTRAINTS_MAX = register("DRA1018", ERROR, "a claim has more than 32 constraints")
C_REQUEST_REF = register("DRA1019", ERROR,
                         "constraint/config request reference names no request or subrequest")
C_REQUEST_REF_DUP = register("DRA1020", ERROR,
                             "constraint/config lists the same request reference twice")
C_CONSTRAINT_ATTR = register("DRA1021", ERROR,
                             "constraint needs exactly one of matchAttribute or distinctAttribute")
C_CONSTRAINT_NAME = register("DRA1022", ERROR,
                             "constraint attribute is not a fully qualified name (domain/name)")
C_CONFIG_MAX = register("DRA1023", ERROR, "a claim has more than 32 config entries")
C_TOLERATION_EMPTY_KEY = register("DRA1029", WARNING,
                                  "device toleration with an empty key and operator Equal "
                                  "tolerates only taints with that exact value", "dractl")
C_CONSTRAINT_BOTH = register("DRA1024", WARNING,
                             "constraint sets both matchAttribute and distinctAttribute: "
                             "distinctAttribute is ignored", "dractl")
C_TEMPLATE_META = register("DRA1030", ERROR,
                           "claim template metadata sets more than labels and annotations, or an "
                           "invalid label/annotation")
# status
C_RESERVED_MAX = register("DRA1050", ERROR, "status.reservedFor has more than 256 entries")
C_RESERVED_ENTRY = register("DRA1051", ERROR, "status.reservedFor entry lacks resource, name or uid")
C_RESERVED_DUP = register("DRA1052", ERROR, "status.reservedFor lists the same uid twice")
C_RESERVED_UNALLOCATED = register("DRA1053", ERROR,
                                  "status.reservedFor is set but the claim is not allocated")
C_RESULTS_MAX = register("DRA1055", ERROR, "allocation has more than 32 results")
C_RESULT_REQUEST = register("DRA1056", ERROR,
                            "allocation result/config names a request that is not in the claim")
C_RESULT_DEVICE = register("DRA1057", ERROR,
                           "allocation result driver, pool or device name is invalid")
C_RESULT_BINDING = register("DRA1058", ERROR, "allocation result binding conditions are invalid")
C_SHARE_ID = register("DRA1059", ERROR, "shareID is not a normalized RFC 4122 UID")
C_ALLOC_CONFIG_MAX = register("DRA1060", ERROR, "allocation has more than 64 config entries")
C_ALLOC_CONFIG_SOURCE = register("DRA1061", ERROR,
                                 "allocation config source is not FromClass or FromClaim")
C_ALLOC_NODE_SELECTOR = register("DRA1062", ERROR, "allocation nodeSelector is invalid")
C_DEVICE_STATUS_UNALLOCATED = register("DRA1063", ERROR,
                                       "status.devices entry is not an allocated device, or has "
                                       "invalid driver/pool/device/shareID")
C_DEVICE_STATUS_DUP = register("DRA1064", ERROR, "status.devices lists the same device twice")
C_DEVICE_STATUS_CONDITIONS = register("DRA1065", ERROR,
                                      "status.devices conditions: more than 8 or malformed")
C_DEVICE_STATUS_DATA = register("DRA1066", ERROR,
                                "status.devices data is over 10 KiB or not a JSON object")
C_NETWORK_DATA = register("DRA1067", ERROR,
                          "status.devices networkData: name/address too long or invalid IPs")
C_RESULT_SKIP = register("DRA1068", ERROR,
                         "allocation result skipNodeOperations has an unknown or repeated value, "
                         "or skips NodePrepareResources without NodeUnprepareResources")


_REF_DETAIL = ("must be the name of a request in the claim or the name of a request and a "
               "subrequest separated by '/'")


# -- entry points ------------------------------------------------------------------------------

def check_resource_claim(em: Emitter, doc: dict, beta1: bool) -> None:
    common.check_object_name(em, doc, namespaced=True)
    spec = get_obj(doc, "spec")
    names: dict = {}
    if isinstance(spec, dict):
        prepare_claim_spec(em, spec, ("spec",), beta1)
        names = request_names(spec)
        check_claim_spec(em, spec, ("spec",), names)
    status = get_obj(doc, "status")
    if isinstance(status, dict):
        prepare_claim_status(em, status)
        check_claim_status(em, status, names)


def check_resource_claim_template(em: Emitter, doc: dict, beta1: bool) -> None:
    common.check_object_name(em, doc, namespaced=True)
    spec = get_obj(doc, "spec")
    if not isinstance(spec, dict):
        return
    meta = get_obj(spec, "metadata")
    if isinstance(meta, dict):
        check_template_metadata(em, meta, ("spec", "metadata"))
    inner = get_obj(spec, "spec")
    if isinstance(inner, dict):
        prepare_claim_spec(em, inner, ("spec", "spec"), beta1)
        check_claim_spec(em, inner, ("spec", "spec"), request_names(inner))


# -- defaulting and feature gates ---------------------------------------------------------------

def prepare_claim_spec(em: Emitter, spec: dict, path: tuple, beta1: bool) -> None:
    """Defaulting (docs/spec/api-and-scheduling.md#defaulting) then dropping of disabled-gate
    fields, with a lint per dropped field."""
    devices = get_obj(spec, "devices")
    if not isinstance(devices, dict):
        return
    requests = get_list(devices, "requests")
    for i, request in enumerate(requests if requests is not BAD else []):
        if not isinstance(request, dict):
            continue
        rpath = path + ("devices", "requests", i)
        exactly = get_obj(request, "exactly")
        subrequests = get_list(request, "firstAvailable")
        if isinstance(exactly, dict):
            # v1beta1 defaults the flat request only when it names a device class.
            if not beta1 or exactly.get("deviceClassName") not in (None, ""):
                default_allocation(exactly)
            default_tolerations(exactly.get("tolerations"))
        if subrequests is not BAD:
            for sub in subrequests:
                if isinstance(sub, dict):
                    default_request(sub)
        _drop_request_fields(em, request, rpath)
    constraints = get_list(devices, "constraints")
    if not common.gate_enabled(em, "DRAConsumableCapacity") and constraints is not BAD:
        for c, constraint in enumerate(constraints):
            if isinstance(constraint, dict) and constraint.get("distinctAttribute") is not None:
                del constraint["distinctAttribute"]
                common.gate_dropped(em, "DRAConsumableCapacity", "distinctAttribute",
                                    path + ("devices", "constraints", c, "distinctAttribute"))


def _drop_request_fields(em: Emitter, request: dict, rpath: tuple) -> None:
    exactly = get_obj(request, "exactly")
    subrequests = get_list(request, "firstAvailable")
    if not common.gate_enabled(em, "DRAPrioritizedList") and isinstance(subrequests, list) \
            and subrequests:
        del request["firstAvailable"]
        common.gate_dropped(em, "DRAPrioritizedList", "firstAvailable", rpath + ("firstAvailable",),
                            "the request is left without `firstAvailable`" +
                            ("" if isinstance(exactly, dict) else
                             ", so it sets neither `exactly` nor `firstAvailable`"))
        subrequests = []
    targets: list[tuple[dict, tuple]] = []
    if isinstance(exactly, dict):
        targets.append((exactly, rpath + ("exactly",)))
    if isinstance(subrequests, list):
        targets.extend((sub, rpath + ("firstAvailable", j)) for j, sub in enumerate(subrequests)
                       if isinstance(sub, dict))
    if isinstance(exactly, dict) and exactly.get("adminAccess") is not None and \
            not common.gate_enabled(em, "DRAAdminAccess"):
        del exactly["adminAccess"]
        common.gate_dropped(em, "DRAAdminAccess", "adminAccess", rpath + ("exactly", "adminAccess"),
                            "the devices are allocated exclusively instead")
    for obj, opath in targets:
        if obj.get("tolerations") is not None and not common.gate_enabled(em, "DRADeviceTaints"):
            del obj["tolerations"]
            common.gate_dropped(em, "DRADeviceTaints", "tolerations", opath + ("tolerations",),
                                "tainted devices will not be tolerated")
        if obj.get("capacity") is not None and not common.gate_enabled(em, "DRAConsumableCapacity"):
            del obj["capacity"]
            common.gate_dropped(em, "DRAConsumableCapacity", "capacity", opath + ("capacity",))
        if obj.get("derivedAttributes") is not None and not common.gate_enabled(em, derived.GATE):
            del obj["derivedAttributes"]
            common.gate_dropped(em, derived.GATE, "derivedAttributes",
                                opath + ("derivedAttributes",),
                                "a constraint that names a derived attribute then finds no such "
                                "attribute on the devices")


def prepare_claim_status(em: Emitter, status: dict) -> None:
    _drop_result_skip_node_operations(em, status)
    if status.get("devices") is not None and \
            not common.gate_enabled(em, "DRAResourceClaimDeviceStatus"):
        del status["devices"]
        common.gate_dropped(em, "DRAResourceClaimDeviceStatus", "status.devices",
                            ("status", "devices"))


def _drop_result_skip_node_operations(em: Emitter, status: dict) -> None:
    """results[].skipNodeOperations with DRAOptionalNodeOperations off: dropped unless the old
    object had it (resourceclaim strategy_test "drop-fields-optional-node-operations")."""
    if common.gate_enabled(em, "DRAOptionalNodeOperations"):
        return
    results = get_list(get_obj(get_obj(status, "allocation"), "devices"), "results")
    for i, result in enumerate(results if isinstance(results, list) else []):
        if isinstance(result, dict) and result.get("skipNodeOperations") is not None:
            del result["skipNodeOperations"]
            common.gate_dropped(em, "DRAOptionalNodeOperations", "skipNodeOperations",
                                ("status", "allocation", "devices", "results", i,
                                 "skipNodeOperations"))


# -- spec ---------------------------------------------------------------------------------------

def request_names(spec: Any) -> dict:
    """request name -> set of subrequest names (None when the request has no firstAvailable)."""
    names: dict = {}
    requests = get_list(get_obj(spec, "devices"), "requests")
    if requests is BAD:
        return names
    for request in requests:
        if not isinstance(request, dict):
            continue
        name = request.get("name")
        if not isinstance(name, str):
            name = ""
        subs = request.get("firstAvailable")
        if isinstance(subs, list) and subs:
            names[name] = {s.get("name") for s in subs if isinstance(s, dict)
                           and isinstance(s.get("name"), str)}
        else:
            names[name] = None
    return names


def has_request_ref(names: dict, ref: str) -> bool:
    parts = ref.split("/")
    if len(parts) > 2 or parts[0] not in names:
        return False
    if len(parts) == 1:
        return True
    subs = names[parts[0]]
    return subs is not None and parts[1] in subs


def check_request_ref(em: Emitter, code: str, ref: str, path: tuple, names: dict) -> None:
    parts = ref.split("/")
    if len(parts) > 2:
        em.add(code, invalid(ref, _REF_DETAIL), path)
        return
    for part in parts:
        for msg in is_dns1123_label(part):
            em.add(code, invalid(part, msg), path)
    if not has_request_ref(names, ref):
        em.add(code, invalid(ref, _REF_DETAIL), path)


def _check_request_refs(em: Emitter, code: str, obj: dict, path: tuple, names: dict) -> None:
    refs = get_list(obj, "requests")
    if refs is BAD:
        return
    if len(refs) > REQUESTS_MAX:
        em.add(code, too_many(len(refs), REQUESTS_MAX), path)
        return
    seen: set = set()
    for r, ref in enumerate(refs):
        if not isinstance(ref, str):
            continue
        check_request_ref(em, code, ref, path + (r,), names)
    for r, ref in enumerate(refs):
        if not isinstance(ref, str):
            continue
        if ref in seen:
            em.add(C_REQUEST_REF_DUP if code == C_REQUEST_REF else code, duplicate(ref),
                   path + (r,))
        seen.add(ref)


def check_claim_spec(em: Emitter, spec: dict, path: tuple, names: dict) -> None:
    devices = get_obj(spec, "devices")
    if not isinstance(devices, dict):
        return
    dpath = path + ("devices",)
    requests = get_list(devices, "requests")
    constraints = get_list(devices, "constraints")
    if requests is not BAD:
        if len(requests) > REQUESTS_MAX:
            em.add(C_REQUESTS_MAX, too_many(len(requests), REQUESTS_MAX), dpath + ("requests",))
        else:
            for i, request in enumerate(requests):
                if isinstance(request, dict):
                    _check_request(em, request, dpath + ("requests", i))
                    derived.check_request(em, request, dpath + ("requests", i),
                                          constraints if constraints is not BAD else None)
            _check_unique_names(em, C_REQUEST_DUP, requests, dpath + ("requests",))

    if constraints is not BAD:
        if len(constraints) > CONSTRAINTS_MAX:
            em.add(C_CONSTRAINTS_MAX, too_many(len(constraints), CONSTRAINTS_MAX),
                   dpath + ("constraints",))
        else:
            for c, constraint in enumerate(constraints):
                if isinstance(constraint, dict):
                    _check_constraint(em, constraint, dpath + ("constraints", c), names)

    configs = get_list(devices, "config")
    if configs is not BAD:
        if len(configs) > CONFIG_MAX:
            em.add(C_CONFIG_MAX, too_many(len(configs), CONFIG_MAX), dpath + ("config",))
        else:
            for c, config in enumerate(configs):
                if isinstance(config, dict):
                    cpath = dpath + ("config", c)
                    _check_request_refs(em, C_REQUEST_REF, config, cpath + ("requests",), names)
                    common.check_device_configuration(em, config, cpath)


def _check_unique_names(em: Emitter, code: str, items: list, path: tuple) -> None:
    seen: set = set()
    for i, item in enumerate(items):
        name = get(item, "name")
        if name is None:
            name = ""
        if not isinstance(name, str):
            continue
        if name in seen:
            em.add(code, duplicate(name), path + (i,))
        seen.add(name)


def _check_request(em: Emitter, request: dict, path: tuple) -> None:
    name = get_str(request, "name")
    if name is not BAD:
        check_dns_label(em, C_REQUEST_NAME, name, path + ("name",))
    exactly = get_obj(request, "exactly")
    subrequests = get_list(request, "firstAvailable")
    if exactly is BAD or subrequests is BAD:
        return
    has_first = len(subrequests) > 0
    has_exactly = exactly is not None
    if not has_first and not has_exactly:
        em.add(C_REQUEST_NONE, required("exactly one of `exactly` or `firstAvailable` is required"),
               path)
    elif has_first and has_exactly:
        em.add(C_REQUEST_BOTH, invalid(None, "exactly one of `exactly` or `firstAvailable` is "
                                             "required, but multiple fields are set"), path)
    elif has_first:
        if len(subrequests) > SUBREQUESTS_MAX:
            em.add(C_SUBREQUESTS_MAX, too_many(len(subrequests), SUBREQUESTS_MAX),
                   path + ("firstAvailable",))
            return
        for j, sub in enumerate(subrequests):
            if not isinstance(sub, dict):
                continue
            spath = path + ("firstAvailable", j)
            sub_name = get_str(sub, "name")
            if sub_name is not BAD:
                check_dns_label(em, C_SUBREQUEST_NAME, sub_name, spath + ("name",))
            _check_exact_fields(em, sub, spath)
        _check_unique_names(em, C_SUBREQUEST_DUP, subrequests, path + ("firstAvailable",))
    else:
        _check_exact_fields(em, exactly, path + ("exactly",))


def _check_exact_fields(em: Emitter, request: dict, path: tuple) -> None:
    """Fields shared by ExactDeviceRequest and DeviceSubRequest."""
    class_name = get_str(request, "deviceClassName")
    if class_name is not BAD:
        if class_name == "":
            em.add(C_CLASS_NAME, required(), path + ("deviceClassName",))
        else:
            check_dns_subdomain(em, C_CLASS_NAME, class_name, path + ("deviceClassName",))
    selectors = get_list(request, "selectors")
    if selectors is not BAD:
        common.check_selectors(em, selectors, path + ("selectors",), C_SELECTORS_MAX)
    _check_allocation_mode(em, request, path)
    tolerations = get_list(request, "tolerations")
    if tolerations is not BAD:
        # "The maximum number of tolerations is 16" is documented, but no release's validation
        # enforces it (the constant left the types in 1.36): a dractl lint, and every entry is
        # still validated like the API server does.
        if len(tolerations) > common.TOLERATIONS_MAX:
            em.add(C_TOLERATIONS_MAX, too_many(len(tolerations), common.TOLERATIONS_MAX) +
                   " (documented limit; the API server does not enforce it)",
                   path + ("tolerations",))
        common.check_tolerations(em, C_TOLERATION, tolerations, path + ("tolerations",), None)
        _lint_empty_key_tolerations(em, tolerations, path + ("tolerations",))
    capacity = get_obj(request, "capacity")
    if isinstance(capacity, dict):
        requests = get_map(capacity, "requests")
        if requests is not BAD:
            for key in sorted(k for k in requests if isinstance(k, str)):
                _lint_capacity_key(em, key, path + ("capacity", "requests"))


def _check_allocation_mode(em: Emitter, request: dict, path: tuple) -> None:
    mode = get_str(request, "allocationMode")
    count = get_int(request, "count")
    if mode is BAD or count is BAD:
        return
    if mode == "All":
        if count != 0:
            em.add(C_COUNT_ALL, invalid(count, "must not be specified when allocationMode is "
                                               "'All'"), path + ("count",))
    elif mode == "ExactCount":
        if count <= 0:
            em.add(C_COUNT_POSITIVE, invalid(count, "must be greater than zero"), path + ("count",))
    else:
        em.add(C_ALLOC_MODE, unsupported(mode, ["All", "ExactCount"]), path + ("allocationMode",))


def _check_constraint(em: Emitter, constraint: dict, path: tuple, names: dict) -> None:
    _check_request_refs(em, C_REQUEST_REF, constraint, path + ("requests",), names)
    match = get_str(constraint, "matchAttribute", None)
    distinct = get_str(constraint, "distinctAttribute", None)
    if match is BAD or distinct is BAD:
        return
    if match is not None and distinct is not None:
        # Upstream validateDeviceConstraint accepts both (if/else-if, no union); every
        # allocator then applies matchAttribute only.
        em.add(C_CONSTRAINT_BOTH, "both matchAttribute and distinctAttribute are set: the API "
                                  "server accepts this, but the scheduler applies only "
                                  f"matchAttribute ({match!r}) and ignores distinctAttribute "
                                  f"({distinct!r})", path)
    if match is not None:
        common_name_check(em, match, path + ("matchAttribute",))
    elif distinct is not None:
        common_name_check(em, distinct, path + ("distinctAttribute",))
    elif common.gate_enabled(em, "DRAConsumableCapacity"):
        # Sic: upstream uses the "multiple fields are set" text for the none-set case too.
        em.add(C_CONSTRAINT_ATTR, required('exactly one of "matchAttribute" or '
                                           '"distinctAttribute" is required, but multiple fields '
                                           'are set'), path)
    else:
        em.add(C_CONSTRAINT_ATTR, required(), path + ("matchAttribute",))


def _lint_empty_key_tolerations(em: Emitter, tolerations: list, path: tuple) -> None:
    """dractl's lint for a valid but surprising device toleration: with an empty key, `Equal`
    (also the default operator) matches every taint key but still compares the value, so
    `{effect: NoSchedule}` tolerates only taints whose value is empty (resourceclaim.
    ToleratesTaint). Pod tolerations reject this shape; device tolerations accept it."""
    for i, toleration in enumerate(tolerations):
        if not isinstance(toleration, dict) or toleration.get("key") not in (None, "") or \
                toleration.get("operator") != "Equal":
            continue
        value = toleration.get("value") if isinstance(toleration.get("value"), str) else ""
        em.add(C_TOLERATION_EMPTY_KEY, f"key is empty and operator is Equal: this tolerates "
                                       f"taints of every key whose value is {value!r} only; use "
                                       "`operator: Exists` to tolerate all taints"
                                       + (" of this effect" if toleration.get("effect") else ""),
               path + (i,))


def _lint_capacity_key(em: Emitter, key: str, path: tuple) -> None:
    """dractl's lint: upstream validates no capacity.requests key (neither the hand-written nor
    the declarative rules), but devices publish capacities only under valid qualified names, so
    a request for any other name can never be satisfied."""
    probe = Emitter(em.ctx)
    check_qualified_name(probe, C_CAPACITY_KEY, key, path, strict_slashes=True)
    if key.count("/") > 1 and not em.in_force("qualified_name_single_slash"):
        note = ("dractl lint: the API server does not check capacity.requests keys; device "
                "capacity names with more than one slash are accepted up to 1.37 and rejected "
                "from 1.38")
    else:
        note = ("dractl lint: the API server does not check capacity.requests keys, but no "
                "device can publish a capacity of this name")
    for finding in probe.findings:
        em.add(C_CAPACITY_KEY, f"{finding.message} ({note})", path)


def common_name_check(em: Emitter, value: str, path: tuple) -> None:
    from ._formats import check_fully_qualified_name

    check_fully_qualified_name(em, C_CONSTRAINT_NAME, value, path)


# -- template metadata ----------------------------------------------------------------------------

_TEMPLATE_META_ALLOWED = ("labels", "annotations")


def check_template_metadata(em: Emitter, meta: dict, path: tuple) -> None:
    labels = get_map(meta, "labels")
    if labels is not BAD:
        for key in sorted(k for k in labels if isinstance(k, str)):
            check_label_name(em, C_TEMPLATE_META, key, path + ("labels",))
            value = labels[key]
            if isinstance(value, str):
                check_label_value(em, C_TEMPLATE_META, value, path + ("labels",))
    annotations = get_map(meta, "annotations")
    if annotations is not BAD:
        total = 0
        for key in sorted(k for k in annotations if isinstance(k, str)):
            for msg in is_qualified_name(key.lower()):
                em.add(C_TEMPLATE_META, invalid(key, msg), path + ("annotations",))
            value = annotations[key]
            total += len(key) + (len(value) if isinstance(value, str) else 0)
        if total > ANNOTATIONS_MAX_BYTES:
            em.add(C_TEMPLATE_META, f"Too long: must have at most {ANNOTATIONS_MAX_BYTES} bytes",
                   path + ("annotations",))
    for key in meta:
        if key in _TEMPLATE_META_ALLOWED or meta[key] in (None, "", [], {}, 0):
            continue
        em.add(C_TEMPLATE_META, forbidden("cannot be set for a template"), path + (key,))


# -- status -------------------------------------------------------------------------------------

def check_claim_status(em: Emitter, status: dict, names: dict) -> None:
    path = ("status",)
    reserved = get_list(status, "reservedFor")
    allocation = get_obj(status, "allocation")
    if reserved is not BAD:
        if len(reserved) > RESERVED_FOR_MAX:
            em.add(C_RESERVED_MAX, too_many(len(reserved), RESERVED_FOR_MAX), path + ("reservedFor",))
        else:
            seen: set = set()
            for i, ref in enumerate(reserved):
                if not isinstance(ref, dict):
                    continue
                for key in ("resource", "name", "uid"):
                    if get_str(ref, key) == "":
                        em.add(C_RESERVED_ENTRY, required(), path + ("reservedFor", i, key))
            for i, ref in enumerate(reserved):
                uid = get_str(ref, "uid") if isinstance(ref, dict) else BAD
                if uid is BAD:
                    continue
                if uid in seen:
                    em.add(C_RESERVED_DUP, duplicate(uid), path + ("reservedFor", i))
                seen.add(uid)
        if reserved and allocation is None:
            em.add(C_RESERVED_UNALLOCATED, forbidden("may not be specified when `allocated` is "
                                                     "not set"), path + ("reservedFor",))

    allocated: set = set()
    if isinstance(allocation, dict):
        allocated = _check_allocation(em, allocation, path + ("allocation",), names)

    devices = get_list(status, "devices")
    if devices is BAD:
        return
    seen_devices: set = set()
    for i, device in enumerate(devices):
        if isinstance(device, dict):
            key = _check_device_status(em, device, path + ("devices", i), allocated)
            if key is not None:
                if key in seen_devices:
                    em.add(C_DEVICE_STATUS_DUP, duplicate(_device_id_text(key)),
                           path + ("devices", i))
                seen_devices.add(key)


def _device_key(obj: dict) -> tuple | None:
    values = tuple(get_str(obj, k) for k in ("driver", "pool", "device"))
    share = get_str(obj, "shareID", None)
    if BAD in values or share is BAD:
        return None
    return values + (share,)


def _device_id_text(key: tuple) -> str:
    text = "/".join(key[:3])
    return f"{text}/{key[3]}" if key[3] is not None else text


def _check_allocation(em: Emitter, allocation: dict, path: tuple, names: dict) -> set:
    allocated: set = set()
    devices = get_obj(allocation, "devices")
    if isinstance(devices, dict):
        dpath = path + ("devices",)
        results = get_list(devices, "results")
        if results is not BAD:
            for result in results:
                if isinstance(result, dict):
                    key = _device_key(result)
                    if key is not None:
                        allocated.add(key)
            if len(results) > RESULTS_MAX:
                em.add(C_RESULTS_MAX, too_many(len(results), RESULTS_MAX), dpath + ("results",))
            else:
                for i, result in enumerate(results):
                    if isinstance(result, dict):
                        _check_result(em, result, dpath + ("results", i), names)
        configs = get_list(devices, "config")
        if configs is not BAD:
            if len(configs) > ALLOCATION_CONFIG_MAX:
                em.add(C_ALLOC_CONFIG_MAX, too_many(len(configs), ALLOCATION_CONFIG_MAX),
                       dpath + ("config",))
            else:
                for c, config in enumerate(configs):
                    if not isinstance(config, dict):
                        continue
                    cpath = dpath + ("config", c)
                    source = get_str(config, "source")
                    if source == "":
                        em.add(C_ALLOC_CONFIG_SOURCE, required(), cpath + ("source",))
                    elif source not in (BAD, "FromClaim", "FromClass"):
                        em.add(C_ALLOC_CONFIG_SOURCE, unsupported(source, ["FromClaim", "FromClass"]),
                               cpath + ("source",))
                    _check_request_refs(em, C_RESULT_REQUEST, config, cpath + ("requests",), names)
                    common.check_device_configuration(em, config, cpath)
    selector = get_obj(allocation, "nodeSelector")
    if isinstance(selector, dict):
        common.check_node_selector(em, C_ALLOC_NODE_SELECTOR, selector, path + ("nodeSelector",))
    return allocated


def _check_result(em: Emitter, result: dict, path: tuple, names: dict) -> None:
    request = get_str(result, "request")
    if request is not BAD:
        check_request_ref(em, C_RESULT_REQUEST, request, path + ("request",), names)
    driver = get_str(result, "driver")
    if driver is not BAD:
        check_driver_name(em, C_RESULT_DEVICE, driver, path + ("driver",))
    pool = get_str(result, "pool")
    if pool is not BAD:
        check_pool_name(em, C_RESULT_DEVICE, pool, path + ("pool",))
    device = get_str(result, "device")
    if device is not BAD:
        check_dns_label(em, C_RESULT_DEVICE, device, path + ("device",))
    common.check_binding_conditions(em, C_RESULT_BINDING, result, path)
    tolerations = get_list(result, "tolerations")
    if tolerations is not BAD:
        common.check_tolerations(em, C_TOLERATION, tolerations, path + ("tolerations",), None)
    share = get_str(result, "shareID", None)
    if isinstance(share, str):
        check_uid(em, C_SHARE_ID, share, path + ("shareID",))
    slicefields.check_skip_node_operations(em, C_RESULT_SKIP, result.get("skipNodeOperations"),
                                           path + ("skipNodeOperations",))


def _check_device_status(em: Emitter, device: dict, path: tuple, allocated: set) -> tuple | None:
    code = C_DEVICE_STATUS_UNALLOCATED
    driver = get_str(device, "driver")
    if driver is not BAD:
        check_driver_name(em, code, driver, path + ("driver",))
    pool = get_str(device, "pool")
    if pool is not BAD:
        check_pool_name(em, code, pool, path + ("pool",))
    name = get_str(device, "device")
    if name is not BAD:
        check_dns_label(em, code, name, path + ("device",))
    share = get_str(device, "shareID", None)
    if isinstance(share, str):
        check_uid(em, C_SHARE_ID, share, path + ("shareID",))
    key = _device_key(device)
    if key is not None and key not in allocated:
        em.add(code, invalid(_device_id_text(key), "must be an allocated device in the claim"),
               path)
    conditions = get_list(device, "conditions")
    if conditions is not BAD:
        common.check_conditions(em, C_DEVICE_STATUS_CONDITIONS, conditions, path + ("conditions",),
                                DEVICE_STATUS_CONDITIONS_MAX)
    data = device.get("data")
    if data not in (None, "", {}):
        from ._formats import check_raw_json

        check_raw_json(em, C_DEVICE_STATUS_DATA, data, path + ("data",), True)
    network = get_obj(device, "networkData")
    if isinstance(network, dict):
        _check_network_data(em, network, path + ("networkData",))
    return key


def _check_network_data(em: Emitter, network: dict, path: tuple) -> None:
    import ipaddress

    from ._base import too_long

    name = get_str(network, "interfaceName")
    if name is not BAD and len(name) > INTERFACE_NAME_MAX:
        em.add(C_NETWORK_DATA, too_long(INTERFACE_NAME_MAX), path + ("interfaceName",))
    hardware = get_str(network, "hardwareAddress")
    if hardware is not BAD and len(hardware) > HARDWARE_ADDRESS_MAX:
        em.add(C_NETWORK_DATA, too_long(HARDWARE_ADDRESS_MAX), path + ("hardwareAddress",))
    ips = get_list(network, "ips")
    if ips is BAD:
        return
    if len(ips) > IPS_MAX:
        em.add(C_NETWORK_DATA, too_many(len(ips), IPS_MAX), path + ("ips",))
        return
    seen: set = set()
    for k, ip in enumerate(ips):
        if not isinstance(ip, str):
            continue
        try:
            iface = ipaddress.ip_interface(ip)
            if "/" not in ip:
                raise ValueError
            if str(iface) != ip:
                em.add(C_NETWORK_DATA, invalid(ip, f"must be in canonical form ({iface!s})"),
                       path + ("ips", k))
        except ValueError:
            em.add(C_NETWORK_DATA, invalid(ip, "must be an IP address with prefix length, "
                                               "(e.g. 192.168.1.5/24)"), path + ("ips", k))
        if ip in seen:
            em.add(C_NETWORK_DATA, duplicate(ip), path + ("ips", k))
        seen.add(ip)
