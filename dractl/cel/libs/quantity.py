"""Kubernetes quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go).

Also the ordering methods isGreaterThan / isLessThan / compareTo, which semver declares too (one
implementation dispatching on the receiver, as in cel-go where both libraries bind the names).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..k8stypes import (
    CelQuantity,
    new_int_quantity,
    parse_quantity,
    quantity_add,
    quantity_as_int64,
    quantity_float,
)
from ..values import INT64_MAX, INT64_MIN, EvalError, no_such_overload
from . import Library
from ._args import as_int, as_str, fixed_cost


def _q(x) -> CelQuantity:
    if type(x) is not CelQuantity:
        raise no_such_overload()
    return x


def q_quantity(s):
    return parse_quantity(as_str(s))


def q_is_quantity(s):
    try:
        parse_quantity(as_str(s))
        return True
    except EvalError:
        return False


def q_sign(q):
    return _q(q).sign()


def q_as_integer(q):
    v = quantity_as_int64(_q(q))
    if v is None:
        raise EvalError("cannot convert value to integer")
    return v


def q_is_integer(q):
    return quantity_as_int64(_q(q)) is not None


def q_as_float(q):
    return quantity_float(_q(q))


def q_add(q, other):
    q = _q(q)
    if type(other) is int:
        return quantity_add(q, new_int_quantity(other))
    return quantity_add(q, _q(other))


def q_sub(q, other):
    q = _q(q)
    if type(other) is int:
        return quantity_add(q, new_int_quantity(other), -1)
    return quantity_add(q, _q(other), -1)


def q_mul(q, n):
    q, n = _q(q), as_int(n)
    amount = None
    if q.amount is not None:
        v = q.amount[0] * n
        if INT64_MIN <= v <= INT64_MAX:
            amount = (v, q.amount[1])
    return CelQuantity(q.value * n, q.format, amount)


def q_div(q, n, rounding=4):
    q, n, rounding = _q(q), as_int(n), as_int(rounding)
    if n == 0:
        raise EvalError("division by zero error")
    if rounding > 10 or rounding < 0:
        raise EvalError(f"the valid range for roundVal is 0 to 10 but {rounding} was passed")
    exact = Fraction(q.value) / n
    scaled = exact * 10 ** rounding
    # inf.RoundHalfUp: away from zero at .5
    r = math.floor(abs(scaled) + Fraction(1, 2))
    r = r if scaled >= 0 else -r
    v = Fraction(r, 10 ** rounding)
    return CelQuantity(v, q.format, None)


def q_div_int(q, n):
    q, n = _q(q), as_int(n)
    if n == 0:
        raise EvalError("division by zero error")
    exact = Fraction(q.value) / n
    t = math.trunc(exact)
    return CelQuantity(Fraction(t), q.format, (t, 0) if INT64_MIN <= t <= INT64_MAX else None)


def _cmp_obj(a, b) -> int:
    ta = type(a)
    if ta is not type(b) or not hasattr(a, "cel_compare"):
        raise no_such_overload()
    return a.cel_compare(b)


def m_is_greater_than(a, b):
    return _cmp_obj(a, b) > 0


def m_is_less_than(a, b):
    return _cmp_obj(a, b) < 0


def m_compare_to(a, b):
    return _cmp_obj(a, b)


_FIXED = ("sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
          "compareTo", "add", "sub")

LIBRARY = Library(
    "quantity",
    ("quantity(string) -> Q", "isQuantity(string) -> bool", "sign(Q) -> int",
     "Q.isGreaterThan(Q) -> bool", "Q.isLessThan(Q) -> bool", "Q.compareTo(Q) -> int",
     "Q.asApproximateFloat() -> double", "Q.asInteger() -> int", "Q.isInteger() -> bool",
     "Q.add(Q) -> Q", "Q.add(int) -> Q", "Q.sub(Q) -> Q", "Q.sub(int) -> Q", "Q.mul(int) -> Q",
     "Q.div(int) -> Q", "Q.div(int,int) -> Q", "Q.divInt(int) -> Q"),
    functions={
        "quantity": q_quantity, "isQuantity": q_is_quantity, "sign": q_sign,
        "asInteger": q_as_integer, "isInteger": q_is_integer, "asApproximateFloat": q_as_float,
        "add": q_add, "sub": q_sub, "mul": q_mul, "div": q_div, "divInt": q_div_int,
        "isGreaterThan": m_is_greater_than, "isLessThan": m_is_less_than,
        "compareTo": m_compare_to,
    },
    static_costs={name: fixed_cost for name in _FIXED},
)
