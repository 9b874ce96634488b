"""Runtime implementations of the CEL functions a DRA selector can call.

Standard library, ext strings v2, ext lists v3, ext sets, optional types, the Kubernetes libraries
(lists, regex, quantity, semver, url, ip/cidr, format) and DRA's ``includes``. Member calls receive
the receiver as first argument (``"a".startsWith("b")`` -> ``startsWith("a", "b")``). Functions
raise :class:`EvalError` with cel-go's wording; a Python ``TypeError``/``ValueError``/
``AttributeError`` escaping a function is turned into ``no such overload`` by the interpreter.

Static typing (which overloads exist, member vs global style) is the checker's business
(:mod:`dractl.cel.checker`); these functions dispatch on runtime types because attribute values are
``dyn``.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

from .k8stypes import (CelQuantity, Semver, SemverError, new_int_quantity, parse_quantity,
                       quantity_add, quantity_as_int64, quantity_float)
from .values import (INT64_MAX, INT64_MIN, UINT64_MAX, BrokenValue, CelType, DefaultMap,
                     EvalError, Optional, UInt, cel_equal, equal_or_false, present_value,
                     type_name)
from .netlib import CIDR, IPAddr
from . import regex as R

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


# --- standard functions ---------------------------------------------------------------------

def f_size(x: Any) -> int:
    if isinstance(x, (str, bytes, list, tuple, dict)):
        return len(x)
    raise _nso()


def f_contains(s: Any, sub: Any) -> bool:
    if type(s) is str and type(sub) is str:
        return sub in s
    raise _nso()


def f_starts_with(s: Any, p: Any) -> bool:
    if type(s) is str and type(p) is str:
        return s.startswith(p)
    raise _nso()


def f_ends_with(s: Any, p: Any) -> bool:
    if type(s) is str and type(p) is str:
        return s.endswith(p)
    raise _nso()


_MATCH_MEMO: dict = {}


def f_matches(s: Any, pattern: Any) -> bool:
    if type(s) is str and type(pattern) is str:
        key = (pattern, s)
        hit = _MATCH_MEMO.get(key)
        if hit is None:
            hit = R.compile_re(pattern).search(s) is not None
            if len(_MATCH_MEMO) > 100_000:
                _MATCH_MEMO.clear()
            _MATCH_MEMO[key] = hit
        return hit
    raise _nso()


def f_int(x: Any) -> int:
    t = type(x)
    if t is int:
        return x
    if t is UInt:
        if x > INT64_MAX:
            raise EvalError("integer overflow")
        return int(x)
    if t is float:
        if math.isnan(x) or math.isinf(x) or not (-9.223372036854775e18 <= x < 9.223372036854775807e18):
            raise EvalError("integer overflow")
        return int(x)
    if t is str:
        try:
            if not re.fullmatch(r"[+-]?[0-9]+", x):
                raise ValueError
            n = int(x, 10)
        except ValueError:
            raise EvalError(f"cannot convert string to int: strconv.ParseInt: parsing {_go_quote(x)}: invalid syntax") from None
        if not (INT64_MIN <= n <= INT64_MAX):
            raise EvalError(f"cannot convert string to int: strconv.ParseInt: parsing {_go_quote(x)}: value out of range")
        return n
    if t is Timestamp:
        return x.nanos // 10 ** 9
    raise _nso()


def f_uint(x: Any) -> UInt:
    t = type(x)
    if t is UInt:
        return x
    if t is int:
        if x < 0:
            raise EvalError("unsigned integer overflow")
        return UInt(x)
    if t is float:
        if math.isnan(x) or x < 0 or x >= 1.8446744073709552e19:
            raise EvalError("unsigned integer overflow")
        return UInt(int(x))
    if t is str:
        if not re.fullmatch(r"\+?[0-9]+", x):
            raise EvalError(f"cannot convert string to uint: strconv.ParseUint: parsing {_go_quote(x)}: invalid syntax")
        n = int(x)
        if n > UINT64_MAX:
            raise EvalError(f"cannot convert string to uint: strconv.ParseUint: parsing {_go_quote(x)}: value out of range")
        return UInt(n)
    raise _nso()


_FLOAT_RE = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI]nf(?:inity)?|NaN)")


def f_double(x: Any) -> float:
    t = type(x)
    if t is float:
        return x
    if t is int or t is UInt:
        return float(x)
    if t is str:
        if not _FLOAT_RE.fullmatch(x):
            raise EvalError(f"cannot convert string to double: strconv.ParseFloat: parsing {_go_quote(x)}: invalid syntax")
        return float(x)
    raise _nso()


def _go_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_double(x: float) -> str:
    """Go's strconv.FormatFloat(x, 'g', -1, 64) as cel-go's string(double) uses it."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    r = repr(x)
    if "e" in r or "E" in r:
        mant, _, exp = r.partition("e")
        e = int(exp)
        if -4 <= e < 21:
            return format(x, "f").rstrip("0").rstrip(".") if "." in format(x, "f") else format(x, "f")
        mant = mant[:-2] if mant.endswith(".0") else mant
        return f"{mant}e{'+' if e >= 0 else '-'}{abs(e):02d}"
    if r.endswith(".0"):
        r = r[:-2]
    n = abs(x)
    if n >= 1e21:
        m = f"{x:e}"
        mant, _, exp = m.partition("e")
        mant = mant.rstrip("0").rstrip(".")
        return f"{mant}e+{int(exp):02d}"
    return r


