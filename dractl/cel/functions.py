"""The evaluator's core functions: CEL's operators (arithmetic, ordering, indexing, ``in``), DRA's
``includes`` and the comprehension helper ``cel.@mapInsert``. Every library function (standard
functions, strings, lists, sets, regex, quantity, semver, net, format, optional) is declared and
implemented in its module of dractl/cel/libs/; :func:`lookup` and :func:`runtime_cost` serve both.

Member calls receive the receiver as first argument (``"a".startsWith("b")`` ->
``startsWith("a", "b")``). Functions raise :class:`EvalError` with cel-go's wording; a Python
``TypeError``/``ValueError``/``AttributeError`` escaping a function is turned into ``no such
overload`` by the interpreter. Static typing (which overloads exist) is the checker's business
(:mod:`dractl.cel.checker`); these functions dispatch on runtime types because attribute values
are ``dyn``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from .timevalues import Duration, Timestamp
from .values import (
    INT64_MAX,
    INT64_MIN,
    UINT64_MAX,
    BrokenValue,
    DefaultMap,
    EvalError,
    Optional,
    UInt,
    equal_or_false,
    present_value,
)

MAX_INCLUDES = 48  # resourceapi.ResourceSliceMaxAttributeValuesPerDevice


def _nso() -> EvalError:
    return EvalError("no such overload")


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_list(v: Any) -> bool:
    return type(v) is list or type(v) is tuple


def _check_int(n: int) -> int:
    if n < INT64_MIN or n > INT64_MAX:
        raise EvalError("integer overflow")
    return n


def _check_uint(n: int) -> UInt:
    if n < 0 or n > UINT64_MAX:
        raise EvalError("unsigned integer overflow")
    return UInt(n)


# --- indexing / membership ------------------------------------------------------------------

def map_key(k: Any) -> Any:
    if type(k) is float:
        if k.is_integer():
            return int(k)
    return k


def index_value(o: Any, k: Any, optional: bool, off: int | None = None) -> Any:
    if type(o) is Optional:
        if not o.present:
            return o
        o = present_value(o)
        optional = True
    if _is_list(o):
        tk = type(k)
        if tk is int or tk is UInt:
            i = int(k)
        elif tk is float and k.is_integer():
            i = int(k)
        else:
            raise EvalError("unsupported index type", off)
        if 0 <= i < len(o):
            v = o[i]
            if type(v) is BrokenValue:
                raise EvalError(v.message, off)
            return Optional(v) if optional else v
        if optional:
            return Optional.NONE
        raise EvalError(f"index out of bounds: {i}", off)
    if isinstance(o, dict):
        if type(o) is DefaultMap:
            v = o.lookup(k)
            return Optional(v) if optional else v
        if type(k) not in (str, int, UInt, bool, float):
            raise EvalError("unsupported key type", off)
        try:
            v = o[map_key(k)] if type(k) is not bool else _bool_key(o, k)
        except KeyError:
            if optional:
                return Optional.NONE
            raise EvalError(f"no such key: {_key_str(k)}", off) from None
        if type(v) is BrokenValue:
            raise EvalError(v.message, off)
        return Optional(v) if optional else v
    raise EvalError("no such overload", off)


def _bool_key(o: dict, k: bool) -> Any:
    for kk, v in o.items():
        if type(kk) is bool and kk is k:
            return v
    raise KeyError(k)


def _key_str(k: Any) -> str:
    if type(k) is bool:
        return "true" if k else "false"
    return str(k)


def op_in(e: Any, c: Any) -> bool:
    if _is_list(c):
        te = type(e)
        for x in c:
            if type(x) is te and te in (str, int, bool):
                if x == e:
                    return True
            elif equal_or_false(e, x):
                return True
        return False
    if isinstance(c, dict):
        if type(e) is bool:
            return any(type(k) is bool and k is e for k in c)
        if type(e) not in (str, int, UInt, float):
            return False
        return map_key(e) in c
    raise EvalError("no such overload")


# --- arithmetic -----------------------------------------------------------------------------

def op_add(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is not tb:
        if _is_list(a) and _is_list(b):
            return list(a) + list(b)
        if ta is Timestamp and tb is Duration:
            return a.add(b)
        if ta is Duration and tb is Timestamp:
            return b.add(a)
        raise _nso()
    if ta is int:
        return _check_int(a + b)
    if ta is UInt:
        return _check_uint(a + b)
    if ta is float or ta is str or ta is bytes:
        return a + b
    if ta is list or ta is tuple:
        return list(a) + list(b)
    if ta is Duration:
        return Duration(a.nanos + b.nanos).checked()
    raise _nso()


def op_sub(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is Timestamp and tb is Duration:
        return a.add(Duration(-b.nanos))
    if ta is not tb:
        raise _nso()
    if ta is int:
        return _check_int(a - b)
    if ta is UInt:
        return _check_uint(a - b)
    if ta is float:
        return a - b
    if ta is Timestamp:
        return Duration(a.nanos - b.nanos).checked()
    if ta is Duration:
        return Duration(a.nanos - b.nanos).checked()
    raise _nso()


def op_mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is not tb:
        raise _nso()
    if ta is int:
        return _check_int(a * b)
    if ta is UInt:
        return _check_uint(a * b)
    if ta is float:
        return a * b
    raise _nso()


def op_div(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is not tb:
        raise _nso()
    if ta is int or ta is UInt:
        if b == 0:
            raise EvalError("division by zero")
        if ta is int and a == INT64_MIN and b == -1:
            raise EvalError("integer overflow")
        q = abs(a) // abs(b)
        q = q if (a >= 0) == (b >= 0) else -q
        return UInt(q) if ta is UInt else q
    if ta is float:
        if b == 0.0:
            if a == 0.0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    raise _nso()


def op_mod(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is not tb or ta not in (int, UInt):
        raise _nso()
    if b == 0:
        raise EvalError("modulus by zero")
    if ta is int and a == INT64_MIN and b == -1:
        raise EvalError("integer overflow")
    r = abs(a) % abs(b)
    r = r if a >= 0 else -r
    return UInt(r) if ta is UInt else r


def op_neg(a: Any) -> Any:
    ta = type(a)
    if ta is int:
        return _check_int(-a)
    if ta is float:
        return -a
    if ta is Duration:
        return Duration(-a.nanos).checked()
    raise _nso()


_ORDERED = (int, UInt, float, str, bytes, bool)


def _cmp_pair(a: Any, b: Any) -> tuple[Any, Any]:
    ta, tb = type(a), type(b)
    if ta is tb and ta in _ORDERED:
        return a, b
    num = (int, UInt, float)
    if ta in num and tb in num:
        return a, b
    if ta is tb and ta in (Timestamp, Duration):
        return a.nanos, b.nanos
    raise _nso()


def op_lt(a, b):
    x, y = _cmp_pair(a, b)
    return x < y


def op_le(a, b):
    x, y = _cmp_pair(a, b)
    return x <= y


def op_gt(a, b):
    x, y = _cmp_pair(a, b)
    return x > y


def op_ge(a, b):
    x, y = _cmp_pair(a, b)
    return x >= y


# --- DRA includes ---------------------------------------------------------------------------

def f_includes(recv, v):
    if _is_list(recv):
        if len(recv) > MAX_INCLUDES:
            raise EvalError(f"'includes' function cannot be applied to lists longer than {MAX_INCLUDES} values")
        return any(equal_or_false(x, v) for x in recv)
    return equal_or_false(recv, v)




# --- dispatch -------------------------------------------------------------------------------

def _map_insert(m, k, v=None):
    if not isinstance(m, dict):
        raise _nso()
    out = dict(m)
    if v is None and isinstance(k, dict):
        for kk, vv in k.items():
            if map_key(kk) in out:
                raise EvalError(f"insert failed: key {kk} already exists")
            out[map_key(kk)] = vv
        return out
    if map_key(k) in out:
        raise EvalError(f"insert failed: key {k} already exists")
    out[map_key(k)] = v
    return out


FUNCTIONS: dict[str, Callable] = {
    "_+_": op_add, "_-_": op_sub, "_*_": op_mul, "_/_": op_div, "_%_": op_mod, "-_": op_neg,
    "_<_": op_lt, "_<=_": op_le, "_>_": op_gt, "_>=_": op_ge,
    # DRA
    "includes": f_includes,
    # comprehension helpers
    "cel.@mapInsert": _map_insert,
}


_ALL_FUNCTIONS: dict[str, Callable] = {}


def lookup(name: str) -> Callable | None:
    """The implementation of ``name``: the standard functions above and every library of
    dractl/cel/libs/ (merged on first use: the library modules import this one)."""
    if not _ALL_FUNCTIONS:
        from . import libs
        _ALL_FUNCTIONS.update(FUNCTIONS)
        _ALL_FUNCTIONS.update(libs.implementations())
    return _ALL_FUNCTIONS.get(name)


# --- runtime cost (cel-go interpreter/runtimecost.go + Kubernetes library cost.go) ----------

def _ceil(x: float) -> int:
    return int(math.ceil(x))


def _sz(v: Any) -> int:
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    return 1


def cost_compare(a: Any, b: Any) -> int:
    return _ceil(0.1 * min(_sz(a), _sz(b)))


def _c_add(a, b):
    if isinstance(a, (str, bytes)):
        return _ceil(0.1 * (_sz(a) + _sz(b)))
    return 1


def _c_order(a, b):
    if isinstance(a, (str, bytes)) and isinstance(b, (str, bytes)):
        return cost_compare(a, b)
    return 1


_COSTERS: dict[str, Callable[..., int]] = {
    "_<_": _c_order, "_<=_": _c_order, "_>_": _c_order, "_>=_": _c_order,
    "_+_": _c_add,
}


_ALL_COSTERS: dict[str, Callable[..., int]] = {}


def runtime_cost(name: str) -> Callable[..., int] | None:
    if not _ALL_COSTERS:
        from . import libs
        _ALL_COSTERS.update(_COSTERS)
        _ALL_COSTERS.update(libs.runtime_costs())
    return _ALL_COSTERS.get(name)
