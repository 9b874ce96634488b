"""Derived attributes of a request (KEP-6080, Kubernetes 1.37 alpha, gate DRADerivedAttributes).

`exactly.derivedAttributes` and `firstAvailable[].derivedAttributes` define per-device values that
`matchAttribute` / `distinctAttribute` constraints can compare. What the API server checks, from
the released API documentation and the 1.37 website (the validation code of #140029 is not in the
stored upstream sources, so every message here is UNCONFIRMED wording, written in the style of the
neighbouring upstream rules):

* at most 32 per request or subrequest (`Too many`);
* `name` required, a fully qualified name (`domain/identifier`, checked like constraint names),
  unique within the list (the list is a map keyed by name);
* `expression` required, at most 10 Ki, compiled in the selector environment (`device`), must
  evaluate to a string, int, bool or semver, or a list of these (lists only with
  DRAListTypeAttributes), and within the per-expression cost limit;
* every derived attribute must be named by a matchAttribute or distinctAttribute constraint that
  applies to the request (or subrequest) defining it; a constraint with no `requests` applies to
  all of them.

Not modelled: the documented claim-wide "shared CEL cost budget" for all derived attributes of a
claim; its limit is not stated anywhere we could read, and dractl does not invent one.

What the #140029 review threads show of the code (not its messages): `validateDerivedAttribute`
validates `name` and then `expression` through `validateCELDerivedAttributeExpression` in the
selector's NewExpressions environment (StoredExpressions, and no re-validation, for an unchanged
stored claim), and the usage rule looks names up per request reference, `req` or `req/sub`
(`deviceRequestsInfo.HasDerivedAttribute`). The KEP says the API server validates the CEL syntax;
whether it also rejects a statically wrong result type (DRA1027's type check here) is
UNCONFIRMED: a KEP reviewer noted the result type mostly cannot be known at admission.
"""

from __future__ import annotations

from typing import Any

from dractl.api.limits import (
    DERIVED_ATTRIBUTES_MAX,
)
from dractl.findings import ERROR, register

from . import common
from ._base import (
    BAD,
    Emitter,
    duplicate,
    forbidden,
    get_list,
    get_str,
    invalid,
    required,
    too_long,
    too_many,
)
from ._formats import check_fully_qualified_name

C_DERIVED_MAX = register("DRA1025", ERROR, "a request has more than 32 derived attributes")
C_DERIVED_NAME = register("DRA1026", ERROR,
                          "derived attribute name missing, not fully qualified, or repeated")
C_DERIVED_EXPR = register("DRA1027", ERROR,
                          "derived attribute expression missing, too long, does not compile, "
                          "returns a non-scalar type or exceeds the cost limit")
C_DERIVED_UNUSED = register("DRA1028", ERROR,
                            "derived attribute not used by a matchAttribute/distinctAttribute "
                            "constraint that applies to its request")

GATE = "DRADerivedAttributes"

# Result types a derived attribute may have: the scalar device attribute types.
_SCALAR_TYPES = ("string", "int", "bool", "kubernetes.Semver")


def constraint_applies(constraint: dict, request: str, subrequest: str | None) -> bool:
    """A constraint applies to every request when `requests` is empty; otherwise to a listed
    request and all its subrequests, or to a listed `request/subrequest`."""
    refs = constraint.get("requests")
    if not isinstance(refs, list) or not refs:
        return True
    if request in refs:
        return True
    return subrequest is not None and f"{request}/{subrequest}" in refs


def used_names(constraints: Any, request: str, subrequest: str | None) -> set:
    """Attribute names of the constraints that apply to a request (or subrequest)."""
    names: set = set()
    for constraint in constraints if isinstance(constraints, list) else []:
        if not isinstance(constraint, dict) or not constraint_applies(constraint, request,
                                                                      subrequest):
            continue
        for key in ("matchAttribute", "distinctAttribute"):
            if isinstance(constraint.get(key), str):
                names.add(constraint[key])
    return names


def check_derived_attributes(em: Emitter, obj: dict, path: tuple, constraints: Any,
                             request: str, subrequest: str | None) -> None:
    derived = get_list(obj, "derivedAttributes")
    if derived is BAD or not derived:
        return
    dpath = path + ("derivedAttributes",)
    if len(derived) > DERIVED_ATTRIBUTES_MAX:
        em.add(C_DERIVED_MAX, too_many(len(derived), DERIVED_ATTRIBUTES_MAX), dpath)
        return
    # constraints None: not a list (the schema reports it), so usage cannot be judged.
    used = None if constraints is None else used_names(constraints, request, subrequest)
    seen: set = set()
    for i, item in enumerate(derived):
        if not isinstance(item, dict):
            continue
        # An absent name or expression is the schema's DRA0103 (both are required properties);
        # the rules report the empty string, which the schema accepts.
        name = get_str(item, "name")
        if name == "" and "name" in item:
            em.add(C_DERIVED_NAME, required(), dpath + (i, "name"))
        elif name is not BAD:
            check_fully_qualified_name(em, C_DERIVED_NAME, name, dpath + (i, "name"))
            if name in seen:
                em.add(C_DERIVED_NAME, duplicate(name), dpath + (i, "name"))
            seen.add(name)
            if used is not None and name not in used:
                # UNCONFIRMED wording (rule from the 1.37 docs: "Otherwise the ResourceClaim
                # fails validation").
                em.add(C_DERIVED_UNUSED, invalid(name, "must be referenced by a `matchAttribute` "
                                                       "or `distinctAttribute` constraint that "
                                                       "applies to this request"),
                       dpath + (i, "name"))
        expression = get_str(item, "expression")
        if expression == "" and "expression" in item:
            em.add(C_DERIVED_EXPR, required(), dpath + (i, "expression"))
        elif expression is not BAD:
            check_expression(em, expression, dpath + (i, "expression"))


