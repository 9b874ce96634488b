"""cel-go sets extension (ext/sets.go): sets.contains, sets.equivalent, sets.intersects."""

from __future__ import annotations

from ..values import equal_or_false
from . import Library
from ._args import as_list, size


def _member(x, items) -> bool:
    return any(equal_or_false(x, y) for y in items)  # list `in` semantics


def sets_contains(a, b):
    a, b = as_list(a), as_list(b)
    return all(_member(x, a) for x in b)


def sets_equivalent(a, b):
    return sets_contains(a, b) and sets_contains(b, a)


def sets_intersects(a, b):
    a, b = as_list(a), as_list(b)
    return any(_member(x, a) for x in b)


def _pairwise_cost(a, b) -> int:
    return max(1, size(a) * size(b))


LIBRARY = Library(
    "sets",
    ("sets.contains(list(A),list(A)) -> bool", "sets.equivalent(list(A),list(A)) -> bool",
     "sets.intersects(list(A),list(A)) -> bool"),
    functions={"sets.contains": sets_contains, "sets.equivalent": sets_equivalent,
               "sets.intersects": sets_intersects},
    runtime_costs={"sets.contains": _pairwise_cost, "sets.equivalent": _pairwise_cost,
                   "sets.intersects": _pairwise_cost},
)
