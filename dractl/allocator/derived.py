"""Derived attributes (Kubernetes 1.37, KEP-6080, gate DRADerivedAttributes).

A request or subrequest may define `derivedAttributes`: named CEL expressions evaluated for each
candidate device of that request, after the request's class and request selectors accepted it.
Their values are seen only by `matchAttribute`/`distinctAttribute`: a constraint looks up the
derived value of the device's request first (shadowing a published attribute of the same name),
then the device's published attributes. Values are keyed by (request, device) and compared by
name across requests, so two requests may derive one attribute from different driver attributes
(upstream integration test `testDerivedAttributes`, docs/spec/allocator.md#derived-attributes).

Result types: int, bool, string, semver, or (with DRAListTypeAttributes) a list of one of those.
Anything else, and any runtime error, aborts the allocation like a selector error does (website
dra-api.md 1.37: "the scheduler aborts the allocation ... instead of silently skipping that
device").

dractl's own choices where upstream's allocator code is not available (C.1 "UNCONFIRMED"):
evaluation is lazy, when the device is checked against the claim's constraints (the last check,
so a device rejected earlier never evaluates); and the error text follows the selector errors'
shape: `claim <ref>, request <name>: derived attribute <attr> on device <id>: CEL runtime error: ...`.
"""

from __future__ import annotations

from typing import Mapping

from dractl.allocator.errors import AllocationError
from dractl.api.values import AttributeValue

# CEL runtime type -> attribute union member (scalars)
_SCALAR_MEMBER = {bool: "bool", int: "int", str: "string"}
_LIST_MEMBER = {"bool": "bools", "int": "ints", "string": "strings", "version": "versions"}


class DerivedTypeError(Exception):
    """A derived expression produced a value that is not an attribute value."""


def _cel():
    # Imported on first use: the allocator does not need the CEL compiler otherwise.
    from dractl.cel import engine as cel_engine
    from dractl.cel.checker import check, compile_errors, device_fields
    from dractl.cel.cost import estimate_cost
    from dractl.cel.errors import CelCompileError, CelRuntimeError
    from dractl.cel.parser import parse
    return cel_engine, check, compile_errors, device_fields, estimate_cost, CelCompileError, CelRuntimeError, parse


_COMPILED: dict[str, object] = {}


def _compile(expression: str):
    """Compile like a selector (StoredExpressions environment) but without the bool result check.
    Raises CelCompileError."""
    hit = _COMPILED.get(expression)
    if hit is None:
        cel_engine, check, compile_errors, device_fields, estimate_cost, compile_error, _, parse = _cel()
        try:
            ast = parse(expression)
            res = check(expression, ast, device_fields(new_expressions=False, consumable_capacity=True), True)
            errs = compile_errors(expression, res)
            hit = errs[0] if errs else cel_engine.CompiledSelector(expression, ast, estimate_cost(ast, res.types),
                                                                   res.types)
        except compile_error as exc:
            hit = exc
        if len(_COMPILED) > 10_000:
            _COMPILED.clear()
        _COMPILED[expression] = hit
    if isinstance(hit, Exception):
        raise hit
    return hit


def _scalar(value) -> tuple[str, object]:
    member = _SCALAR_MEMBER.get(type(value))
    if member is not None:
        return member, value
    if getattr(value, "CEL_TYPE", None) == "kubernetes.Semver":
        return "version", str(value)
    from dractl.cel.values import type_name
    raise DerivedTypeError(f"derived attribute value of type {type_name(value)} is not supported "
                           "(must be int, bool, string, semver or a list of them)")


def to_attribute(value, list_types: bool) -> AttributeValue:
    """The CEL result as an attribute value; raises DerivedTypeError."""
    if isinstance(value, (list, tuple)):
        if not list_types:
            raise DerivedTypeError("derived attribute value of type list requires the "
                                   "DRAListTypeAttributes feature")
        members = [_scalar(v) for v in value]
        kinds = {m for m, _ in members}
        if len(kinds) > 1:
            raise DerivedTypeError("derived attribute list mixes element types")
        kind = kinds.pop() if kinds else "string"
        return AttributeValue(_LIST_MEMBER[kind], tuple(v for _, v in members))
    member, scalar = _scalar(value)
    return AttributeValue(member, scalar)


def evaluate(engine, expression: str, device):
    """The raw CEL value of `expression` for `device`; raises CelCompileError/CelRuntimeError."""
    cel_engine, *_rest, runtime_error, _parse = _cel()
    compiled = _compile(expression)
    if hasattr(engine, "activation"):
        activation = engine.activation(device)
    else:
        # An engine without device conversion (a caller's own selector engine): convert the
        # device as the default release's SelectorEngine would.
        from dractl.api.versions import FeatureGates
        from dractl.cel.device import build_activation
        activation = build_activation(device, FeatureGates())
    if activation.error is not None:
        raise compiled._runtime_error(activation.error)
    cost_limit = getattr(engine, "cost_limit", cel_engine.MAX_COST)
    env = activation.env
    metered = activation.oversized or compiled.always_meter or compiled.max_cost > cost_limit
    if metered:
        from dractl.cel.interp import Meter
        env = dict(env)
        env["@cost"] = Meter(cost_limit)
    from dractl.cel.values import EvalError
    try:
        return compiled.program(metered)(env)
    except EvalError as exc:
        raise compiled._runtime_error(exc) from None
    except RecursionError:
        raise runtime_error(expression, "max recursion depth exceeded") from None


def derived_values(search, rd, device) -> Mapping[str, AttributeValue] | None:
    """The request's derived attributes for `device` (None when it defines none); cached per
    (request definitions, device) for the call. Raises AllocationError."""
    defs = rd.derived
    if not defs:
        return None
    key = (defs, device)
    cache = search.derived_cache
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = _compute(search, rd, device)
    return hit


def _compute(search, rd, device) -> Mapping[str, AttributeValue]:
    from dractl.allocator.celglue import _cel_api, _prefixed
    compile_error, runtime_error, fmt_compile, fmt_runtime = _cel_api()
    where = f"claim {search.claims[rd.at.claim].ref}, request {rd.result_name}"
    out: dict[str, AttributeValue] = {}
    for name, expression in rd.derived:
        try:
            out[name] = to_attribute(evaluate(search.engine, expression, device), search.f.list_type_attributes)
        except compile_error as exc:
            raise AllocationError(f"{where}: derived attribute {name}: "
                                  f"{_prefixed('CEL compile error: ', fmt_compile(exc))}") from None
        except runtime_error as exc:
            raise AllocationError(f"{where}: derived attribute {name} on device {device.id_str}: "
                                  f"{_prefixed('CEL runtime error: ', fmt_runtime(exc))}") from None
        except DerivedTypeError as exc:
            raise AllocationError(f"{where}: derived attribute {name} on device {device.id_str}: "
                                  f"CEL runtime error: {exc}") from None
    return out