def f_string(x: Any) -> str:
    t = type(x)
    if t is str:
        return x
    if t is bool:
        return "true" if x else "false"
    if t is int or t is UInt:
        return str(int(x))
    if t is float:
        return format_double(x)
    if t is bytes:
        try:
            return x.decode("utf-8")
        except UnicodeDecodeError:
            raise EvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    if t is Timestamp or t is Duration:
        return str(x)
    if t is CelType:
        return x.name
    if t is IPAddr or t is CIDR:
        return str(x)
    raise _nso()


def f_bytes(x: Any) -> bytes:
    if type(x) is bytes:
        return x
    if type(x) is str:
        return x.encode("utf-8")
    raise _nso()


def f_bool(x: Any) -> bool:
    if type(x) is bool:
        return x
    if type(x) is str:
        if x in ("true", "True", "TRUE", "t", "1"):
            return True
        if x in ("false", "False", "FALSE", "f", "0"):
            return False
        raise EvalError(f"type conversion error from 'string' to 'bool'")
    raise _nso()


def f_dyn(x: Any) -> Any:
    return x


def f_type(x: Any) -> CelType:
    return CelType(type_name(x))


# --- timestamps and durations (minimal, UTC) ------------------------------------------------

class Duration:
    __slots__ = ("nanos",)
    CEL_TYPE = "google.protobuf.Duration"
    MAX = 315576000000 * 10 ** 9 + 999999999

    def __init__(self, nanos: int):
        self.nanos = nanos

    def checked(self) -> "Duration":
        if abs(self.nanos) > Duration.MAX:
            raise EvalError("duration out of range")
        return self

    def __eq__(self, o):
        return type(o) is Duration and o.nanos == self.nanos

    def __hash__(self):
        return hash(("dur", self.nanos))

    def __str__(self):
        s, ns = divmod(abs(self.nanos), 10 ** 9)
        sign = "-" if self.nanos < 0 else ""
        frac = f".{ns:09d}".rstrip("0") if ns else ""
        return f"{sign}{s}{frac}s"


_DUR_RE = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)")
_DUR_UNITS = {"ns": 1, "us": 10 ** 3, "µs": 10 ** 3, "ms": 10 ** 6, "s": 10 ** 9, "m": 60 * 10 ** 9,
              "h": 3600 * 10 ** 9}


