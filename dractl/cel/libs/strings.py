"""cel-go strings extension, version 2 (ext/strings.go), as Kubernetes enables it: charAt,
indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join, format,
strings.quote. indexOf/lastIndexOf also serve the Kubernetes lists library (one implementation
dispatching on the receiver, declared in both libraries)."""

from __future__ import annotations

import math
from typing import Any

from .. import ast as A
from ..netlib import CIDR, IPAddr
from ..timevalues import Duration, Timestamp
from ..values import CelType, EvalError, UInt, no_such_overload, type_name
from . import Library
from ._args import as_int, as_str, ceil, is_list, size
from .lists import l_index_of, l_last_index_of
from .standard import format_double


def s_char_at(s, i):
    s, i = as_str(s), as_int(i)
    if i < 0 or i > len(s):
        raise EvalError(f"index out of range: {i}")
    return s[i:i + 1]


def s_index_of(s, sub, offset=0):
    if is_list(s):
        if offset:
            raise no_such_overload()
        return l_index_of(s, sub)
    s, sub, offset = as_str(s), as_str(sub), as_int(offset)
    if offset < 0 or offset > len(s):
        raise EvalError(f"index out of range: {offset}")
    return s.find(sub, offset)


def s_last_index_of(s, sub, offset=None):
    if is_list(s):
        if offset is not None:
            raise no_such_overload()
        return l_last_index_of(s, sub)
    s, sub = as_str(s), as_str(sub)
    if offset is None:
        return s.rfind(sub)
    offset = as_int(offset)
    if offset < 0 or offset >= len(s) and not (len(s) == 0 and offset == 0):
        if not (offset == len(s) and False):
            raise EvalError(f"index out of range: {offset}")
    return s.rfind(sub, 0, offset + len(sub))


_TO_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TO_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def s_lower_ascii(s):
    return as_str(s).translate(_TO_LOWER)


def s_upper_ascii(s):
    return as_str(s).translate(_TO_UPPER)


def s_replace(s, old, new, n=-1):
    s, old, new, n = as_str(s), as_str(old), as_str(new), as_int(n)
    if n < 0:
        return s.replace(old, new)
    return s.replace(old, new, n)


def s_split(s, sep, n=-1):
    s, sep, n = as_str(s), as_str(sep), as_int(n)
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
    s, start = as_str(s), as_int(start)
    end = len(s) if end is None else as_int(end)
    if start < 0 or start > len(s):
        raise EvalError(f"index out of range: {start}")
    if end < 0 or end > len(s):
        raise EvalError(f"index out of range: {end}")
    if start > end:
        raise EvalError(f"invalid substring range. start: {start}, end: {end}")
    return s[start:end]


_UNICODE_WS = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def s_trim(s):
    return as_str(s).strip(_UNICODE_WS)


def s_join(lst, sep=""):
    if not is_list(lst):
        raise no_such_overload()
    sep = as_str(sep)
    for x in lst:
        if type(x) is not str:
            raise no_such_overload()
    return sep.join(lst)


def s_quote(s):
    s = as_str(s)
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
    if is_list(v):
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
    fmt = as_str(fmt)
    if not is_list(args):
        raise no_such_overload()
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


# -- costs ------------------------------------------------------------------------------------

def _tenth_of_receiver(s, *rest) -> int:
    return ceil(0.1 * size(s))


def _fifth_of_receiver(s, *rest) -> int:
    return ceil(0.2 * size(s))


def _join_runtime_cost(lst, sep="") -> int:
    return ceil(0.1 * (sum(size(x) for x in lst) if is_list(lst)
                       else 1 + size(sep) * max(len(lst) - 1, 0)))


def _format_runtime_cost(fmt, args) -> int:
    return ceil(0.1 * size(fmt)) + 1


def _linear_static(est, call, target, args, arg_sum):
    from ..cost import _add, _factor
    if target is None:
        return None
    s = est.size_or_unknown(target)
    return _add(_factor(s[1], 0.1), arg_sum), s


