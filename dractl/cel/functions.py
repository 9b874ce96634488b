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
from . import libs as LIBS
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


def s_char_at(s, i):
    s, i = _str(s), _int(i)
    if i < 0 or i > len(s):
        raise EvalError(f"index out of range: {i}")
    return s[i:i + 1]


def s_index_of(s, sub, offset=0):
    if _is_list(s):
        if offset:
            raise _nso()
        return l_index_of(s, sub)
    s, sub, offset = _str(s), _str(sub), _int(offset)
    if offset < 0 or offset > len(s):
        raise EvalError(f"index out of range: {offset}")
    return s.find(sub, offset)


def s_last_index_of(s, sub, offset=None):
    if _is_list(s):
        if offset is not None:
            raise _nso()
        return l_last_index_of(s, sub)
    s, sub = _str(s), _str(sub)
    if offset is None:
        return s.rfind(sub)
    offset = _int(offset)
    if offset < 0 or offset >= len(s) and not (len(s) == 0 and offset == 0):
        if not (offset == len(s) and False):
            raise EvalError(f"index out of range: {offset}")
    return s.rfind(sub, 0, offset + len(sub))


_TO_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TO_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def s_lower_ascii(s):
    return _str(s).translate(_TO_LOWER)


def s_upper_ascii(s):
    return _str(s).translate(_TO_UPPER)


def s_replace(s, old, new, n=-1):
    s, old, new, n = _str(s), _str(old), _str(new), _int(n)
    if n < 0:
        return s.replace(old, new)
    return s.replace(old, new, n)


def s_split(s, sep, n=-1):
    s, sep, n = _str(s), _str(sep), _int(n)
    if n == 0:
        return []
    if n == 1:
        return [s]
    if sep == "":
        chars = list(s)
        if n < 0 or n >= len(chars):
            return chars
        return chars[:n - 1] + ["".join(chars[n - 1:])]
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


def s_substring(s, start, end=None):
    s, start = _str(s), _int(start)
    end = len(s) if end is None else _int(end)
    if start < 0 or start > len(s):
        raise EvalError(f"index out of range: {start}")
    if end < 0 or end > len(s):
        raise EvalError(f"index out of range: {end}")
    if start > end:
        raise EvalError(f"invalid substring range. start: {start}, end: {end}")
    return s[start:end]


_UNICODE_WS = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def s_trim(s):
    return _str(s).strip(_UNICODE_WS)


def s_join(lst, sep=""):
    if not _is_list(lst):
        raise _nso()
    sep = _str(sep)
    for x in lst:
        if type(x) is not str:
            raise _nso()
    return sep.join(lst)


def s_quote(s):
    s = _str(s)
    out = ['"']
    for c in s:
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif c == "\a":
            out.append("\\a")
        elif c == "\b":
            out.append("\\b")
        elif c == "\f":
            out.append("\\f")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c == "\v":
            out.append("\\v")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _fmt_arg_string(v: Any) -> str:
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is UInt:
        return str(int(v))
    if t is float:
        return format_double(v)
    if t is bytes:
        return v.decode("utf-8", errors="replace")
    if v is None:
        return "null"
    if _is_list(v):
        return "[" + ", ".join(_fmt_arg_string(x) if type(x) is not str else x for x in v) + "]"
    if isinstance(v, dict):
        items = sorted(((_fmt_arg_string(k), _fmt_arg_string(x)) for k, x in v.items()))
        return "{" + ", ".join(f"{k}: {x}" for k, x in items) + "}"
    if t is CelType:
        return v.name
    if t in (Timestamp, Duration, IPAddr, CIDR):
        return str(v)
    raise EvalError(f"error during formatting: string clause can only be used on strings, bools, "
                    f"bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {type_name(v)}")


