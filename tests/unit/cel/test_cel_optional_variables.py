"""An optional read from a comprehension variable, as kube-scheduler's cel-go v0.27.0 reads it.

Upstream: interpreter/attributes.go applyQualifiers unwraps a variable's present optional with
GetValue().Value() and converts the native value back with NativeToValue (fixed after v0.27 by
cel-go #1315). Kubernetes library values (semver, quantity, ip, cidr, url) have native values the
registry cannot convert, so the variable reads as optional.of(<error>). See
dractl/cel/optionalvars.py and
testdata/conformance/random2/divergence-cel-bind-optional-semver.yaml.
"""

from __future__ import annotations

import pytest
from cel_testkit import A, Dev, Q

from dractl.api.versions import FeatureGates
from dractl.cel import CelRuntimeError, SelectorEngine

GPU = Dev("gpu", "gpu.example.com", {
    "driverVersion": A("version", "1.2.0"),
    "rc": A("version", "2.1.0-rc.1"),
    "model": A("string", "A100"),
    "index": A("int", 3),
}, {"memory": Q("16Gi")})

ATTRS = 'device.attributes["gpu.example.com"]'
MEMORY = 'device.capacity["gpu.example.com"]'
SEMVER_ERR = "unsupported conversion to ref.Val: (semver.Version)1.2.0"
QTY_ERR = "unsupported conversion to ref.Val: (*resource.Quantity)16Gi"

FAILS = [
    # the corpus' minimal case
    (f"cel.bind(v, {ATTRS}.?driverVersion, v.hasValue() && v.value().minor() >= 2)", SEMVER_ERR),
    (f"cel.bind(v, {ATTRS}.?driverVersion, v.orValue(semver(\"0.0.1\")).major() == 1)", SEMVER_ERR),
    (f"cel.bind(v, optional.of({ATTRS}.driverVersion), v.value().major() == 1)", SEMVER_ERR),
    (f"[{ATTRS}.?driverVersion].exists(o, o.value().major() == 1)", SEMVER_ERR),
    (f"[{ATTRS}.?driverVersion].all(o, o.value().major() == 1)", SEMVER_ERR),
    (f"[{ATTRS}.?driverVersion].map(o, o.value().major()) == [1]", SEMVER_ERR),
    (f"[{ATTRS}.?driverVersion].filter(o, o.hasValue())[0].value().major() == 1", SEMVER_ERR),
    (f"cel.bind(v, {ATTRS}.?driverVersion, v.optMap(x, x.major()).value() == 1)", SEMVER_ERR),
    (f"cel.bind(v, {ATTRS}.?driverVersion, v == optional.of(semver(\"1.2.0\")))", SEMVER_ERR),
    (f"cel.bind(v, {ATTRS}.?driverVersion, v.or(optional.none()).value().major() == 1)",
     SEMVER_ERR),
    (f"cel.bind(v, {ATTRS}.?rc, v.value().major() == 2)",
     "unsupported conversion to ref.Val: (semver.Version)2.1.0-rc.1"),
    (f"cel.bind(v, {MEMORY}.?memory, v.value().isGreaterThan(quantity(\"1Gi\")))", QTY_ERR),
    ("cel.bind(v, optional.of(ip(\"10.0.0.1\")), v.value().family() == 4)",
     "unsupported conversion to ref.Val: (netip.Addr)10.0.0.1"),
    ("cel.bind(v, optional.of(cidr(\"10.0.0.0/8\")), v.value().prefixLength() == 8)",
     "unsupported conversion to ref.Val: (netip.Prefix)10.0.0.0/8"),
    # a nested bind reads the broken optional again: Err.Value() is the Go error
    (f"cel.bind(a, {ATTRS}.?driverVersion, cel.bind(b, a, b.value().major() == 1))",
     "unsupported conversion to ref.Val: (*errors.errorString)" + SEMVER_ERR),
    # the error value kept in a list by [?v] surfaces when the element is read
    (f"cel.bind(v, {ATTRS}.?driverVersion, [?v][0].major() == 1)", SEMVER_ERR),
]

WORKS = [
    # no comprehension variable: the optional never goes through the round trip
    (f"{ATTRS}.?driverVersion.value().minor() >= 2", True),
    (f"{ATTRS}.?driverVersion.orValue(semver(\"0.0.1\")).major() == 1", True),
    (f"{MEMORY}.?memory.value().isGreaterThan(quantity(\"1Gi\"))", True),
    # a plain (non-optional) library value in a variable
    (f"cel.bind(v, {ATTRS}.driverVersion, v.minor() >= 2)", True),
    (f"[{ATTRS}.driverVersion].exists(v, v.major() == 1)", True),
    # optionals of ints and strings round-trip losslessly
    (f"cel.bind(v, {ATTRS}.?index, v.value() == 3)", True),
    (f"cel.bind(v, {ATTRS}.?model, v.orValue(\"\") == \"A100\")", True),
    (f"[{ATTRS}.?model].exists(o, o.value() == \"A100\")", True),
    # an empty optional stays empty; hasValue() does not look at the value
    (f"cel.bind(v, {ATTRS}.?nosuch, !v.hasValue())", True),
    (f"cel.bind(v, {ATTRS}.?driverVersion, v.hasValue())", True),
    (f"cel.bind(v, {ATTRS}.?driverVersion, size([?v]) == 1)", True),
    # cel-go's `!=` is Equal() != true: an error value compares unequal without an error
    (f"cel.bind(v, {ATTRS}.?driverVersion, v != optional.of(semver(\"1.2.0\")))", True),
    # list `in` keeps only a true comparison
    (f"cel.bind(v, {ATTRS}.?driverVersion, !(v in [optional.of(semver(\"1.2.0\"))]))", True),
    # the other effects of the round trip
    ("cel.bind(v, optional.of(optional.of(1)), dyn(v.value()) == 1)", True),
    ("cel.bind(v, optional.of(optional.none()), dyn(v.value()) == null)", True),
    ("cel.bind(v, optional.of(int), dyn(v.value()) == \"int\")", True),
]


