"""Rules shared by several kinds: object names, CEL selectors, opaque configuration, feature gates,
tolerations, taints, node selectors and conditions.

Codes 19xx. Validators that several kinds use but report under their own kind's code take the code
as a parameter.
"""

from __future__ import annotations

import re
from typing import Any

from dractl.api.limits import (
    ANNOTATIONS_MAX_BYTES,
    BINDING_CONDITIONS_MAX,
    CEL_MAX_LENGTH,
    CONDITION_MESSAGE_MAX,
    CONDITION_REASON_MAX,
    SELECTORS_MAX,
    TOLERATIONS_MAX,
)
from dractl.api.versions import UnknownGateError
from dractl.findings import ERROR, WARNING, register
from dractl.validate.cellints import C_OPTIONAL_VARIABLE, optional_variable_messages

from ._base import (
    BAD,
    Emitter,
    duplicate,
    forbidden,
    get,
    get_list,
    get_map,
    get_obj,
    get_str,
    invalid,
    is_int,
    required,
    too_long,
    too_many,
    unsupported,
)
from ._formats import (
    check_dns_label,
    check_dns_subdomain,
    check_driver_name,
    check_label_name,
    check_label_value,
    check_raw_json,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
)

C_NAME = register("DRA1900", ERROR, "metadata.name is missing or not a DNS subdomain")
C_META = register("DRA1908", ERROR, "metadata invalid: namespace, labels, annotations (key syntax, "
                  "256 KiB in all), generation, owner references or finalizers")
C_CEL_COMPILE = register("DRA1901", ERROR,
                         "CEL selector expression does not compile or does not return bool")
C_CEL_COST = register("DRA1902", ERROR, "CEL selector expression exceeds the cost limit")
C_SELECTOR_CEL = register("DRA1903", ERROR, "device selector without `cel`")
C_CEL_TOO_LONG = register("DRA1904", ERROR, "CEL selector expression longer than 10240 bytes")
C_OPAQUE = register("DRA1905", ERROR, "device config without `opaque`, or with an invalid driver")
C_OPAQUE_PARAMS = register("DRA1906", ERROR,
                           "opaque config parameters missing, over 10 KiB or not a JSON object")
# A warning, not an error: the API server accepts the object and silently drops the field, which
# is exactly why the user needs to hear about it (the object then behaves differently).
C_GATE_FIELD = register("DRA1910", WARNING,
                        "field of a disabled feature gate: the API server drops it on create",
                        "dractl")
C_GATE_KIND = register("DRA1911", ERROR,
                       "kind or apiVersion needs a feature gate that is disabled for the target "
                       "version", "dractl")



# -- metadata ---------------------------------------------------------------------------------

def check_object_name(em: Emitter, doc: dict, namespaced: bool = False,
                      name_is_label: bool = False) -> None:
    """apimachinery ValidateObjectMetaAccessor on create: name or generateName (a DNS subdomain,
    or a DNS label for Namespaces), then the rest of ObjectMeta (check_object_meta)."""
    meta = get(doc, "metadata")
    if not isinstance(meta, dict):
        return
    name = get_str(meta, "name")
    generate = get_str(meta, "generateName")
    check = check_dns_label if name_is_label else check_dns_subdomain
    if isinstance(generate, str) and generate:
        # A prefix may end in '-': upstream masks a trailing dash before validating it.
        masked = generate[:-1] + "a" if generate.endswith("-") else generate
        for msg in (is_dns1123_label if name_is_label else is_dns1123_subdomain)(masked):
            em.add(C_NAME, invalid(generate, msg), ("metadata", "generateName"))
    if name is not BAD and generate is not BAD:
        if name == "":
            if generate == "":
                em.add(C_NAME, required("name or generateName is required"), ("metadata", "name"))
        else:
            check(em, C_NAME, name, ("metadata", "name"))
    check_object_meta(em, meta, namespaced)