def s_format(fmt, args):
    fmt = _str(fmt)
    if not _is_list(args):
        raise _nso()
    out: list[str] = []
    i, argi, n = 0, 0, len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        i += 1
        if i < n and fmt[i] == "%":
            out.append("%")
            i += 1
            continue
        prec = None
        if i < n and fmt[i] == ".":
            j = i + 1
            while j < n and fmt[j].isdigit():
                j += 1
            prec = int(fmt[i + 1:j] or "0")
            i = j
        if i >= n:
            raise EvalError("error during formatting: unexpected end of format string")
        verb = fmt[i]
        i += 1
        if argi >= len(args):
            raise EvalError(f"error during formatting: index {argi} out of range")
        a = args[argi]
        argi += 1
        ta = type(a)
        if verb == "s":
            out.append(_fmt_arg_string(a))
        elif verb == "d":
            if ta not in (int, UInt):
                raise EvalError(f"error during formatting: decimal clause can only be used on integers, was given {type_name(a)}")
            out.append(str(int(a)))
        elif verb in "fe":
            if ta not in (int, UInt, float):
                raise EvalError(f"error during formatting: {'fixed-point' if verb == 'f' else 'scientific'} clause can only be used on doubles, was given {type_name(a)}")
            p = 6 if prec is None else prec
            x = float(a)
            if math.isnan(x):
                out.append("NaN")
            elif math.isinf(x):
                out.append("Infinity" if x > 0 else "-Infinity")
            else:
                out.append(f"{x:.{p}{verb}}")
        elif verb == "b":
            if ta in (int, UInt):
                out.append(format(int(a), "b"))
            elif ta is bool:
                out.append("1" if a else "0")
            else:
                raise EvalError(f"error during formatting: only integers and bools can be formatted as binary, was given {type_name(a)}")
        elif verb == "o":
            if ta not in (int, UInt):
                raise EvalError(f"error during formatting: octal clause can only be used on integers, was given {type_name(a)}")
            out.append(format(int(a), "o"))
        elif verb in "xX":
            if ta in (int, UInt):
                s = format(int(a), "x")
            elif ta is str:
                s = a.encode("utf-8").hex()
            elif ta is bytes:
                s = a.hex()
            else:
                raise EvalError(f"error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given {type_name(a)}")
            out.append(s.upper() if verb == "X" else s)
        else:
            raise EvalError(f"error during formatting: unrecognized formatting clause \"{verb}\"")
    if argi < len(args):
        raise EvalError(f"error during formatting: too many arguments supplied to string.format (expected {argi}, got {len(args)})")
    return "".join(out)


# --- lists: ext lists v3 + Kubernetes lists -------------------------------------------------

def _list(x):
    if not _is_list(x):
        raise _nso()
    return x


def l_slice(lst, start, end):
    lst, start, end = _list(lst), _int(start), _int(end)
    if start < 0 or end < 0:
        raise EvalError(f"cannot slice(%d, %d), negative indexes not supported" % (start, end))
    if start > end:
        raise EvalError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if end > len(lst):
        raise EvalError(f"cannot slice({start}, {end}), list is length {len(lst)}")
    return list(lst[start:end])


def l_flatten(lst, depth=1):
    lst, depth = _list(lst), _int(depth)
    if depth < 0:
        raise EvalError("level must be non-negative")

    def flat(xs, d):
        out = []
        for x in xs:
            if _is_list(x) and d > 0:
                out.extend(flat(x, d - 1))
            else:
                out.append(x)
        return out
    return flat(lst, depth)


def l_distinct(lst):
    out: list = []
    for x in _list(lst):
        if not any(equal_or_false(x, y) for y in out):
            out.append(x)
    return out


def l_reverse(lst):
    if type(lst) is str:
        raise _nso()  # strings ext is v2 in Kubernetes: no string reverse
    return list(reversed(_list(lst)))


def _sort_key_check(lst):
    if not lst:
        return
    t = type(lst[0])
    num = (int, UInt, float)
    for x in lst:
        tx = type(x)
        if tx is t:
            continue
        if t in num and tx in num:
            continue
        raise EvalError("list elements must have the same type")
    if t not in (int, UInt, float, str, bytes, bool, Timestamp, Duration):
        if not hasattr(lst[0], "cel_compare"):
            raise EvalError("list elements must be comparable")


def _cel_key(x):
    if type(x) in (Timestamp, Duration):
        return x.nanos
    return x


def l_sort(lst):
    lst = _list(lst)
    _sort_key_check(lst)
    if lst and hasattr(lst[0], "cel_compare"):
        import functools
        return sorted(lst, key=functools.cmp_to_key(lambda a, b: a.cel_compare(b)))
    return sorted(lst, key=_cel_key)


def l_sort_by_keys(lst, keys):
    lst, keys = _list(lst), _list(keys)
    if len(lst) != len(keys):
        raise EvalError("@sortByAssociatedKeys() expected a list of the same size as the associated keys list")
    _sort_key_check(keys)
    order = sorted(range(len(lst)), key=lambda i: _cel_key(keys[i]))
    return [lst[i] for i in order]


