"""cel-go's standard functions (besides the operators, which are the evaluator's core in
dractl/cel/functions.py): size, contains, startsWith, endsWith, matches, the type conversions
int/uint/double/string/bytes/bool/dyn/type, duration/timestamp and their getters."""

from __future__ import annotations

import math
import re
from typing import Any

from .. import regex as R
from ..netlib import CIDR, IPAddr
from ..timevalues import Duration, Timestamp, f_duration, f_timestamp
from ..values import (
    INT64_MAX,
    INT64_MIN,
    UINT64_MAX,
    CelType,
    EvalError,
    UInt,
    no_such_overload,
    type_name,
)
from . import Library
from ._args import ceil, size
from .regexlib import regex_runtime_cost


def f_size(x: Any) -> int:
    if isinstance(x, (str, bytes, list, tuple, dict)):
        return len(x)
    raise no_such_overload()


def f_contains(s: Any, sub: Any) -> bool:
    if type(s) is str and type(sub) is str:
        return sub in s
    raise no_such_overload()


def f_starts_with(s: Any, p: Any) -> bool:
    if type(s) is str and type(p) is str:
        return s.startswith(p)
    raise no_such_overload()


def f_ends_with(s: Any, p: Any) -> bool:
    if type(s) is str and type(p) is str:
        return s.endswith(p)
    raise no_such_overload()


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
    raise no_such_overload()


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
    raise no_such_overload()


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
    raise no_such_overload()


_FLOAT_RE = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI]nf(?:inity)?|NaN)")


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
    raise no_such_overload()


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
    raise no_such_overload()


def f_bytes(x: Any) -> bytes:
    if type(x) is bytes:
        return x
    if type(x) is str:
        return x.encode("utf-8")
    raise no_such_overload()


def f_bool(x: Any) -> bool:
    if type(x) is bool:
        return x
    if type(x) is str:
        if x in ("true", "True", "TRUE", "t", "1"):
            return True
        if x in ("false", "False", "FALSE", "f", "0"):
            return False
        raise EvalError("type conversion error from 'string' to 'bool'")
    raise no_such_overload()


def f_dyn(x: Any) -> Any:
    return x


def f_type(x: Any) -> CelType:
    return CelType(type_name(x))