def check_object_meta(em: Emitter, meta: dict, namespaced: bool) -> None:
    """The rest of ValidateObjectMeta: namespace, generation, labels, annotations (key syntax
    and 256 KiB in all), owner references and finalizers. A namespaced object without a
    namespace is fine here: kubectl fills it in from the context; a namespace on a
    cluster-scoped object is dropped by the API server, as the REST layer clears it."""
    path = ("metadata",)
    namespace = get_str(meta, "namespace")
    if namespaced and isinstance(namespace, str) and namespace:
        check_dns_label(em, C_META, namespace, path + ("namespace",))
    generation = get(meta, "generation")
    if is_int(generation) and generation < 0:
        em.add(C_META, invalid(generation, "must be greater than or equal to 0"),
               path + ("generation",))
    labels = get_map(meta, "labels")
    if labels is not BAD and labels:
        for key in sorted([k for k in labels if isinstance(k, str)]):
            check_label_name(em, C_META, key, path + ("labels",))
            if isinstance(labels[key], str):
                check_label_value(em, C_META, labels[key], path + ("labels",))
    annotations = get_map(meta, "annotations")
    if annotations is not BAD and annotations:
        check_annotations(em, C_META, annotations, path + ("annotations",))
    owners = get_list(meta, "ownerReferences")
    if owners is not BAD and owners:
        _check_owner_references(em, owners, path + ("ownerReferences",))
    finalizers = get_list(meta, "finalizers")
    if finalizers is not BAD and finalizers:
        for value in finalizers:
            if isinstance(value, str):
                for msg in is_qualified_name(value):
                    em.add(C_META, invalid(value, msg), path + ("finalizers",))
        if _ORPHAN in finalizers and _DELETE_DEPENDENTS in finalizers:
            em.add(C_META, invalid(finalizers, f"finalizer {_ORPHAN} and {_DELETE_DEPENDENTS} "
                                               "cannot be both set"), path + ("finalizers",))


_ORPHAN, _DELETE_DEPENDENTS = "orphan", "foregroundDeletion"


def check_annotations(em: Emitter, code: str, annotations: dict, path: tuple) -> None:
    """ValidateAnnotations: keys are qualified names in any case; keys and values together at
    most 256 KiB (bytes of UTF-8, as Go counts them)."""
    total = 0
    for key in sorted(k for k in annotations if isinstance(k, str)):
        for msg in is_qualified_name(key.lower()):
            em.add(code, invalid(key, msg), path)
        value = annotations[key]
        total += _utf8_len(key) + (_utf8_len(value) if isinstance(value, str) else 0)
    if total > ANNOTATIONS_MAX_BYTES:
        em.add(code, too_long(ANNOTATIONS_MAX_BYTES), path)


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _check_owner_references(em: Emitter, refs: Any, path: tuple) -> None:
    if refs is BAD:
        return
    controller = ""
    for ref in refs:
        if not isinstance(ref, dict):
            continue
        api_version, kind = get_str(ref, "apiVersion"), get_str(ref, "kind")
        if isinstance(api_version, str) and not api_version.rpartition("/")[2]:
            em.add(C_META, invalid(api_version, "version must not be empty"), path + ("apiVersion",))
        for field in ("kind", "name", "uid"):
            # A missing field is the schema's Required value already: reported once
            # (docs/decisions/0003-inventory-is-cluster-state.md).
            if field in ref and get_str(ref, field) == "":
                em.add(C_META, invalid("", "must not be empty"), path + (field,))
        if api_version == "v1" and kind == "Event":
            em.add(C_META, invalid(ref, "/v1, Kind=Event is disallowed from being an owner"), path)
        if get(ref, "controller") is True:
            this = f"{kind if isinstance(kind, str) else ''}/{get_str(ref, 'name') or ''}"
            if controller:
                em.add(C_META, invalid(refs, 'Only one reference can have Controller set to true. '
                                             f'Found "true" in references for {controller} and {this}'),
                       path)
            else:
                controller = this