def l_range(n):
    n = _int(n)
    return list(range(max(n, 0)))


def l_first(lst):
    lst = _list(lst)
    return Optional(lst[0]) if lst else Optional.NONE


def l_last(lst):
    lst = _list(lst)
    return Optional(lst[-1]) if lst else Optional.NONE


def _k8s_cmp(a, b) -> int:
    ta, tb = type(a), type(b)
    if ta is tb and ta in (int, UInt, float, str, bytes, bool):
        return (a > b) - (a < b)
    if ta is tb and ta in (Timestamp, Duration):
        return (a.nanos > b.nanos) - (a.nanos < b.nanos)
    if ta is tb and hasattr(a, "cel_compare"):
        return a.cel_compare(b)
    raise _nso()


def l_is_sorted(lst):
    lst = _list(lst)
    for i in range(1, len(lst)):
        if _k8s_cmp(lst[i - 1], lst[i]) > 0:
            return False
    return True


def l_sum(lst):
    lst = _list(lst)
    if not lst:
        return 0
    acc = lst[0]
    for x in lst[1:]:
        acc = op_add(acc, x)
    if type(acc) not in (int, UInt, float, Duration):
        raise _nso()
    return acc


def l_min(lst):
    lst = _list(lst)
    if not lst:
        raise EvalError("min called on empty list")
    best = lst[0]
    for x in lst[1:]:
        if _k8s_cmp(x, best) < 0:
            best = x
    return best


def l_max(lst):
    lst = _list(lst)
    if not lst:
        raise EvalError("max called on empty list")
    best = lst[0]
    for x in lst[1:]:
        if _k8s_cmp(x, best) > 0:
            best = x
    return best


def l_index_of(lst, v):
    for i, x in enumerate(_list(lst)):
        if equal_or_false(x, v):
            return i
    return -1


def l_last_index_of(lst, v):
    lst = _list(lst)
    for i in range(len(lst) - 1, -1, -1):
        if equal_or_false(lst[i], v):
            return i
    return -1


# --- DRA includes ---------------------------------------------------------------------------

def f_includes(recv, v):
    if _is_list(recv):
        if len(recv) > MAX_INCLUDES:
            raise EvalError(f"'includes' function cannot be applied to lists longer than {MAX_INCLUDES} values")
        return any(equal_or_false(x, v) for x in recv)
    return equal_or_false(recv, v)


# --- optional -------------------------------------------------------------------------------

def o_of(v):
    return Optional(v)


def _is_zero(v) -> bool:
    t = type(v)
    if v is None:
        return True
    if t in (bool, int, UInt, float, str, bytes):
        return not v
    if _is_list(v) or isinstance(v, dict):
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
        raise _nso()
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
    for x in _list(lst):
        if _opt(x).present:
            out.append(x.value)  # an error value stays in the list, as in cel-go
    return out


from .formatlib import FORMAT_FUNCTIONS, format_validate, format_named


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


def _sort_by(lst, keys):
    return l_sort_by_keys(lst, keys)


def _index_of(recv, v, *rest):
    return s_index_of(recv, v, *rest)


def _last_index_of(recv, v, *rest):
    return s_last_index_of(recv, v, *rest)


