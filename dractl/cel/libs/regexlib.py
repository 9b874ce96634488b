"""Kubernetes regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find, findAll."""

from __future__ import annotations

from .. import regex as R
from . import Library
from ._args import as_int, as_str, ceil, size


def find(s, pattern):
    s, pattern = as_str(s), as_str(pattern)
    m = R.compile_re(pattern).search(s)
    return m.group(0) if m else ""


def find_all(s, pattern, limit=-1):
    s, pattern, limit = as_str(s), as_str(pattern), as_int(limit)
    if limit == 0:
        return []
    out = [m.group(0) for m in R.compile_re(pattern).finditer(s)]
    if limit > 0:
        out = out[:limit]
    return out


def regex_runtime_cost(s, pattern, *rest) -> int:
    """Kubernetes' regex cost: string cost (0.1/char + 1) times pattern cost (0.25/char)."""
    return ceil(0.1 * (size(s) + 1)) * ceil(0.25 * size(pattern))


def _static_cost(est, call, target, args, arg_sum):
    from ..cost import _add, _factor, _mul
    if target is None or not args:
        return None
    s = est.size_or_unknown(target)
    string_cost = _factor(_add(s[1], 1), 0.1)
    regex_cost = _factor(est.size_or_unknown(args[0])[1], 0.25)
    return _add(_mul(string_cost, regex_cost), arg_sum), (0, s[1])


LIBRARY = Library(
    "regex",
    ("string.find(string) -> string", "string.findAll(string) -> list(string)",
     "string.findAll(string,int) -> list(string)"),
    functions={"find": find, "findAll": find_all},
    static_costs={"find": _static_cost, "findAll": _static_cost},
    runtime_costs={"find": regex_runtime_cost, "findAll": regex_runtime_cost},
)