# -- CEL --------------------------------------------------------------------------------------

_cel_cache: dict[tuple, Any] = {}
_CEL_CACHE_MAX = 4096
# id(gates) -> (gates, gates.key()): the key sorts every gate of the release, and a corpus asks
# for it once per CEL expression (the gates object itself is kept so its id stays its own).
_gate_keys: dict[int, tuple[Any, tuple]] = {}


def _gates_key(gates: Any) -> tuple:
    known = _gate_keys.get(id(gates))
    if known is not None and known[0] is gates:
        return known[1]
    key = gates.key()
    if len(_gate_keys) >= 64:
        _gate_keys.clear()
    _gate_keys[id(gates)] = (gates, key)
    return key


def _compile_errors(expression: str, gates: Any) -> list | None:
    """Errors from dractl.cel.check_expression, or None when the CEL layer is unavailable.

    Imported lazily: the rest of the validation must work without (or with a broken) CEL layer.
    """
    try:
        key = (expression, _gates_key(gates))
    except Exception:  # noqa: BLE001
        key = None
    if key is not None and key in _cel_cache:
        return _cel_cache[key]
    try:
        from dractl import cel as cel_module
        check = getattr(cel_module, "check_expression", None)
        if check is None:
            return None
        errors = list(check(expression, gates) or ())
    except Exception:  # noqa: BLE001 - a CEL layer problem must not break validation
        return None
    if key is not None:
        if len(_cel_cache) >= _CEL_CACHE_MAX:
            _cel_cache.clear()
        _cel_cache[key] = errors
    return errors


def cel_detail(error: Any) -> str:
    """The compiler's detail in API-server wording: `compilation failed: ERROR: <input>:L:C: msg`."""
    message = str(getattr(error, "message", "") or error)
    if message.startswith(("compilation failed:", "must evaluate to")):
        return message
    if message.startswith("ERROR: <input>"):
        return "compilation failed: " + message
    line = getattr(error, "line", None)
    column = getattr(error, "column", None)
    where = "<input>"
    if is_int(line) and is_int(column):
        where = f"<input>:{line}:{column}"
    elif is_int(line):
        where = f"<input>:{line}"
    return f"compilation failed: ERROR: {where}: {message}"


def check_cel_expression(em: Emitter, expression: str, path: tuple) -> None:
    if len(expression.encode()) > CEL_MAX_LENGTH:
        em.add(C_CEL_TOO_LONG, too_long(CEL_MAX_LENGTH), path)
        return  # upstream does not compile over-long expressions
    errors = _compile_errors(expression, em.gates)
    if not errors:
        _lint_cel_expression(em, expression, path)
        return
    for error in errors:
        kind = str(getattr(error, "kind", "") or "")
        if kind == "cost":
            em.add(C_CEL_COST, forbidden("too complex, exceeds cost limit"), path)
        elif kind == "required":
            em.add(C_CEL_COMPILE, required(str(getattr(error, "message", ""))), path)
        else:
            em.add(C_CEL_COMPILE, invalid(expression, cel_detail(error)), path)


def _lint_cel_expression(em: Emitter, expression: str, path: tuple) -> None:
    """dractl's own CEL lints (dractl.validate.cellints) on an expression that compiles."""
    try:
        messages = optional_variable_messages(expression, em.gates)
    except Exception:  # noqa: BLE001 - a lint problem must not break validation
        return
    for message in messages:
        em.add(C_OPTIONAL_VARIABLE, message, path)


def check_selectors(em: Emitter, selectors: Any, path: tuple, too_many_code: str,
                    max_items: int = SELECTORS_MAX) -> None:
    if not isinstance(selectors, list):
        return
    if len(selectors) > max_items:
        em.add(too_many_code, too_many(len(selectors), max_items), path)
        return
    for i, selector in enumerate(selectors):
        if not isinstance(selector, dict):
            continue
        cel = get_obj(selector, "cel")
        if cel is None:
            em.add(C_SELECTOR_CEL, required(), path + (i, "cel"))
            continue
        if cel is BAD:
            continue
        expression = get_str(cel, "expression")
        if expression is BAD:
            continue
        check_cel_expression(em, expression, path + (i, "cel", "expression"))


