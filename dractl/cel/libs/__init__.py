"""CEL libraries, one module each: overloads, implementation, static and runtime cost together.

Each library module defines ``LIBRARY``, a :class:`Library`. The checker (overload declarations),
the evaluator (implementations by function name), the static cost estimator and the runtime cost
meter build their tables from :func:`libraries`, so adding a function to a library is one edit in
one file. The standard functions and operators (cel-go's base library: arithmetic, comparisons,
size, contains/startsWith/endsWith/matches, conversions, timestamps) stay the evaluator's core
in ``dractl/cel/functions.py``, ``checker.py`` and ``cost.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Library:
    """One CEL library.

    ``declarations``: checker signatures, ``name(args) -> r`` or ``recv.name(args) -> r``
    (see ``dractl.cel.checker._decl``). ``functions``: implementation per function name (member
    calls receive the receiver first). ``static_costs``: per function name,
    ``f(estimator, call, target, args, arg_sum) -> (cost, result_size)`` or None to fall back to
    cel-go's default (1 + arguments). ``runtime_costs``: per function name, ``f(*values) -> int``
    charged when the call runs metered (default 1).
    """

    name: str
    declarations: tuple[str, ...]
    functions: dict[str, Callable] = field(default_factory=dict)
    static_costs: dict[str, Callable] = field(default_factory=dict)
    runtime_costs: dict[str, Callable] = field(default_factory=dict)


_LIBRARIES: list[Library] = []


def libraries() -> list[Library]:
    """Every library, imported on first use (the modules import dractl.cel.functions, which
    must not depend on this package at import time)."""
    if not _LIBRARIES:
        from . import (
            format,
            lists,
            net,
            optional,
            quantity,
            regexlib,
            semver,
            sets,
            standard,
            strings,
        )
        _LIBRARIES.extend(m.LIBRARY for m in (standard, strings, lists, sets, regexlib, quantity,
                                              semver, net, format, optional))
    return _LIBRARIES


def _merged(attribute: str) -> dict[str, Callable]:
    """One table from every library; a name two libraries implement must be the same object
    (e.g. isGreaterThan, shared by quantity and semver)."""
    out: dict[str, Callable] = {}
    for lib in libraries():
        for name, fn in getattr(lib, attribute).items():
            if name in out and out[name] is not fn:
                raise RuntimeError(f"CEL function {name} has two {attribute} ({lib.name})")
            out[name] = fn
    return out


def declarations() -> list[str]:
    return [sig for lib in libraries() for sig in lib.declarations]


def implementations() -> dict[str, Callable]:
    return _merged("functions")


def static_costs() -> dict[str, Callable]:
    return _merged("static_costs")


def runtime_costs() -> dict[str, Callable]:
    return _merged("runtime_costs")