def _replace_static(est, call, target, args, arg_sum):
    from ..cost import U64, _add, _factor, _mul
    if target is None or len(args) < 2:
        return None
    sz = est.size_or_unknown
    s, old, new = sz(target), sz(args[0]), sz(args[1])
    if old[0] == 0:
        count = s[1] + 1 if s[1] < U64 else s[1]
        retained = s[1]
    elif new[1] <= old[0]:
        count, retained = 0, s[1]
    else:
        count, retained = math.ceil(s[1] / old[0]) if s[1] < U64 else U64, 0
    size_estimate = (0, _add(_mul(count, new[1]), retained))
    return _add(_factor(s[1], 0.2), arg_sum), size_estimate


def _split_static(est, call, target, args, arg_sum):
    from ..cost import U64, _add, _factor
    if target is None:
        return None
    s = est.size_or_unknown(target)
    most = s[1]
    limit = args[1] if len(args) > 1 else None
    if isinstance(limit, A.Lit) and isinstance(limit.value, int):
        most = max(limit.value, 0) if limit.value >= 0 else U64
    return _add(_factor(s[1], 0.2), arg_sum), (0, most)


def _join_static(est, call, target, args, arg_sum):
    from ..cost import U64, _add, _factor, _mul
    if target is None:
        return None
    sz = est.size_or_unknown
    list_size = sz(target)
    elem = est._list_elem_size(target)
    total = (0, _mul(list_size[1], elem[1])) if elem is not None else (0, 0)
    if args:
        sep = sz(args[0])
        gaps = max(list_size[1] - 1, 0) if list_size[1] < U64 else U64
        total = (0, _add(total[1], _mul(sep[1], gaps)))
    return _add(_factor(total[1], 0.1), arg_sum), total


def _format_static(est, call, target, args, arg_sum):
    from ..cost import _add, _factor
    if target is None:
        return None
    ts, as_ = est.size_or_unknown(target), est.size_or_unknown(args[0]) if args else (0, 0)
    return _add(_factor(ts[1], 0.1), arg_sum), (0, _add(ts[1], as_[1]))


def _quote_static(est, call, target, args, arg_sum):
    from ..cost import _add, _factor, _mul
    if len(args) != 1:
        return None
    s = est.size_or_unknown(args[0])
    return _add(_factor(s[1], 0.1), arg_sum), (s[0] + 2, _add(_mul(s[1], 2), 2))


LIBRARY = Library(
    "strings",
    ("string.charAt(int) -> string", "string.indexOf(string) -> int",
     "string.indexOf(string,int) -> int", "string.lastIndexOf(string) -> int",
     "string.lastIndexOf(string,int) -> int", "string.lowerAscii() -> string",
     "string.upperAscii() -> string", "string.replace(string,string) -> string",
     "string.replace(string,string,int) -> string", "string.split(string) -> list(string)",
     "string.split(string,int) -> list(string)", "string.substring(int) -> string",
     "string.substring(int,int) -> string", "string.trim() -> string",
     "list(string).join() -> string", "list(string).join(string) -> string",
     "string.format(list(dyn)) -> string", "strings.quote(string) -> string"),
    functions={
        "charAt": s_char_at, "indexOf": s_index_of, "lastIndexOf": s_last_index_of,
        "lowerAscii": s_lower_ascii, "upperAscii": s_upper_ascii, "replace": s_replace,
        "split": s_split, "substring": s_substring, "trim": s_trim, "join": s_join,
        "format": s_format, "strings.quote": s_quote,
    },
    static_costs={
        "lowerAscii": _linear_static, "upperAscii": _linear_static,
        "substring": _linear_static, "trim": _linear_static, "replace": _replace_static,
        "split": _split_static, "join": _join_static, "format": _format_static,
        "strings.quote": _quote_static,
    },
    runtime_costs={
        "lowerAscii": _tenth_of_receiver, "upperAscii": _tenth_of_receiver,
        "trim": _tenth_of_receiver, "substring": _tenth_of_receiver,
        "charAt": _tenth_of_receiver, "indexOf": _tenth_of_receiver,
        "lastIndexOf": _tenth_of_receiver, "strings.quote": _tenth_of_receiver,
        "replace": _fifth_of_receiver, "split": _fifth_of_receiver, "join": _join_runtime_cost,
        "format": _format_runtime_cost,
    },
)