# -- opaque configuration ---------------------------------------------------------------------

def check_device_configuration(em: Emitter, config: dict, path: tuple) -> None:
    """DeviceConfiguration: `opaque` is required (it is the only member of the union)."""
    opaque = get_obj(config, "opaque")
    if opaque is None:
        em.add(C_OPAQUE, required(), path + ("opaque",))
        return
    if opaque is BAD:
        return
    driver = get_str(opaque, "driver")
    if driver is not BAD:
        check_driver_name(em, C_OPAQUE, driver, path + ("opaque", "driver"))
    check_raw_json(em, C_OPAQUE_PARAMS, opaque.get("parameters"), path + ("opaque", "parameters"),
                   "parameters" in opaque)


# -- feature gates ----------------------------------------------------------------------------

def gate_dropped(em: Emitter, gate: str, what: str, path: tuple, consequence: str = "") -> None:
    text = (f"{what} needs feature gate {gate}, which is disabled for Kubernetes "
            f"{em.ctx.kube_version} with the selected --feature-gates: the API server silently "
            f"drops it on create")
    if consequence:
        text += f"; {consequence}"
    em.add(C_GATE_FIELD, text, path)


def gate_enabled(em: Emitter, gate: str) -> bool:
    try:
        return bool(em.gates.enabled(gate))
    except UnknownGateError:
        raise  # a misspelt gate name in a rule is a bug, never "enabled"
    except Exception:  # noqa: BLE001
        return True


# -- tolerations and taints -------------------------------------------------------------------

def taint_effects(em: Emitter) -> list[str]:
    effects = ["NoExecute", "NoSchedule"]
    if em.in_force("device_taints_135"):
        effects.append("None")
    return effects


def check_tolerations(em: Emitter, code: str, tolerations: Any, path: tuple,
                      max_items: int | None = TOLERATIONS_MAX) -> None:
    if not isinstance(tolerations, list):
        return
    if max_items is not None and len(tolerations) > max_items:
        em.add(code, too_many(len(tolerations), max_items), path)
        return
    for i, toleration in enumerate(tolerations):
        if isinstance(toleration, dict):
            check_toleration(em, code, toleration, path + (i,))


def check_toleration(em: Emitter, code: str, toleration: dict, path: tuple) -> None:
    key = get_str(toleration, "key")
    if key not in (BAD, ""):
        check_label_name(em, code, key, path + ("key",))
    operator = get_str(toleration, "operator")
    value = get_str(toleration, "value")
    if operator is not BAD and value is not BAD:
        if operator == "Exists":
            if value != "":
                em.add(code, invalid(value, "must be empty for operator `Exists`"), path + ("value",))
        elif operator == "Equal":
            # No key/operator coupling: "operator must be Exists when `key` is empty" is core
            # validateTolerations (Pods) only; upstream validateDeviceToleration has none, so
            # {key: "", operator: Equal} is valid and tolerates every key with that value.
            check_label_value(em, code, value, path + ("value",))
        elif operator == "":
            em.add(code, required(), path + ("operator",))
        else:
            em.add(code, unsupported(operator, ["Equal", "Exists"]), path + ("operator",))
    effect = get_str(toleration, "effect")
    if effect not in (BAD, "") and effect not in taint_effects(em):
        em.add(code, unsupported(effect, taint_effects(em)), path + ("effect",))


