"""Differential test: dractl's closure engine against cel-python's InterpretedRunner.

dractl compiles selectors to Python closures (fast path for every expression). To keep it honest,
common selector shapes are generated at random and evaluated by both engines on the same devices;
the results must agree (a value from celpy must be the same value from dractl; an error from celpy
must be an error from dractl). The generator stays inside the semantics both engines share: known
attribute domains (celpy has no "unknown domain -> empty map" rule), type-correct literals, and the
Kubernetes functions registered into celpy through thin adapters (quantity, compareTo, semver,
isGreaterThan, lowerAscii).
"""

from __future__ import annotations

import celpy
import pytest
from cel_testkit import A, Dev, Q
from celpy import celtypes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.api.quantity import Quantity
from dractl.api.versions import FeatureGates
from dractl.cel import CelCompileError, CelRuntimeError, SelectorEngine
from dractl.cel.k8stypes import Semver

DOM = "gpu.example.com"
DEVICES = [
    Dev(i, DOM if i % 3 else "nic.example.com", {
        "model": A("string", ["A100", "H100", "L4", "a100x"][i % 4]),
        "index": A("int", i % 5),
        "healthy": A("bool", i % 2 == 0),
        "driverVersion": A("version", f"1.{i % 4}.0"),
        **({"serial": A("string", f"SN-{i:04d}")} if i % 2 else {}),
    }, {"memory": Q(["40Gi", "80Gi", "16Gi"][i % 3])})
    for i in range(12)
]

# --- celpy side ---------------------------------------------------------------------------


def _to_celpy(v):
    if isinstance(v, bool):
        return celtypes.BoolType(v)
    if isinstance(v, int):
        return celtypes.IntType(v)
    if isinstance(v, str):
        return celtypes.StringType(v)
    return v


def _celpy_activation(d: Dev) -> dict:
    attrs: dict = {}
    for name, av in d.attributes.items():
        value = Semver.parse(av.value) if av.type == "version" else av.value
        attrs[name] = _to_celpy(value) if not isinstance(value, Semver) else value
    caps = {k: v for k, v in d.capacity.items()}
    M = celtypes.MapType
    S = celtypes.StringType
    return {"device": M({
        S("driver"): S(d.driver),
        S("attributes"): M({S(d.driver): M({S(k): v for k, v in attrs.items()})}),
        S("capacity"): M({S(d.driver): M({S(k): v for k, v in caps.items()})}),
    })}


def _quantity(s):
    return Quantity.parse(str(s))


def _compare_to(a, b):
    if isinstance(a, Quantity):
        return celtypes.IntType(a.cmp(b))
    return celtypes.IntType(a.cel_compare(b))


def _is_greater_than(a, b):
    return celtypes.BoolType(_compare_to(a, b) > 0)


def _semver(s):
    return Semver.parse(str(s))


def _lower_ascii(s):
    return celtypes.StringType(str(s).lower())


FUNCS = {"quantity": _quantity, "compareTo": _compare_to, "isGreaterThan": _is_greater_than,
         "semver": _semver, "lowerAscii": _lower_ascii}
_ENV = celpy.Environment()


def celpy_eval(expr: str, d: Dev):
    prog = _ENV.program(_ENV.compile(expr), functions=FUNCS)
    try:
        r = prog.evaluate(_celpy_activation(d))
    except celpy.CELEvalError:
        return "error"
    if isinstance(r, celpy.CELEvalError):
        return "error"
    return bool(r) if isinstance(r, celtypes.BoolType) else ("non-bool", r)


# --- generator ----------------------------------------------------------------------------

def _attr(dom_expr: str = f'device.attributes["{DOM}"]') -> st.SearchStrategy[str]:
    return st.sampled_from([dom_expr])


ATOMS = st.one_of(
    st.sampled_from(['"gpu.example.com"', '"nic.example.com"']).map(lambda d: f"device.driver == {d}"),
    st.sampled_from(["A100", "H100", "L4", "x"]).map(
        lambda m: f'device.attributes[device.driver].model == "{m}"'),
    st.sampled_from(["A", "H", "L", "a"]).map(lambda p: f'device.attributes[device.driver].model.startsWith("{p}")'),
    st.sampled_from(["00", "1", "x"]).map(lambda p: f'device.attributes[device.driver].model.endsWith("{p}")'),
    st.sampled_from(["10", "a1"]).map(lambda p: f'device.attributes[device.driver].model.lowerAscii().contains("{p}")'),
    st.tuples(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), st.integers(-1, 6)).map(
        lambda t: f"device.attributes[device.driver].index {t[0]} {t[1]}"),
    st.just("device.attributes[device.driver].healthy"),
    st.sampled_from(["serial", "model", "nosuch"]).map(lambda a: f"has(device.attributes[device.driver].{a})"),
    st.sampled_from(["serial", "nosuch"]).map(lambda a: f'"{a}" in device.attributes[device.driver]'),
    st.sampled_from(["SN-0001", "SN-0003"]).map(lambda s: f'device.attributes[device.driver].serial == "{s}"'),
    st.tuples(st.sampled_from(["16Gi", "40Gi", "80Gi", "64G"]), st.sampled_from([">=", "<", "=="])).map(
        lambda t: f'device.capacity[device.driver].memory.compareTo(quantity("{t[0]}")) {t[1]} 0'),
    st.sampled_from(["1.0.0", "1.1.0", "1.2.5"]).map(
        lambda v: f'device.attributes[device.driver].driverVersion.isGreaterThan(semver("{v}"))'),
    st.sampled_from(["[0, 2, 4]", "[1, 3]"]).map(lambda l: f"device.attributes[device.driver].index in {l}"),
    st.sampled_from(['"A100"', '"H100"']).map(lambda m: f"device.attributes[device.driver].model in [{m}, \"L4\"]"),
    st.just("size(device.attributes[device.driver].model) == 4"),
    st.just('device.attributes[device.driver].model.matches("^[AH]1")'),
)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, children).map(lambda t: f"({t[0]} && {t[1]})"),
        st.tuples(children, children).map(lambda t: f"({t[0]} || {t[1]})"),
        children.map(lambda c: f"!({c})"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
    )


EXPRS = st.recursive(ATOMS, _combine, max_leaves=6)


def dractl_eval(engine: SelectorEngine, expr: str, d: Dev):
    try:
        return engine.matches(expr, d)
    except CelRuntimeError:
        return "error"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRS)
def test_dractl_agrees_with_celpy(expr: str) -> None:
    engine = SelectorEngine(FeatureGates())
    try:
        engine.compile(expr)
    except CelCompileError as e:  # the generator only produces well-typed selectors
        pytest.fail(f"unexpected compile error for {expr}: {e}")
    for d in DEVICES:
        want = celpy_eval(expr, d)
        got = dractl_eval(engine, expr, d)
        assert got == want, (expr, d.key, want, got)


def test_fixed_examples_agree() -> None:
    engine = SelectorEngine(FeatureGates())
    for expr in [
        'device.driver == "gpu.example.com" && device.attributes[device.driver].model == "A100"',
        'has(device.attributes[device.driver].serial) ? device.attributes[device.driver].serial == "SN-0001" : false',
        'device.attributes[device.driver].nosuch == 1 || device.attributes[device.driver].healthy',
        '!has(device.attributes[device.driver].serial) || device.attributes[device.driver].index > 2',
    ]:
        for d in DEVICES:
            assert dractl_eval(engine, expr, d) == celpy_eval(expr, d), (expr, d.key)