def f_duration(x: Any) -> Duration:
    if type(x) is Duration:
        return x
    if type(x) is not str:
        raise _nso()
    s = x
    neg = s.startswith("-")
    if s[:1] in "+-":
        s = s[1:]
    if s == "0":
        return Duration(0)
    pos, total = 0, 0
    from fractions import Fraction
    while pos < len(s):
        m = _DUR_RE.match(s, pos)
        if not m:
            raise EvalError(f"type conversion error from 'string' to 'google.protobuf.Duration'")
        total += Fraction(m.group(1)) * _DUR_UNITS[m.group(2)]
        pos = m.end()
    if not s:
        raise EvalError(f"type conversion error from 'string' to 'google.protobuf.Duration'")
    n = int(total)
    return Duration(-n if neg else n).checked()


class Timestamp:
    __slots__ = ("nanos",)
    CEL_TYPE = "google.protobuf.Timestamp"

    def __init__(self, nanos: int):
        self.nanos = nanos

    def add(self, d: Duration) -> "Timestamp":
        r = Timestamp(self.nanos + d.nanos)
        if not (-62135596800 * 10 ** 9 <= r.nanos <= 253402300799 * 10 ** 9 + 999999999):
            raise EvalError("timestamp out of range")
        return r

    def __eq__(self, o):
        return type(o) is Timestamp and o.nanos == self.nanos

    def __hash__(self):
        return hash(("ts", self.nanos))

    def dt(self):
        import datetime
        return datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + \
            datetime.timedelta(microseconds=self.nanos // 1000)

    def __str__(self):
        d = self.dt()
        ns = self.nanos % 10 ** 9
        frac = f".{ns:09d}".rstrip("0") if ns else ""
        return d.strftime("%Y-%m-%dT%H:%M:%S") + frac + "Z"


_TS_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})")


def f_timestamp(x: Any) -> Timestamp:
    if type(x) is Timestamp:
        return x
    if type(x) is int:
        return Timestamp(x * 10 ** 9)
    if type(x) is not str:
        raise _nso()
    m = _TS_RE.fullmatch(x)
    if not m:
        raise EvalError(f"type conversion error from 'string' to 'google.protobuf.Timestamp'")
    import datetime
    y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
    try:
        base = datetime.datetime(y, mo, d, h, mi, s, tzinfo=datetime.timezone.utc)
    except ValueError:
        raise EvalError("type conversion error from 'string' to 'google.protobuf.Timestamp'") from None
    tz = m.group(8)
    offset = 0
    if tz not in ("Z", "z"):
        sign = 1 if tz[0] == "+" else -1
        offset = sign * (int(tz[1:3]) * 3600 + int(tz[4:6]) * 60)
    secs = int((base - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)).total_seconds()) - offset
    frac = m.group(7)
    ns = int((frac[1:] + "000000000")[:9]) if frac else 0
    return Timestamp(secs * 10 ** 9 + ns)