def check_taint(em: Emitter, code: str, taint: dict, path: tuple) -> None:
    key = get_str(taint, "key")
    if key is not BAD:
        check_label_name(em, code, key, path + ("key",))
    value = get_str(taint, "value")
    if value not in (BAD, ""):
        check_label_value(em, code, value, path + ("value",))
    effect = get_str(taint, "effect")
    if effect is BAD:
        return
    if effect == "":
        em.add(code, required(), path + ("effect",))
    elif effect not in taint_effects(em):
        em.add(code, unsupported(effect, taint_effects(em)), path + ("effect",))


# -- node selectors ---------------------------------------------------------------------------

_NODE_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def check_node_selector(em: Emitter, code: str, selector: dict, path: tuple) -> None:
    """core ValidateNodeSelector (required node affinity rules: label values must be valid)."""
    terms = get_list(selector, "nodeSelectorTerms")
    if terms is BAD:
        return
    terms_path = path + ("nodeSelectorTerms",)
    if not terms:
        em.add(code, required("must have at least one node selector term"), terms_path)
        return
    for i, term in enumerate(terms):
        if not isinstance(term, dict):
            continue
        expressions = get_list(term, "matchExpressions")
        for j, req in enumerate(expressions if expressions is not BAD else []):
            if isinstance(req, dict):
                _check_node_selector_requirement(em, code, req,
                                                 terms_path + (i, "matchExpressions", j))
        fields = get_list(term, "matchFields")
        for j, req in enumerate(fields if fields is not BAD else []):
            if isinstance(req, dict):
                _check_node_field_requirement(em, code, req, terms_path + (i, "matchFields", j))


def _check_node_selector_requirement(em: Emitter, code: str, req: dict, path: tuple) -> None:
    operator = get_str(req, "operator")
    values = get_list(req, "values")
    if values is BAD:
        values = None
    if operator is not BAD:
        n = len(values or [])
        if operator in ("In", "NotIn"):
            if n == 0:
                em.add(code, required("must be specified when `operator` is 'In' or 'NotIn'"),
                       path + ("values",))
        elif operator in ("Exists", "DoesNotExist"):
            if n > 0:
                em.add(code, forbidden("may not be specified when `operator` is 'Exists' or "
                                       "'DoesNotExist'"), path + ("values",))
        elif operator in ("Gt", "Lt"):
            if n != 1:
                em.add(code, required("must be specified single value when `operator` is 'Lt' "
                                      "or 'Gt'"), path + ("values",))
        else:
            em.add(code, invalid(operator, "not a valid selector operator"), path + ("operator",))
    key = get_str(req, "key")
    if key is not BAD:
        check_label_name(em, code, key, path + ("key",))
    for k, value in enumerate(values or []):
        if isinstance(value, str):
            for msg in is_label_value(value):
                em.add(code, invalid(value, msg), path + ("values", k))


def _check_node_field_requirement(em: Emitter, code: str, req: dict, path: tuple) -> None:
    operator = get_str(req, "operator")
    values = get_list(req, "values")
    if values is BAD:
        values = None
    if operator is not BAD:
        if operator in ("In", "NotIn"):
            if len(values or []) != 1:
                em.add(code, required("must be only one value when `operator` is 'In' or 'NotIn' "
                                      "for node field selector"), path + ("values",))
        else:
            em.add(code, invalid(operator, "not a valid selector operator"), path + ("operator",))
    key = get_str(req, "key")
    if key is BAD:
        return
    if key != "metadata.name":
        em.add(code, invalid(key, "not a valid field selector key"), path + ("key",))
        return
    for k, value in enumerate(values or []):
        if isinstance(value, str):
            for msg in is_dns1123_subdomain(value):
                em.add(code, invalid(value, msg), path + ("values", k))


# -- conditions -------------------------------------------------------------------------------

_CONDITION_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"


