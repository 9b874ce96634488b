"""SelectorEngine behaviour: caches, environments, error texts and positions, device conversion."""

from __future__ import annotations

import random

import pytest
from cel_testkit import A, Dev, Q

from dractl.api.versions import FeatureGates
from dractl.cel import (
    CelCompileError,
    CelRuntimeError,
    SelectorEngine,
    check_expression,
    format_compile_error,
    format_runtime_caret,
    format_runtime_error,
    interp,
)
from dractl.cel.engine import compile_cached
from dractl.cel.interp import Meter
from dractl.cel.parser import grammar_self_test

GATES = FeatureGates()
GPU = Dev(("gpu.example.com", "pool", "gpu-0"), "gpu.example.com",
          {"model": A("string", "A100"), "index": A("int", 3)}, {"memory": Q("80Gi")})


# --- caches ------------------------------------------------------------------------------

def test_compile_is_cached_per_expression() -> None:
    e = SelectorEngine(GATES)
    assert e.compile('device.driver == "a"') is e.compile('device.driver == "a"')
    assert SelectorEngine(GATES).compile('device.driver == "a"') is e.compile('device.driver == "a"')


def test_compile_errors_are_cached_too() -> None:
    e = SelectorEngine(GATES)
    with pytest.raises(CelCompileError) as one:
        e.compile("noSuchVar")
    with pytest.raises(CelCompileError) as two:
        e.compile("noSuchVar")
    assert one.value is two.value


def test_results_and_errors_cached_per_expression_and_device_key() -> None:
    e = SelectorEngine(GATES)
    for _ in range(3):
        assert e.matches('device.attributes["gpu.example.com"].model == "A100"', GPU)
        with pytest.raises(CelRuntimeError):
            e.matches('device.attributes["gpu.example.com"].nosuch', GPU)
    assert e.evaluations == 2
    other = Dev("other", "gpu.example.com", {"model": A("string", "H100")})
    assert not e.matches('device.attributes["gpu.example.com"].model == "A100"', other)
    assert e.evaluations == 3


def test_compile_is_lazy_in_matches_only() -> None:
    # a bad selector only fails when evaluated (docs/spec/allocator.md#lazy-cel-errors)
    e = SelectorEngine(GATES)
    with pytest.raises(CelCompileError):
        e.matches("noSuchVar", GPU)


# --- environments --------------------------------------------------------------------------

def test_stored_env_has_includes_and_allow_multiple_allocations_whatever_the_gates() -> None:
    # docs/spec/cel.md#environment: the allocator compiles in StoredExpressions
    old = FeatureGates("1.35")
    e = SelectorEngine(old)
    assert e.matches("device.allowMultipleAllocations == false", GPU)
    assert e.matches('device.attributes["gpu.example.com"].model.includes("A100")', GPU)


def test_new_expressions_env_gates_includes_and_allow_multiple_allocations() -> None:
    # compile_test: includes-function-compilation-error / allow_multiple_allocations_disabled
    off = FeatureGates("1.37", {"DRAListTypeAttributes": False, "DRAConsumableCapacity": False})
    errs = check_expression('device.attributes["dra.example.com"].attr.includes("fish")', off)
    assert [e.message for e in errs] == ["undeclared reference to 'includes' (in container '')"]
    errs = check_expression("device.allowMultipleAllocations == false", off)
    assert [e.message for e in errs] == ["undefined field 'allowMultipleAllocations'"]
    on = off.with_overrides(DRAListTypeAttributes=True, DRAConsumableCapacity=True)
    assert check_expression('device.attributes["dra.example.com"].attr.includes("fish")', on) == []
    assert check_expression("device.allowMultipleAllocations == false", on) == []


def test_length_limit_only_error() -> None:
    # validation: >10 KiB gives only the length error (no parse of a broken expression)
    expr = "device.driver == " + '"' + "x" * 10300 + '" &&'
    errs = check_expression(expr, GATES)
    assert [(e.kind, e.message) for e in errs] == [
        ("length", "Too long: may not be more than 10240 bytes")]


def test_length_counts_utf8_bytes() -> None:
    expr = '"' + "é" * 5200 + '" == "a"'  # 5,200 code points, 10,400+ bytes
    assert [e.kind for e in check_expression(expr, GATES)] == ["length"]


