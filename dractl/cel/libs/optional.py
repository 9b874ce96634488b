"""cel-go optional types (cel/library.go, OptionalTypes): optional.of, optional.ofNonZeroValue,
optional.none, hasValue, value, orValue, or, optional.unwrap / unwrapOpt. The ``.?`` / ``[?]``
syntax and optMap/optFlatMap are the parser's and the evaluator's; reading an optional back from
a comprehension variable is modelled in dractl/cel/optionalvars.py."""

from __future__ import annotations

from ..timevalues import Duration, Timestamp
from ..values import EvalError, Optional, UInt, no_such_overload, present_value
from . import Library
from ._args import as_list, is_list


def o_of(v):
    return Optional(v)


def _is_zero(v) -> bool:
    t = type(v)
    if v is None:
        return True
    if t in (bool, int, UInt, float, str, bytes):
        return not v
    if is_list(v) or isinstance(v, dict):
        return len(v) == 0
    if t in (Timestamp, Duration):
        return v.nanos == 0
    return False


def o_of_non_zero(v):
    return Optional.NONE if _is_zero(v) else Optional(v)


def o_none():
    return Optional.NONE


def _opt(o) -> Optional:
    if type(o) is not Optional:
        raise no_such_overload()
    return o


def o_has_value(o):
    return _opt(o).present


def o_value(o):
    o = _opt(o)
    if not o.present:
        raise EvalError("optional.none() dereference")
    return present_value(o)


def o_or_value(o, dflt):
    o = _opt(o)
    return present_value(o) if o.present else dflt


def o_or(o, other):
    o = _opt(o)
    if o.present:
        return o
    return _opt(other)


def o_unwrap(lst):
    out = []
    for x in as_list(lst):
        if _opt(x).present:
            out.append(x.value)  # an error value stays in the list, as in cel-go
    return out


LIBRARY = Library(
    "optional",
    ("optional.of(A) -> opt(A)", "optional.ofNonZeroValue(A) -> opt(A)",
     "optional.none() -> opt(dyn)", "opt(A).hasValue() -> bool", "opt(A).value() -> A",
     "opt(A).orValue(A) -> A", "opt(A).or(opt(A)) -> opt(A)",
     "optional.unwrap(list(opt(A))) -> list(A)", "list(opt(A)).unwrapOpt() -> list(A)"),
    functions={
        "optional.of": o_of, "optional.ofNonZeroValue": o_of_non_zero, "optional.none": o_none,
        "hasValue": o_has_value, "value": o_value, "orValue": o_or_value, "or": o_or,
        "optional.unwrap": o_unwrap, "unwrapOpt": o_unwrap,
    },
)
