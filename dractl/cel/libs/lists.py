"""cel-go lists extension, version 3 (ext/lists.go), and the Kubernetes lists library
(k8s.io/apiserver/pkg/cel/library/lists.go): slice, flatten, distinct, reverse, sort,
@sortByAssociatedKeys (sortBy), lists.range, first, last, isSorted, sum, min, max, indexOf,
lastIndexOf (the last two implemented with the strings library's, one name for both)."""

from __future__ import annotations

import functools

from .. import ast as A
from ..functions import op_add
from ..timevalues import Duration, Timestamp
from ..values import EvalError, Optional, UInt, equal_or_false, no_such_overload
from . import Library
from ._args import as_int, as_list, is_list, size


def l_slice(lst, start, end):
    lst, start, end = as_list(lst), as_int(start), as_int(end)
    if start < 0 or end < 0:
        raise EvalError("cannot slice(%d, %d), negative indexes not supported" % (start, end))
    if start > end:
        raise EvalError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if end > len(lst):
        raise EvalError(f"cannot slice({start}, {end}), list is length {len(lst)}")
    return list(lst[start:end])


def l_flatten(lst, depth=1):
    lst, depth = as_list(lst), as_int(depth)
    if depth < 0:
        raise EvalError("level must be non-negative")

    def flat(xs, d):
        out = []
        for x in xs:
            if is_list(x) and d > 0:
                out.extend(flat(x, d - 1))
            else:
                out.append(x)
        return out
    return flat(lst, depth)


def l_distinct(lst):
    out: list = []
    for x in as_list(lst):
        if not any(equal_or_false(x, y) for y in out):
            out.append(x)
    return out


def l_reverse(lst):
    if type(lst) is str:
        raise no_such_overload()  # strings ext is v2 in Kubernetes: no string reverse
    return list(reversed(as_list(lst)))


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
    lst = as_list(lst)
    _sort_key_check(lst)
    if lst and hasattr(lst[0], "cel_compare"):
        return sorted(lst, key=functools.cmp_to_key(lambda a, b: a.cel_compare(b)))
    return sorted(lst, key=_cel_key)


def l_sort_by_keys(lst, keys):
    lst, keys = as_list(lst), as_list(keys)
    if len(lst) != len(keys):
        raise EvalError("@sortByAssociatedKeys() expected a list of the same size as the associated keys list")
    _sort_key_check(keys)
    order = sorted(range(len(lst)), key=lambda i: _cel_key(keys[i]))
    return [lst[i] for i in order]


def l_range(n):
    n = as_int(n)
    return list(range(max(n, 0)))


def l_first(lst):
    lst = as_list(lst)
    return Optional(lst[0]) if lst else Optional.NONE


def l_last(lst):
    lst = as_list(lst)
    return Optional(lst[-1]) if lst else Optional.NONE


def _k8s_cmp(a, b) -> int:
    ta, tb = type(a), type(b)
    if ta is tb and ta in (int, UInt, float, str, bytes, bool):
        return (a > b) - (a < b)
    if ta is tb and ta in (Timestamp, Duration):
        return (a.nanos > b.nanos) - (a.nanos < b.nanos)
    if ta is tb and hasattr(a, "cel_compare"):
        return a.cel_compare(b)
    raise no_such_overload()


def l_is_sorted(lst):
    lst = as_list(lst)
    for i in range(1, len(lst)):
        if _k8s_cmp(lst[i - 1], lst[i]) > 0:
            return False
    return True


def l_sum(lst):
    lst = as_list(lst)
    if not lst:
        return 0
    acc = lst[0]
    for x in lst[1:]:
        acc = op_add(acc, x)
    if type(acc) not in (int, UInt, float, Duration):
        raise no_such_overload()
    return acc


def l_min(lst):
    lst = as_list(lst)
    if not lst:
        raise EvalError("min called on empty list")
    best = lst[0]
    for x in lst[1:]:
        if _k8s_cmp(x, best) < 0:
            best = x
    return best