FUNCTIONS: dict[str, Callable] = {
    "_+_": op_add, "_-_": op_sub, "_*_": op_mul, "_/_": op_div, "_%_": op_mod, "-_": op_neg,
    "_<_": op_lt, "_<=_": op_le, "_>_": op_gt, "_>=_": op_ge,
    "size": f_size, "contains": f_contains, "startsWith": f_starts_with,
    "endsWith": f_ends_with, "matches": f_matches,
    "int": f_int, "uint": f_uint, "double": f_double, "string": f_string, "bytes": f_bytes,
    "bool": f_bool, "dyn": f_dyn, "type": f_type, "duration": f_duration, "timestamp": f_timestamp,
    # strings ext v2
    "charAt": s_char_at, "indexOf": _index_of, "lastIndexOf": _last_index_of,
    "lowerAscii": s_lower_ascii, "upperAscii": s_upper_ascii, "replace": s_replace,
    "split": s_split, "substring": s_substring, "trim": s_trim, "join": s_join,
    "format": s_format, "strings.quote": s_quote,
    # lists
    "slice": l_slice, "flatten": l_flatten, "distinct": l_distinct, "reverse": l_reverse,
    "sort": l_sort, "@sortBy": _sort_by, "lists.range": l_range, "first": l_first, "last": l_last,
    "isSorted": l_is_sorted, "sum": l_sum, "min": l_min, "max": l_max,
    # DRA
    "includes": f_includes,
    # optional
    "optional.of": o_of, "optional.ofNonZeroValue": o_of_non_zero, "optional.none": o_none,
    "hasValue": o_has_value, "value": o_value, "orValue": o_or_value, "or": o_or,
    "optional.unwrap": o_unwrap, "unwrapOpt": o_unwrap,
    # format
    "format.named": format_named, "validate": format_validate,
    # comprehension helpers
    "cel.@mapInsert": _map_insert,
}
FUNCTIONS.update(FORMAT_FUNCTIONS)
FUNCTIONS.update(LIBS.implementations())
for _g in ("getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
           "getHours", "getMinutes", "getSeconds", "getMilliseconds"):
    FUNCTIONS[_g] = _ts_getter(_g)


def lookup(name: str) -> Callable | None:
    return FUNCTIONS.get(name)


# --- runtime cost (cel-go interpreter/runtimecost.go + Kubernetes library cost.go) ----------

def _ceil(x: float) -> int:
    return int(math.ceil(x))


def _sz(v: Any) -> int:
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    return 1


def cost_compare(a: Any, b: Any) -> int:
    return _ceil(0.1 * min(_sz(a), _sz(b)))


def _traversal(v: Any) -> int:
    """Kubernetes' cost of traversing a value (lists/maps recursively, strings by 0.1/char)."""
    if isinstance(v, str):
        return int(0.1 * len(v))
    if _is_list(v):
        return sum(_traversal(x) for x in v) + 0
    if isinstance(v, dict):
        return sum(_traversal(k) + _traversal(x) for k, x in v.items())
    return 1


def _c_str1(s, *rest):
    return _ceil(0.1 * _sz(s))


def _c_str2(s, *rest):
    return _ceil(0.2 * _sz(s))


def _c_add(a, b):
    if isinstance(a, (str, bytes)):
        return _ceil(0.1 * (_sz(a) + _sz(b)))
    return 1


def _c_contains(s, sub):
    return _ceil(0.1 * _sz(s)) * _ceil(0.1 * _sz(sub))


def _c_list_traversal(lst, *rest):
    return max(1, _traversal(lst))


def _c_size_list(lst, *rest):
    return max(1, _sz(lst))


def _c_join(lst, sep=""):
    return _ceil(0.1 * (sum(_sz(x) for x in lst) if _is_list(lst) else 1 + _sz(sep) * max(len(lst) - 1, 0)))


def _c_format(fmt, args):
    return _ceil(0.1 * _sz(fmt)) + 1


def _c_order(a, b):
    if isinstance(a, (str, bytes)) and isinstance(b, (str, bytes)):
        return cost_compare(a, b)
    return 1


_COSTERS: dict[str, Callable[..., int]] = {
    "_<_": _c_order, "_<=_": _c_order, "_>_": _c_order, "_>=_": _c_order,
    "_+_": _c_add, "startsWith": _c_str1, "endsWith": _c_str1, "contains": _c_contains,
    "matches": LIBS.regexlib.regex_runtime_cost,
    "lowerAscii": _c_str1, "upperAscii": _c_str1, "trim": _c_str1, "substring": _c_str1,
    "charAt": _c_str1, "indexOf": _c_str1, "lastIndexOf": _c_str1,
    "replace": _c_str2, "split": _c_str2, "join": _c_join, "strings.quote": _c_str1,
    "format": _c_format, "string": _c_str1, "bytes": _c_str1,
    "isSorted": _c_list_traversal, "sum": _c_list_traversal, "min": _c_list_traversal,
    "max": _c_list_traversal, "distinct": _c_size_list, "sort": _c_size_list,
    "reverse": _c_size_list, "flatten": _c_size_list, "slice": _c_size_list,
    "lists.range": lambda n: max(1, n if type(n) is int else 1),
    "flatten": _c_size_list,
}


_COSTERS.update(LIBS.runtime_costs())


def runtime_cost(name: str) -> Callable[..., int] | None:
    return _COSTERS.get(name)
