"""Every function and method of every library called with wrong arities and wrong argument types
compiles to the API server's error ("found no matching overload ..."), never an internal error
(``device.driver.matches()`` once gave "internal error: IndexError").

The calls are generated from the checker's declaration table (dractl.cel.checker.FUNCS), so a new
library function is covered without editing this file.
"""

from __future__ import annotations

import pytest

from dractl.cel import CelCompileError
from dractl.cel.checker import FUNCS
from dractl.cel.engine import compile_cached

# One expression per declared type name (checker.T.name) to use as receiver or argument.
EXAMPLES = {
    "string": 'device.driver', "int": "1", "uint": "1u", "double": "1.5", "bool": "true",
    "bytes": 'b"x"', "null_type": "null", "list": "[1]", "map": '{"a": 1}',
    "kubernetes.Quantity": 'quantity("1")', "kubernetes.Semver": 'semver("1.0.0")',
    "net.IP": 'ip("10.0.0.1")', "net.CIDR": 'cidr("10.0.0.0/8")',
    "kubernetes.URL": 'url("https://example.com")', "optional_type": "optional.of(1)",
    "kubernetes.NamedFormat": "format.dns1123Label()",
    "google.protobuf.Timestamp": "timestamp(0)", "google.protobuf.Duration": 'duration("1s")',
}
# Literals used as "wrong" arguments: a position gets one whose type no overload accepts there.
WRONG = ['b"x"', "null", "1.5", "true", "{1: 2}", "timestamp(0)"]
_WRONG_TYPE = {'b"x"': "bytes", "null": "null_type", "1.5": "double", "true": "bool",
               "{1: 2}": "map", "timestamp(0)": "google.protobuf.Timestamp"}


def _public(name: str) -> bool:
    return name.replace(".", "").isidentifier()  # not operators, not cel.@mapInsert


def _call(name: str, receiver: str | None, args: list[str]) -> str:
    inner = f"{name}({', '.join(args)})" if receiver is None else \
        f"{receiver}.{name}({', '.join(args)})"
    return f"dyn({inner}) == dyn(1)"


def _receivers(name: str) -> set[str]:
    """Concrete receiver type names of the member overloads of ``name``."""
    return {ov.params[0].name for ov in FUNCS[name] if ov.member and not ov.params[0].is_param
            and ov.params[0].name != "dyn"}


def _arities(name: str, member: bool, receiver: str | None) -> set[int]:
    out = set()
    for ov in FUNCS[name]:
        if ov.member != member:
            continue
        if member and not (ov.params[0].is_param or ov.params[0].name in (receiver, "dyn")):
            continue
        out.add(len(ov.params) - (1 if member else 0))
    return out


def _arity_cases():
    for name in sorted(FUNCS):
        if not _public(name):
            continue
        if any(not ov.member for ov in FUNCS[name]):
            for n in range(4):
                if n not in _arities(name, False, None):
                    yield _call(name, None, ["1"] * n)
        for receiver in sorted(_receivers(name)):
            example = EXAMPLES.get(receiver)
            if example is None:
                continue
            for n in range(4):
                if n not in _arities(name, True, receiver):
                    yield _call(name, example, ["1"] * n)


def _accepts(ov, position: int, type_name: str) -> bool:
    p = ov.params[position]
    return p.is_param or p.name in (type_name, "dyn")


def _wrong_type_cases():
    """For each overload: the same arity, every argument of a type no overload of that arity
    accepts at its position (skipped where every literal type is accepted, e.g. dyn(A))."""
    for name in sorted(FUNCS):
        if not _public(name):
            continue
        for ov in FUNCS[name]:
            same = [o for o in FUNCS[name] if o.member == ov.member and
                    len(o.params) == len(ov.params)]
            first = 1 if ov.member else 0
            if first and EXAMPLES.get(ov.params[0].name) is None:
                continue
            args = []
            for pos in range(first, len(ov.params)):
                bad = next((w for w in WRONG
                            if not any(_accepts(o, pos, _WRONG_TYPE[w]) for o in same)), None)
                args.append(bad)
            if not args or None in args:
                continue
            receiver = EXAMPLES[ov.params[0].name] if first else None
            yield _call(name, receiver, args)


ARITY = sorted(set(_arity_cases()))
WRONG_TYPES = sorted(set(_wrong_type_cases()))


def _compile_error(expression: str) -> CelCompileError | None:
    try:
        compile_cached(expression)
    except CelCompileError as e:
        return e
    return None


def test_the_generated_tables_are_not_empty() -> None:
    assert len(ARITY) > 200 and len(WRONG_TYPES) > 50
    assert 'dyn(device.driver.matches()) == dyn(1)' in ARITY


@pytest.mark.parametrize("expression", ARITY)
def test_wrong_arity_is_a_compile_error(expression: str) -> None:
    err = _compile_error(expression)
    assert err is not None, expression
    assert "internal error" not in err.message, err.message
    assert ("found no matching overload" in err.message or
            "undeclared reference" in err.message), err.message


@pytest.mark.parametrize("expression", WRONG_TYPES)
def test_wrong_argument_types_are_a_compile_error(expression: str) -> None:
    err = _compile_error(expression)
    assert err is not None, expression
    assert "internal error" not in err.message, err.message


def test_matches_without_argument_has_the_api_server_message() -> None:
    err = _compile_error("device.driver.matches()")
    assert err is not None
    assert err.message == "found no matching overload for 'matches' applied to 'string.()'"