def _ts_parts(ts, tz=None):
    import datetime
    if type(ts) is not Timestamp:
        raise no_such_overload()
    d = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + \
        datetime.timedelta(seconds=ts.nanos // 10 ** 9)
    if tz is not None:
        if type(tz) is not str:
            raise no_such_overload()
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
                raise no_such_overload()
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
        raise no_such_overload()
    return get


def _nso_raise():
    raise no_such_overload()


def _nso_raise():
    raise no_such_overload()


_GETTERS = ("getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
            "getHours", "getMinutes", "getSeconds", "getMilliseconds")
_DURATION_GETTERS = ("getHours", "getMinutes", "getSeconds", "getMilliseconds")
_ORDERED = (("int", "int"), ("uint", "uint"), ("double", "double"), ("string", "string"),
            ("bytes", "bytes"), ("bool", "bool"), ("ts", "ts"), ("dur", "dur"),
            ("int", "uint"), ("int", "double"), ("uint", "int"), ("uint", "double"),
            ("double", "int"), ("double", "uint"))

DECLARATIONS = (
    "size(string) -> int", "size(bytes) -> int", "size(list(A)) -> int", "size(map(A,B)) -> int",
    "string.size() -> int", "bytes.size() -> int", "list(A).size() -> int",
    "map(A,B).size() -> int",
    "string.contains(string) -> bool", "string.startsWith(string) -> bool",
    "string.endsWith(string) -> bool", "string.matches(string) -> bool",
    "matches(string,string) -> bool",
    "int(int) -> int", "int(uint) -> int", "int(double) -> int", "int(string) -> int",
    "int(ts) -> int",
    "uint(uint) -> uint", "uint(int) -> uint", "uint(double) -> uint", "uint(string) -> uint",
    "double(double) -> double", "double(int) -> double", "double(uint) -> double",
    "double(string) -> double",
    "string(string) -> string", "string(bool) -> string", "string(int) -> string",
    "string(uint) -> string", "string(double) -> string", "string(bytes) -> string",
    "string(ts) -> string", "string(dur) -> string", "string(IP) -> string",
    "string(CIDR) -> string",
    "bytes(bytes) -> bytes", "bytes(string) -> bytes", "bool(bool) -> bool",
    "bool(string) -> bool", "dyn(A) -> dyn", "type(A) -> type(A)",
    "duration(string) -> dur", "duration(dur) -> dur", "timestamp(string) -> ts",
    "timestamp(int) -> ts", "timestamp(ts) -> ts",
    # the ordering operators' overloads (the operators themselves are the evaluator's)
    *(f"{op}({a},{b}) -> bool" for op in ("_<_", "_<=_", "_>_", "_>=_") for a, b in _ORDERED),
    *(f"ts.{g}() -> int | ts.{g}(string) -> int" for g in _GETTERS),
    *(f"dur.{g}() -> int" for g in _DURATION_GETTERS),
)


# -- costs ------------------------------------------------------------------------------------

def _tenth_of_first(s, *rest) -> int:
    return ceil(0.1 * size(s))


def _contains_runtime_cost(s, sub) -> int:
    return ceil(0.1 * size(s)) * ceil(0.1 * size(sub))


def _conversion_static(est, call, target, args, arg_sum):
    """bytes(string) and string(bytes): linear in the input; other conversions cost 1."""
    from ..checker import BYTES, STRING
    from ..cost import _add, _factor, _mul
    if len(args) != 1:
        return None
    arg_type = est.types.get(args[0].id)
    s = est.size_or_unknown(args[0])
    if call.function == "bytes" and arg_type == STRING:
        return _add(_factor(s[1], 0.1), arg_sum), (s[0], _mul(s[1], 4))
    if call.function == "string" and arg_type == BYTES:
        return _add(_factor(s[1], 0.1), arg_sum), (s[0] // 4, s[1])
    return None


def _affix_static(est, call, target, args, arg_sum):
    from ..cost import _add, _factor
    if len(args) != 1:
        return None
    return _add(_factor(est.size_or_unknown(args[0])[1], 0.1), arg_sum), None


def _matches_static(est, call, target, args, arg_sum):
    from ..cost import _add, _factor, _mul
    if target is not None:
        subject, pattern = target, (args[0] if args else None)
    else:
        subject, pattern = (args[0] if args else None), (args[1] if len(args) > 1 else None)
    if subject is None or pattern is None:
        return None
    string_cost = _factor(_add(est.size_or_unknown(subject)[1], 1), 0.1)
    regex_cost = _factor(est.size_or_unknown(pattern)[1], 0.25)
    return _add(_mul(string_cost, regex_cost), arg_sum), None


def _contains_static(est, call, target, args, arg_sum):
    from ..cost import _add, _factor, _mul
    if target is None or len(args) != 1:
        return None
    sz = est.size_or_unknown
    return _add(_mul(_factor(sz(target)[1], 0.1), _factor(sz(args[0])[1], 0.1)), arg_sum), None


LIBRARY = Library(
    "standard",
    DECLARATIONS,
    functions={
        "size": f_size, "contains": f_contains, "startsWith": f_starts_with,
        "endsWith": f_ends_with, "matches": f_matches,
        "int": f_int, "uint": f_uint, "double": f_double, "string": f_string, "bytes": f_bytes,
        "bool": f_bool, "dyn": f_dyn, "type": f_type, "duration": f_duration,
        "timestamp": f_timestamp, **{g: _ts_getter(g) for g in _GETTERS},
    },
    static_costs={"bytes": _conversion_static, "string": _conversion_static,
                  "startsWith": _affix_static, "endsWith": _affix_static,
                  "matches": _matches_static, "contains": _contains_static},
    runtime_costs={"startsWith": _tenth_of_first, "endsWith": _tenth_of_first,
                   "string": _tenth_of_first, "bytes": _tenth_of_first,
                   "contains": _contains_runtime_cost, "matches": regex_runtime_cost},
)
