"""CEL at the cost limit: the runtime limit stops an evaluation exactly where cel-go's would
(cost > 1,000,000, "operation cancelled: actual cost limit exceeded"), and the most expensive
selectors the API server accepts run fast enough for big inventories.

The costs below follow cel-go's runtime rules (interpreter/runtimecost.go): an identifier or a
field selection 1, a function or operator call 1 (&&, || and ?: none), a list literal 10. A
list literal of k constants then `.all(x, x >= 0)` costs 10 + 5k + 1: per item the loop
condition @not_strictly_false(accu) (2) and the step accu && x >= 0 (3), then the result (1);
`device.allowMultipleAllocations == false` costs 3 and `device.driver == ""` on an empty
driver 2, as in upstream's compile_test.go (expectCost)."""

from __future__ import annotations

import time

import pytest
from cel_testkit import A, Dev

from dractl.api.versions import FeatureGates
from dractl.cel import CelRuntimeError, SelectorEngine, check_expression
from dractl.cel.engine import compile_cached
from dractl.cel.interp import Meter

GATES = FeatureGates()
EMPTY = Dev("empty", "", {})


def _list(k: int) -> str:
    return "[" + ",".join(["1"] * k) + "]"


# 10 + 450 * (2 + 1 + (10 + 5 * 441 + 1)) + 1  +  (10 + 5 * 285 + 1)  =  999,997
BASE = f"{_list(450)}.all(x, {_list(441)}.all(y, y >= 0)) && {_list(285)}.all(z, z >= 0)"
AT_LIMIT = BASE + " && device.allowMultipleAllocations == false"      # + 3 = 1,000,000
OVER_LIMIT = BASE + ' && device.driver == "" && device.driver == ""'   # + 4 = 1,000,001


def _runtime_cost(expression: str, device=EMPTY) -> int:
    engine = SelectorEngine(GATES)
    env = dict(engine.activation(device).env)
    env["@cost"] = Meter(10 ** 12)
    compile_cached(expression).program(True)(env)
    return env["@cost"].cost


def test_the_costs_are_cel_gos():
    assert _runtime_cost(f"{_list(3)}.all(x, x >= 0)") == 10 + 5 * 3 + 1
    assert _runtime_cost("device.allowMultipleAllocations == false") == 3
    assert _runtime_cost('device.driver == ""') == 2
    assert _runtime_cost(AT_LIMIT) == 1_000_000
    assert _runtime_cost(OVER_LIMIT) == 1_000_001


def test_an_evaluation_costing_exactly_the_limit_passes():
    assert SelectorEngine(GATES).matches(AT_LIMIT, EMPTY) is True


def test_one_unit_over_the_limit_is_cancelled_with_cel_gos_message():
    with pytest.raises(CelRuntimeError) as info:
        SelectorEngine(GATES).matches(OVER_LIMIT, EMPTY)
    assert info.value.message == "operation cancelled: actual cost limit exceeded"


@pytest.mark.parametrize("limit,passes", [(999_999, False), (1_000_000, True), (1_000_001, True)])
def test_the_boundary_moves_with_the_limit(limit, passes):
    engine = SelectorEngine(GATES, cost_limit=limit)
    if passes:
        assert engine.matches(AT_LIMIT, EMPTY) is True
    else:
        with pytest.raises(CelRuntimeError, match="actual cost limit exceeded"):
            engine.matches(AT_LIMIT, EMPTY)


# Selectors just under the API server's static limit (check_expression accepts them): 160,000
# inner iterations each, 45 ms per device evaluated naively.
AT_THE_STATIC_LIMIT = [
    'lists.range(400).all(i, lists.range(400).all(j, device.driver != ""))',
    "lists.range(400).all(i, lists.range(400).all(j, j >= 0))",
    "lists.range(400).all(i, lists.range(400).all(j, i >= 0))",
    'device.driver == "gpu.example.com" && lists.range(400).all(i, lists.range(400).all(j, j < 400))',
]


@pytest.mark.parametrize("expression", AT_THE_STATIC_LIMIT)
def test_most_expensive_accepted_selectors_on_1000_devices_take_seconds(expression):
    assert check_expression(expression, GATES) == []  # the API server accepts it
    devices = [Dev(("d", k), "gpu.example.com", {"index": A("int", k), "uuid": A("string", f"u-{k}")})
               for k in range(1000)]
    engine = SelectorEngine(GATES)
    start = time.process_time()
    results = {engine.matches(expression, d) for d in devices}
    elapsed = time.process_time() - start
    assert engine.evaluations == 1000 and results == {True}  # every device its own evaluation
    assert elapsed < 5.0, f"{elapsed:.1f} s CPU for 1,000 devices"


# Bodies that do not read their iteration variable are evaluated once per run of the macro in
# the unmetered program; the metered program evaluates every item. Same results and errors.
INVARIANT = [
    'lists.range(5).all(i, device.driver != "")', 'lists.range(0).all(i, device.driver == "")',
    'lists.range(5).exists(i, device.driver == "x")', 'lists.range(3).exists_one(i, device.driver != "")',
    'lists.range(1).exists_one(i, device.driver != "")', 'lists.range(4).map(i, device.driver).size() == 4',
    'lists.range(4).filter(i, device.driver != "").size() == 4',
    'lists.range(4).map(i, device.driver != "", 7).size() == 4',
    'lists.range(3).all(i, device.attributes["gpu.example.com"].missing)',
    'lists.range(3).all(i, device.attributes["gpu.example.com"].missing) || true',
    'lists.range(3).exists(i, device.attributes["gpu.example.com"].index > 2)',
    'lists.range(3).all(i, lists.range(3).all(j, device.attributes["gpu.example.com"].index >= 0))',
    'lists.range(3).all(i, i >= 0 && lists.range(3).exists(j, j == device.attributes["gpu.example.com"].index))',
    "[1, 2].all(i, [3, 4].exists(j, j > 3))", "[[1], [2]].all(l, l.all(x, x > 0))",
]


@pytest.mark.parametrize("expression", INVARIANT)
@pytest.mark.parametrize("index", [0, 3, 7])
def test_once_per_run_gives_what_every_item_gives(expression, index):
    device = Dev(("d", index), "gpu.example.com", {"index": A("int", index)})
    compiled = compile_cached(expression)
    env = dict(SelectorEngine(GATES).activation(device).env)

    def outcome(metered: bool):
        run_env = dict(env)
        if metered:
            run_env["@cost"] = Meter(10 ** 9)
        try:
            return ("value", compiled.program(metered)(run_env))
        except Exception as exc:  # noqa: BLE001 - the error is the outcome compared
            return ("error", getattr(exc, "message", str(exc)))

    assert outcome(False) == outcome(True)
