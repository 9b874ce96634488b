"""Pathological selectors end quickly with a cost or length error (never hang, never leak).

Wall-clock bounds are deliberately generous (5 s): the point is "no runaway", asserted mainly by
the error kind. Typical times on a loaded 2-core machine are 0.01-0.3 s.
"""

from __future__ import annotations

import time

import pytest
from cel_testkit import A, Dev

from dractl.api.versions import FeatureGates
from dractl.cel import CelCompileError, CelRuntimeError, SelectorEngine, check_expression

GATES = FeatureGates()
DEV = Dev("d", "gpu.example.com", {"n": A("int", 5), "s": A("string", "a" * 40 + "!")})
BOUND = 5.0

NESTED_ALL = ("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, " * 7 + "int('1'.find('[0-9]*')) < 100" + ")" * 7)
DOUBLING = ("cel.bind(a0, 'xxxxxxxxxx', " + "".join(f"cel.bind(a{i + 1}, a{i} + a{i}, " for i in range(40))
            + "size(a40) > 0" + ")" * 41)

RUNAWAY = {
    # upstream compile_test "expensive": estimate 85,555,551, runtime aborts
    "nested-all": NESTED_ALL,
    "nested-range": "lists.range(1000).all(x, lists.range(1000).all(y, y >= 0))",
    "nested-range-dynamic": 'lists.range(device.attributes["gpu.example.com"].n * 200).all(x, '
                            'lists.range(1000).all(y, y >= 0))',
    "nested-exists": "lists.range(200).exists(i, lists.range(200).exists(j, lists.range(200)"
                     ".exists(k, i + j + k < 0)))",
    "nested-map": "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10]"
                  ".map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, "
                  "[1,2,3,4,5,6,7,8,9,10]))))).size() > 0",
    # string doubling: 10 * 2^40 characters if it were allowed to run
    "string-doubling": DOUBLING,
    "huge-range": "lists.range(1000000000).size() > 0",
}


@pytest.mark.parametrize("name", sorted(RUNAWAY))
def test_runaway_stops_with_cost_error(name: str) -> None:
    expr = RUNAWAY[name]
    t0 = time.perf_counter()
    with pytest.raises(CelRuntimeError) as info:
        SelectorEngine(GATES).matches(expr, DEV)
    assert info.value.message == "operation cancelled: actual cost limit exceeded"
    assert time.perf_counter() - t0 < BOUND
    # and the API server would have rejected it up front (static estimate)
    assert [e.kind for e in check_expression(expr, GATES)] == ["cost"]


def test_smaller_cost_limit_is_honoured() -> None:
    e = SelectorEngine(GATES, cost_limit=100)
    with pytest.raises(CelRuntimeError, match="actual cost limit exceeded"):
        e.matches("lists.range(20).all(x, x >= 0)", DEV)
    assert SelectorEngine(GATES, cost_limit=1000).matches("lists.range(20).all(x, x >= 0)", DEV)


@pytest.mark.parametrize("pattern", ["^(a+)+$", "(a|aa)+$", "(a*)*b", "(x+x+)+y", "^(([a-z])+.)+[A-Z]([a-z])+$"])
def test_regex_bombs_are_linear(pattern: str) -> None:
    # RE2 semantics (google-re2): no catastrophic backtracking
    t0 = time.perf_counter()
    e = SelectorEngine(GATES)
    assert e.matches(f'!device.attributes["gpu.example.com"].s.matches("{pattern}")', DEV)
    assert e.matches(f'"{"a" * 5000}!".find("{pattern}") == ""', DEV)
    assert time.perf_counter() - t0 < BOUND


@pytest.mark.parametrize("pattern", ["(?=a)", "(a)\\\\1", "[", "a{2000}"],
                         ids=["lookahead", "backref", "unclosed", "big-repeat"])
def test_non_re2_patterns_rejected(pattern: str) -> None:
    # look-around, back-references and >1000 repeats are not RE2: literal -> compile error
    with pytest.raises(CelCompileError, match="invalid matches argument"):
        SelectorEngine(GATES).compile(f'"a".matches("{pattern}")')
    # dynamic pattern -> runtime error
    dev = Dev("p", "d", {"p": A("string", pattern.replace("\\\\", "\\"))})
    with pytest.raises(CelRuntimeError, match="error parsing regexp"):
        SelectorEngine(GATES).matches('"a".matches(device.attributes["d"].p)', dev)


def test_length_limit_beats_everything_in_validation() -> None:
    expr = "(" * 6000 + "true" + ")" * 6000
    assert [e.kind for e in check_expression(expr, GATES)] == ["length"]


@pytest.mark.parametrize("expr", [
    "(" * 3000 + "true" + ")" * 3000,
    "[" * 300 + "1" + "]" * 300 + " == []",
    " + ".join(["1"] * 2000) + " > 0",
], ids=["parens", "brackets", "plus-chain"])
def test_deep_nesting_is_a_compile_error(expr: str) -> None:
    t0 = time.perf_counter()
    with pytest.raises(CelCompileError, match="max recursion depth exceeded"):
        SelectorEngine(GATES).matches(expr, DEV)
    assert time.perf_counter() - t0 < BOUND


def test_code_point_limit_in_allocator() -> None:
    # the allocator has no 10 KiB limit, but cel-go's parser refuses > 100,000 code points
    expr = '"' + "a" * 200_000 + '" != ""'
    t0 = time.perf_counter()
    with pytest.raises(CelCompileError, match="expression code point size exceeds limit"):
        SelectorEngine(GATES).matches(expr, DEV)
    assert time.perf_counter() - t0 < BOUND


def test_long_conjunction_is_balanced_not_recursive() -> None:
    # 2,000 terms (10 KiB): cel-go balances && / || chains; no recursion error, result true
    expr = " && ".join(["true"] * 2000)
    assert SelectorEngine(GATES).matches(expr, DEV)