def check_conditions(em: Emitter, code: str, conditions: Any, path: tuple, max_items: int) -> None:
    """Size limit plus metav1validation.ValidateConditions (the parts a manifest can get wrong)."""
    if not isinstance(conditions, list):
        return
    if len(conditions) > max_items:
        em.add(code, too_many(len(conditions), max_items), path)
    seen: set = set()
    for i, cond in enumerate(conditions):
        if not isinstance(cond, dict):
            continue
        p = path + (i,)
        ctype = get_str(cond, "type")
        if ctype is not BAD:
            if ctype in seen:
                em.add(code, duplicate(ctype), p + ("type",))
            seen.add(ctype)
            for msg in is_qualified_name(ctype):
                em.add(code, invalid(ctype, msg), p + ("type",))
        status = get_str(cond, "status")
        if status is not BAD and status not in ("True", "False", "Unknown"):
            em.add(code, unsupported(status, ["False", "True", "Unknown"]), p + ("status",))
        generation = cond.get("observedGeneration")
        if is_int(generation) and generation < 0:
            em.add(code, invalid(generation, "must be greater than or equal to zero"),
                   p + ("observedGeneration",))
        if cond.get("lastTransitionTime") in (None, ""):
            em.add(code, required("must be set"), p + ("lastTransitionTime",))
        reason = get_str(cond, "reason")
        if reason is not BAD:
            if reason == "":
                em.add(code, required("must be set"), p + ("reason",))
            else:
                if len(reason) > CONDITION_REASON_MAX:
                    em.add(code, too_long(CONDITION_REASON_MAX), p + ("reason",))
                if not re.match(f"^{_CONDITION_REASON_FMT}\\Z", reason):
                    em.add(code, invalid(reason, "a condition reason must start with alphabetic "
                                                 "character, optionally followed by a string of "
                                                 "alphanumeric characters or '_,:', and must end "
                                                 "with an alphanumeric character or '_' (e.g. "
                                                 "'my_name',  or 'MY_NAME',  or 'MyName',  or "
                                                 "'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex "
                                                 f"used for validation is '{_CONDITION_REASON_FMT}')"),
                           p + ("reason",))
        message = get_str(cond, "message")
        if message is not BAD and len(message) > CONDITION_MESSAGE_MAX:
            em.add(code, too_long(CONDITION_MESSAGE_MAX), p + ("message",))



# -- binding conditions (slice devices and allocation results) ---------------------------------



def check_binding_conditions(em: Emitter, code: str, obj: dict, path: tuple) -> None:
    conditions = get_list(obj, "bindingConditions")
    failures = get_list(obj, "bindingFailureConditions")
    if conditions is BAD or failures is BAD or not (conditions or failures):
        return  # (neither set: the usual device, nothing to check)
    for name, items in (("bindingConditions", conditions), ("bindingFailureConditions", failures)):
        if len(items) > BINDING_CONDITIONS_MAX:
            em.add(code, too_many(len(items), BINDING_CONDITIONS_MAX), path + (name,))
            continue
        for i, item in enumerate(items):
            if isinstance(item, str):
                check_label_name(em, code, item, path + (name, i))
    seen: set = set()
    for i, item in enumerate(conditions):
        if not isinstance(item, str):
            continue
        if item in seen:
            em.add(code, duplicate(item), path + ("bindingConditions", i))
        seen.add(item)
    condition_set = {c for c in conditions if isinstance(c, str)}
    seen = set()
    for i, item in enumerate(failures):
        if not isinstance(item, str):
            continue
        if item in seen:
            em.add(code, duplicate(item), path + ("bindingFailureConditions", i))
        seen.add(item)
        if item in condition_set:
            em.add(code, invalid(item, "bindingFailureConditions must not overlap with "
                                       "bindingConditions"), path + ("bindingFailureConditions", i))
    if not conditions and failures:
        em.add(code, invalid(obj.get("bindingConditions"),
                             "bindingConditions are required to use bindingFailureConditions"),
               path + ("bindingConditions",))
    if not failures and conditions:
        em.add(code, invalid(obj.get("bindingFailureConditions"),
                             "bindingFailureConditions are required to use bindingConditions"),
               path + ("bindingFailureConditions",))