# -- CEL ----------------------------------------------------------------------------------------

def check_expression(em: Emitter, expression: str, path: tuple) -> None:
    if len(expression.encode()) > common.CEL_MAX_LENGTH:
        em.add(C_DERIVED_EXPR, too_long(common.CEL_MAX_LENGTH), path)
        return
    for kind, detail in _compile_problems(expression, em.gates):
        if kind == "cost":
            em.add(C_DERIVED_EXPR, forbidden("too complex, exceeds cost limit"), path)
        else:
            em.add(C_DERIVED_EXPR, invalid(expression, detail), path)


_cache: dict[tuple, list] = {}
_CACHE_MAX = 4096


def _compile_problems(expression: str, gates: Any) -> list[tuple[str, str]]:
    """(kind, detail) pairs; [] when the expression is fine or the CEL layer is unavailable."""
    try:
        lists_on = bool(gates.enabled("DRAListTypeAttributes"))
        consumable_on = bool(gates.enabled("DRAConsumableCapacity"))
    except Exception:  # noqa: BLE001 - gates of a broken context: check with everything on
        lists_on = consumable_on = True
    key = (expression, lists_on, consumable_on)
    if key in _cache:
        return _cache[key]
    try:
        problems = _compile(expression, lists_on, consumable_on)
    except Exception:  # noqa: BLE001 - a CEL layer problem must not break validation
        problems = []
    if len(_cache) >= _CACHE_MAX:
        _cache.clear()
    _cache[key] = problems
    return problems


def _compile(expression: str, lists_on: bool, consumable_on: bool) -> list[tuple[str, str]]:
    """Parse, type-check and cost-estimate like a selector (dractl.cel's own steps, the
    API server's NewExpressions environment), with the derived-attribute result-type rule in
    place of the selector's "must evaluate to bool"."""
    from dractl.cel.checker import check, compile_errors, device_fields
    from dractl.cel.cost import estimate_cost
    from dractl.cel.engine import MAX_COST
    from dractl.cel.errors import CelCompileError
    from dractl.cel.parser import parse

    try:
        ast = parse(expression)
    except CelCompileError as error:
        return [("check", common.cel_detail(issue)) for issue in error.issues]
    result = check(expression, ast, device_fields(new_expressions=True,
                                                  consumable_capacity=consumable_on), lists_on)
    errors = compile_errors(expression, result)
    if errors:
        return [("check", common.cel_detail(error)) for error in errors]
    type_error = _result_type_error(result.result_type, lists_on)
    if type_error:
        return [("check", type_error)]
    if estimate_cost(ast, result.types) > MAX_COST:
        return [("cost", "")]
    return []


def _result_type_error(result_type: Any, lists_on: bool) -> str:
    name = getattr(result_type, "name", "")
    params = getattr(result_type, "params", ())
    if name in ("dyn", "*error*") or getattr(result_type, "is_param", False):
        return ""  # decided at run time, like the scheduler does
    if name in _SCALAR_TYPES:
        return ""
    if lists_on and name == "list" and params and \
            getattr(params[0], "name", "") in _SCALAR_TYPES + ("dyn",):
        return ""
    allowed = "string, int, bool or semver" + (" or a list of these" if lists_on else "")
    # UNCONFIRMED wording, modelled on the selector's "must evaluate to bool or the unknown type".
    return f"must evaluate to {allowed}, not {result_type}"


def check_request(em: Emitter, request: dict, path: tuple, constraints: Any) -> None:
    """The derived attributes of one request: of `exactly`, or of each `firstAvailable` entry."""
    name = request.get("name")
    if not isinstance(name, str):
        name = ""
    exactly = request.get("exactly")
    subrequests = request.get("firstAvailable")
    if isinstance(subrequests, list) and subrequests:
        if exactly is not None:
            return  # the union error is reported instead
        for j, sub in enumerate(subrequests):
            if isinstance(sub, dict):
                sub_name = sub.get("name") if isinstance(sub.get("name"), str) else ""
                check_derived_attributes(em, sub, path + ("firstAvailable", j), constraints,
                                         name, sub_name)
    elif isinstance(exactly, dict):
        check_derived_attributes(em, exactly, path + ("exactly",), constraints, name, None)