@pytest.mark.parametrize("expr,message", FAILS)
def test_library_value_optional_in_a_variable_fails_like_upstream(expr: str, message: str) -> None:
    with pytest.raises(CelRuntimeError) as info:
        SelectorEngine(FeatureGates()).matches(expr, GPU)
    assert info.value.message == message


@pytest.mark.parametrize("expr,expected", WORKS)
def test_situations_that_work_upstream(expr: str, expected: bool) -> None:
    assert SelectorEngine(FeatureGates()).matches(expr, GPU) is expected


def test_empty_map_default_is_lost_through_an_optional_variable() -> None:
    # the attributes wrapper's Value() is the plain map: an unknown domain is no longer {}
    e = SelectorEngine(FeatureGates())
    assert e.matches('size(device.attributes["unknown.example.com"]) == 0', GPU)
    with pytest.raises(CelRuntimeError, match="no such key: unknown.example.com"):
        e.matches('cel.bind(a, optional.of(device.attributes), '
                  'size(a.value()["unknown.example.com"]) == 0)', GPU)


def test_generic_comprehension_path_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    from dractl.cel import interp
    monkeypatch.setattr(interp, "FAST_MACROS", False)
    for expr, message in FAILS:
        with pytest.raises(CelRuntimeError) as info:
            SelectorEngine(FeatureGates()).matches(expr + " ", GPU)
        assert info.value.message == message, expr
    for expr, expected in WORKS:
        assert SelectorEngine(FeatureGates()).matches(expr + " ", GPU) is expected, expr


# --- the validate-time lint (DRA1907) ---------------------------------------------------------

def lint(expr: str) -> list[str]:
    from dractl.validate.cellints import optional_variable_messages
    return optional_variable_messages(expr, FeatureGates())


# Every expression of FAILS that the lint can see statically: the types or the use say that the
# optional holds a library value, and the value is taken out of the variable itself. Not seen:
# values taken out later from a list the variable went into ([?v][0], filter(...)[0]) and a
# variable bound to another variable (cel.bind(b, a, ...)).
LINTED = [expr for expr, _ in FAILS
          if "[?v][0]" not in expr and "cel.bind(b, a" not in expr and ".filter(" not in expr]


@pytest.mark.parametrize("expr", LINTED)
def test_lint_warns_where_kube_scheduler_fails(expr: str) -> None:
    messages = lint(expr)
    assert messages, expr
    assert all("unsupported conversion to ref.Val" in m for m in messages)


@pytest.mark.parametrize("expr,_expected", WORKS)
def test_lint_is_quiet_where_kube_scheduler_works(expr: str, _expected: bool) -> None:
    assert lint(expr) == []


def test_lint_position_is_the_variable_inside_the_expression() -> None:
    expr = (f"cel.bind(v, {ATTRS}.?driverVersion,\n"
            "  v.hasValue() && v.value().minor() >= 2)")
    [message] = lint(expr)
    assert message.startswith("<input>:2:19: `v` (bound by cel.bind) holds an optional of a "
                              "version or quantity attribute")
    assert "cel.bind(v, <attribute>.?name.orValue(<default>), ...)" in message


def test_lint_names_the_library_when_the_type_is_known() -> None:
    [message] = lint(f"cel.bind(v, {MEMORY}.?memory, v.value().isGreaterThan(quantity(\"1Gi\")))")
    assert "holds an optional of a quantity" in message
    assert "(*resource.Quantity)" in message


def test_lint_ignores_dyn_optionals_used_as_plain_values() -> None:
    assert lint(f"cel.bind(v, {ATTRS}.?model, v.value() == \"A100\")") == []
    assert lint(f"[{ATTRS}.?index].all(o, o.orValue(0) > 1)") == []


def test_lint_skips_expressions_that_do_not_compile() -> None:
    assert lint("cel.bind(v, nosuch, v.value())") == []


def test_validate_reports_dra1907_on_the_selector_field() -> None:
    from dractl.validate.rules import RuleContext, check_document
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                 "deviceClassName": "gpu", "selectors": [{"cel": {"expression": FAILS[0][0]}}]}}]}}}
    found = check_document(claim, RuleContext(FeatureGates(), FeatureGates().version))
    [hit] = [f for f in found if f.code == "DRA1907"]
    assert hit.severity == "warning"
    assert hit.field == "spec.devices.requests[0].exactly.selectors[0].cel.expression"
    assert hit.message.startswith("<input>:1:82: `v` (bound by cel.bind)")
