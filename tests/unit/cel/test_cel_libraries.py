"""The CEL libraries of dractl/cel/libs/ are the one source of the checker's, the evaluator's and
the cost estimator's tables."""

from __future__ import annotations

from dractl.cel import functions as F
from dractl.cel import libs
from dractl.cel.checker import _SIMPLE, FUNCS
from dractl.cel.cost import _LIBRARY_STATIC_COSTS


def _function_name(signature: str) -> str:
    """``recv.name(args)`` or ``name(args)`` -> name (``sets.contains`` stays namespaced)."""
    call = signature.split(" -> ")[0]
    depth, i = 0, len(call) - 1
    while True:  # the opening parenthesis of the trailing argument list
        depth += {")": 1, "(": -1}.get(call[i], 0)
        if depth == 0:
            break
        i -= 1
    head = call[:i]
    if ")." in head:  # list(A).slice, opt(A).value, map(A,B).size
        return head.rsplit(").", 1)[1]
    prefix, dot, rest = head.partition(".")
    return rest if dot and prefix in _SIMPLE else head


def _declared(lib) -> set[str]:
    return {_function_name(one) for sig in lib.declarations for one in sig.split(" | ")}


def test_every_library_function_is_declared_and_implemented() -> None:
    for lib in libs.libraries():
        declared = _declared(lib)
        implemented = set(lib.functions)
        for name in declared:
            assert name in FUNCS, (lib.name, name)
            assert F.lookup(name) is not None, (lib.name, name)
        for table in (lib.functions, lib.static_costs, lib.runtime_costs):
            for name in table:
                assert name in declared or any(name in _declared(o) for o in libs.libraries()), \
                    (lib.name, name)
        assert implemented, lib.name


def test_tables_are_built_from_the_libraries() -> None:
    for lib in libs.libraries():
        for name, fn in lib.functions.items():
            assert F.lookup(name) is fn
        for name, fn in lib.runtime_costs.items():
            assert F.runtime_cost(name) is fn
        for name, fn in lib.static_costs.items():
            assert _LIBRARY_STATIC_COSTS[name] is fn


def test_a_name_shared_by_two_libraries_has_one_implementation() -> None:
    owners: dict[str, list[str]] = {}
    for lib in libs.libraries():
        for name in lib.functions:
            owners.setdefault(name, []).append(lib.name)
    shared = {n: o for n, o in owners.items() if len(o) > 1}
    assert shared == {"isGreaterThan": ["quantity", "semver"], "isLessThan": ["quantity", "semver"],
                      "compareTo": ["quantity", "semver"]}


def test_every_library_names_its_upstream_source() -> None:
    assert [lib.name for lib in libs.libraries()] == [
        "standard", "strings", "lists", "sets", "regex", "quantity", "semver", "net", "format",
        "optional"]