def test_check_expression_ok_and_errors() -> None:
    assert check_expression('device.driver == "a"', GATES) == []
    errs = check_expression('device.drivr == "a" && noSuchVar', GATES)
    assert [e.message for e in errs] == ["undefined field 'drivr'",
                                         "undeclared reference to 'noSuchVar' (in container '')"]
    assert [(e.line, e.column) for e in errs] == [(1, 7), (1, 24)]


# --- list-typed attributes by version ---------------------------------------------------------

LISTDEV = Dev("l", "d.example.com", {"names": A("strings", ["a", "b"]), "x": A("int", 1)})


def test_list_attributes_exposed_in_137() -> None:
    assert SelectorEngine(FeatureGates("1.37")).matches(
        'device.attributes["d.example.com"].names.includes("a")', LISTDEV)


def test_list_attributes_gated_in_136() -> None:
    # docs/spec/cel.md#release-differences: 1.36 without DRAListTypeAttributes -> unsupported
    # attribute value
    e = SelectorEngine(FeatureGates("1.36", {"DRAListTypeAttributes": False}))
    with pytest.raises(CelRuntimeError, match="attribute names: unsupported attribute value"):
        e.matches('device.driver == "d.example.com"', LISTDEV)
    e = SelectorEngine(FeatureGates("1.36", {"DRAListTypeAttributes": True}))
    assert e.matches('"a" in device.attributes["d.example.com"].names', LISTDEV)


def test_qualified_name_wins_over_unqualified_duplicate() -> None:
    # docs/spec/allocator.md#device-variable: upstream is undefined (map order); dractl prefers the
    # qualified one
    dev = Dev("dup", "d.example.com", {"x": A("int", 1), "d.example.com/x": A("int", 2)})
    assert SelectorEngine(GATES).matches('device.attributes["d.example.com"].x == 2', dev)
    dev2 = Dev("dup2", "d.example.com", {"d.example.com/x": A("int", 2), "x": A("int", 1)})
    assert SelectorEngine(GATES).matches('device.attributes["d.example.com"].x == 2', dev2)


def test_capacity_quantities_are_exact() -> None:
    dev = Dev("cap", "d", {}, {"mem": Q("1.5Gi"), "tiny": Q("1n")})
    e = SelectorEngine(GATES)
    assert e.matches('device.capacity["d"].mem == quantity("1536Mi")', dev)
    assert e.matches('device.capacity["d"].tiny.isGreaterThan(quantity("0"))', dev)


# --- error texts and positions ---------------------------------------------------------------

def test_format_compile_error_matches_allocator_text() -> None:
    with pytest.raises(CelCompileError) as info:
        SelectorEngine(GATES).matches("noSuchVar", GPU)
    assert format_compile_error(info.value) == (
        "CEL compile error: compilation failed: ERROR: <input>:1:1: undeclared reference to "
        "'noSuchVar' (in container '')\n | noSuchVar\n | ^")


def test_result_type_error_has_no_compilation_failed_prefix() -> None:
    # compile.go: resultError(fmt.Sprintf("must evaluate to %v or the unknown type, not %v", ...))
    with pytest.raises(CelCompileError) as info:
        SelectorEngine(GATES).matches("1", GPU)
    assert format_compile_error(info.value) == (
        "CEL compile error: must evaluate to bool or the unknown type, not int")
    assert info.value.line is None


def test_multiline_positions() -> None:
    expr = 'device.driver == "a" &&\n  device.nosuch == 1'
    with pytest.raises(CelCompileError) as info:
        SelectorEngine(GATES).compile(expr)
    err = info.value
    assert (err.line, err.column, err.kind) == (2, 9, "check")
    assert format_compile_error(err).endswith("\n |   device.nosuch == 1\n | ........^")


def test_syntax_error_position() -> None:
    with pytest.raises(CelCompileError) as info:
        SelectorEngine(GATES).compile('device.driver == "a" &&')
    assert info.value.kind == "syntax"
    assert "Syntax error" in info.value.message
    assert info.value.line == 1