def _ts_parts(ts, tz=None):
    import datetime
    if type(ts) is not Timestamp:
        raise _nso()
    d = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + \
        datetime.timedelta(seconds=ts.nanos // 10 ** 9)
    if tz is not None:
        if type(tz) is not str:
            raise _nso()
        m = re.fullmatch(r"([+-])?(\d{2}):(\d{2})", tz)
        if m:
            off = datetime.timedelta(hours=int(m.group(2)), minutes=int(m.group(3)))
            d = d.astimezone(datetime.timezone(-off if m.group(1) == "-" else off))
        else:
            try:
                from zoneinfo import ZoneInfo
                d = d.astimezone(ZoneInfo(tz))
            except Exception:
                raise EvalError(f"unknown time zone {tz}") from None
    return d


def _ts_getter(kind):
    def get(x, tz=None):
        if type(x) is Duration:
            if tz is not None:
                raise _nso()
            total = x.nanos
            return {"getHours": int(total / 3600e9), "getMinutes": int(total / 60e9),
                    "getSeconds": int(total / 1e9),
                    "getMilliseconds": int(total / 1e6)}.get(kind) if kind in (
                "getHours", "getMinutes", "getSeconds", "getMilliseconds") else _nso_raise()
        d = _ts_parts(x, tz)
        if kind == "getFullYear":
            return d.year
        if kind == "getMonth":
            return d.month - 1
        if kind == "getDayOfYear":
            return d.timetuple().tm_yday - 1
        if kind == "getDayOfMonth":
            return d.day - 1
        if kind == "getDate":
            return d.day
        if kind == "getDayOfWeek":
            return (d.weekday() + 1) % 7
        if kind == "getHours":
            return d.hour
        if kind == "getMinutes":
            return d.minute
        if kind == "getSeconds":
            return d.second
        if kind == "getMilliseconds":
            return (x.nanos % 10 ** 9) // 10 ** 6
        raise _nso()
    return get


def _nso_raise():
    raise _nso()


# --- ext strings (version 2) ----------------------------------------------------------------

def _str(x: Any) -> str:
    if type(x) is not str:
        raise _nso()
    return x


def _int(x: Any) -> int:
    if type(x) is not int:
        raise _nso()
    return x


def _list(x):
    if not _is_list(x):
        raise _nso()
    return x


# --- DRA includes ---------------------------------------------------------------------------

def f_includes(recv, v):
    if _is_list(recv):
        if len(recv) > MAX_INCLUDES:
            raise EvalError(f"'includes' function cannot be applied to lists longer than {MAX_INCLUDES} values")
        return any(equal_or_false(x, v) for x in recv)
    return equal_or_false(recv, v)




def f_string_any(x):
    return f_string(x)


# --- dispatch -------------------------------------------------------------------------------

def _size_method(x):
    return f_size(x)


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
    "size": f_size, "contains": f_contains, "startsWith": f_starts_with,
    "endsWith": f_ends_with, "matches": f_matches,
    "int": f_int, "uint": f_uint, "double": f_double, "string": f_string, "bytes": f_bytes,
    "bool": f_bool, "dyn": f_dyn, "type": f_type, "duration": f_duration, "timestamp": f_timestamp,
    # DRA
    "includes": f_includes,
    # comprehension helpers
    "cel.@mapInsert": _map_insert,
}
for _g in ("getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
           "getHours", "getMinutes", "getSeconds", "getMilliseconds"):
    FUNCTIONS[_g] = _ts_getter(_g)


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


def _c_str1(s, *rest):
    return _ceil(0.1 * _sz(s))


def _c_add(a, b):
    if isinstance(a, (str, bytes)):
        return _ceil(0.1 * (_sz(a) + _sz(b)))
    return 1


def _c_contains(s, sub):
    return _ceil(0.1 * _sz(s)) * _ceil(0.1 * _sz(sub))


def _c_regex(s, pattern, *rest):
    return _ceil(0.1 * (_sz(s) + 1)) * _ceil(0.25 * _sz(pattern))


def _c_order(a, b):
    if isinstance(a, (str, bytes)) and isinstance(b, (str, bytes)):
        return cost_compare(a, b)
    return 1


_COSTERS: dict[str, Callable[..., int]] = {
    "_<_": _c_order, "_<=_": _c_order, "_>_": _c_order, "_>=_": _c_order,
    "_+_": _c_add, "startsWith": _c_str1, "endsWith": _c_str1, "contains": _c_contains,
    "matches": _c_regex, "string": _c_str1, "bytes": _c_str1,
}


_ALL_COSTERS: dict[str, Callable[..., int]] = {}


def runtime_cost(name: str) -> Callable[..., int] | None:
    if not _ALL_COSTERS:
        from . import libs
        _ALL_COSTERS.update(_COSTERS)
        _ALL_COSTERS.update(libs.runtime_costs())
    return _ALL_COSTERS.get(name)
