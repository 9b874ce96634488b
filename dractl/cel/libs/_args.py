"""Argument checks shared by the library implementations (a wrong type is "no such overload")."""

from __future__ import annotations

import math
from typing import Any

from ..values import no_such_overload


def as_str(x: Any) -> str:
    if type(x) is not str:
        raise no_such_overload()
    return x


def as_int(x: Any) -> int:
    if type(x) is not int:
        raise no_such_overload()
    return x


def is_list(x: Any) -> bool:
    t = type(x)
    return t is list or t is tuple


def as_list(x: Any) -> list:
    if not is_list(x):
        raise no_such_overload()
    return x


def size(v: Any) -> int:
    """cel-go's actual size of a value for runtime cost (1 for scalars)."""
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    return 1


def ceil(x: float) -> int:
    return int(math.ceil(x))


def fixed_cost(estimator, call, target, args, arg_sum):
    """Static cost 1 + the arguments' (Kubernetes' estimator for O(1) library calls)."""
    from ..cost import _add
    return _add(1, arg_sum), None