def test_runtime_error_text_and_caret() -> None:
    expr = 'device.driver == "gpu.example.com" && device.attributes["x.example.com"].model == "a"'
    with pytest.raises(CelRuntimeError) as info:
        SelectorEngine(GATES).matches(expr, GPU)
    err = info.value
    assert err.message == "no such key: model"
    assert format_runtime_error(err) == (
        "CEL runtime error: no such key: model. consider using CEL optional chaining "
        "(.? followed by orValue()) or guarding the check with has() for optional fields")
    assert (err.line, err.column) == (1, 73)
    assert format_runtime_caret(err).endswith("^")


def test_invalid_escape_is_a_syntax_error() -> None:
    with pytest.raises(CelCompileError, match="invalid escape sequence"):
        SelectorEngine(GATES).compile(r'"\q" == "q"')


def test_triple_quoted_strings_keep_newlines() -> None:
    assert SelectorEngine(GATES).matches('"""a\nb""" == "a\\nb"', GPU)


def test_grammar_patch_self_test() -> None:
    grammar_self_test()


# --- fast comprehension paths agree with cel-go's expansion (result, error and cost) ---------

COMPREHENSIONS = [
    "[1, 2, 3].all(x, x > 0)", "[1, 2, 3].all(x, x > 1)", "[1, 2, 3].exists(x, x == 2)",
    "[1, 2, 3].exists(x, x == 5)", "[1, 2, 3].exists_one(x, x > 2)", "[1, 2, 3].exists_one(x, x > 1)",
    "[1, 2, 3].map(x, x * 2) == [2, 4, 6]", "[1, 2, 3].map(x, x > 1, x * 2) == [4, 6]",
    "[1, 2, 3].filter(x, x > 1) == [2, 3]", "{'a': 1, 'b': 2}.all(k, k != 'c')",
    "{'a': 1}.exists(k, v, v == 1)", "[1, 0].all(x, 1 / x > 0)", "[0, 1].exists(x, 1 / x > 0)",
    "[0, 1].all(x, 1 / x > 0)", "[1, 0].exists(x, 1 / x > 5)", "[0, 2].exists_one(x, 1 / x > 0)",
    "[0, 1].map(x, 1 / x) == [1]", "[0, 1].filter(x, 1 / x > 0) == [1]",
    "[1, 2].all(x, dyn(x))", 'device.attributes["gpu.example.com"].exists(k, k == "model")',
    "lists.range(50).filter(x, x % 3 == 0).map(x, x * x).exists(x, x > 100)",
]


def _run(expr: str):
    c = compile_cached(expr)
    act = SelectorEngine(GATES).activation(GPU)
    env = dict(act.env)
    env["@cost"] = Meter(10 ** 9)
    try:
        result = c.program(True)(env)
    except Exception as e:  # noqa: BLE001 - compare error texts
        result = ("error", getattr(e, "message", str(e)))
    return result, env["@cost"].cost


@pytest.mark.parametrize("expr", COMPREHENSIONS)
def test_fast_macros_equal_generic_expansion(expr: str, monkeypatch) -> None:
    fast = _run(expr)
    monkeypatch.setattr(interp, "FAST_MACROS", False)
    from dractl.cel import engine
    monkeypatch.setattr(engine, "_compile_cache", {})
    generic = _run(expr)
    assert fast[0] == generic[0]
    if not isinstance(fast[0], tuple):
        # identical runtime cost when evaluation succeeds (error paths may differ slightly:
        # the evaluation fails either way)
        assert fast[1] == generic[1]


# --- robustness: nothing but CelCompileError/CelRuntimeError escapes -----------------------

def test_random_garbage_never_leaks_internal_errors() -> None:
    rnd = random.Random(1234)
    alphabet = list('abcdevice.driver[]()"\'{}:?!&|=<>+-*/%, 0123456789\\.xyz_@#$\n\t') + [
        "device", " in ", "has(", ".all(", "cel.bind(", "quantity(", "true", "null", "?.", "[?"]
    e = SelectorEngine(GATES)
    for _ in range(1500):
        expr = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 30)))
        try:
            e.matches(expr, GPU)
        except (CelCompileError, CelRuntimeError) as err:
            assert "Traceback" not in str(err)
            assert "activation" not in str(err).lower()