def l_max(lst):
    lst = as_list(lst)
    if not lst:
        raise EvalError("max called on empty list")
    best = lst[0]
    for x in lst[1:]:
        if _k8s_cmp(x, best) > 0:
            best = x
    return best


def l_index_of(lst, v):
    for i, x in enumerate(as_list(lst)):
        if equal_or_false(x, v):
            return i
    return -1


def l_last_index_of(lst, v):
    lst = as_list(lst)
    for i in range(len(lst) - 1, -1, -1):
        if equal_or_false(lst[i], v):
            return i
    return -1


# -- costs ------------------------------------------------------------------------------------

def _traversal(v) -> int:
    """Kubernetes' cost of traversing a value (lists/maps recursively, strings by 0.1/char)."""
    if isinstance(v, str):
        return int(0.1 * len(v))
    if is_list(v):
        return sum(_traversal(x) for x in v)
    if isinstance(v, dict):
        return sum(_traversal(k) + _traversal(x) for k, x in v.items())
    return 1


def _traversal_cost(lst, *rest) -> int:
    return max(1, _traversal(lst))


def _size_cost(lst, *rest) -> int:
    return max(1, size(lst))


def _range_cost(n) -> int:
    return max(1, n if type(n) is int else 1)


def scan_static(est, call, target, args, arg_sum):
    """Kubernetes' estimate for isSorted/sum/min/max/indexOf/lastIndexOf: per element 1 (plus
    0.1/char for string elements); a string receiver (indexOf) costs 0.1/char."""
    from ..checker import BYTES, STRING
    from ..cost import UNKNOWN, _add, _factor, _mul
    if target is None:
        return None
    size_of_target = est.size_or_unknown(target)[1]
    tt = est.types.get(target.id)
    if tt is None or tt.name != "list":
        return _add(_factor(size_of_target, 0.1), arg_sum), None
    per_element = 1
    if tt.params[0] in (STRING, BYTES):
        elem = est._list_elem_size(target) or UNKNOWN
        per_element = _add(1, _factor(elem[1], 0.1))
    return _add(_mul(size_of_target, per_element), arg_sum), None


def _range_static(est, call, target, args, arg_sum):
    from ..cost import _add
    if len(args) != 1:
        return None
    a = args[0]
    if isinstance(a, A.Lit) and type(a.value) is int:
        n = max(a.value, 0)
        return _add(n, arg_sum), (n, n)
    return _add(1, arg_sum), None


LIBRARY = Library(
    "lists",
    ("list(A).slice(int,int) -> list(A)", "list(dyn).flatten() -> list(dyn)",
     "list(dyn).flatten(int) -> list(dyn)", "list(A).distinct() -> list(A)",
     "list(A).reverse() -> list(A)", "list(A).sort() -> list(A)",
     "@sortBy(list(A),list(B)) -> list(A)", "lists.range(int) -> list(int)",
     "list(A).isSorted() -> bool", "list(int).sum() -> int", "list(uint).sum() -> uint",
     "list(double).sum() -> double", "list(dur).sum() -> dur",
     "list(A).min() -> A", "list(A).max() -> A", "list(A).indexOf(A) -> int",
     "list(A).lastIndexOf(A) -> int", "list(A).first() -> opt(A)", "list(A).last() -> opt(A)"),
    functions={
        "slice": l_slice, "flatten": l_flatten, "distinct": l_distinct, "reverse": l_reverse,
        "sort": l_sort, "@sortBy": l_sort_by_keys, "lists.range": l_range, "first": l_first,
        "last": l_last, "isSorted": l_is_sorted, "sum": l_sum, "min": l_min, "max": l_max,
    },
    static_costs={"isSorted": scan_static, "sum": scan_static, "max": scan_static,
                  "min": scan_static, "indexOf": scan_static, "lastIndexOf": scan_static,
                  "lists.range": _range_static},
    runtime_costs={
        "isSorted": _traversal_cost, "sum": _traversal_cost, "min": _traversal_cost,
        "max": _traversal_cost, "distinct": _size_cost, "sort": _size_cost,
        "reverse": _size_cost, "flatten": _size_cost, "slice": _size_cost,
        "lists.range": _range_cost,
    },
)
