"""Static cost estimate calibrated against upstream.

Every expected value is the ``expectCost`` of the same expression in
k8s.io/dynamic-resource-allocation/cel/compile_test.go (worst-case estimate with the DRA size
estimator: 32 domains x 32 ids, attribute values sized 64, driver 63 chars).
"""

from __future__ import annotations

import pytest

from dractl.api.versions import FeatureGates
from dractl.cel import check_expression
from dractl.cel.engine import compile_cached

EXPECT_COST = {
 'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))': 6,
 'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))': 6,
 '"no-such-domain" in device.attributes': 3,
 'device.driver == ""': 2,
 'device.driver == "dra.example.com"': 4,
 'device.attributes["dra.example.com"].name': 4,
 'device.attributes["dra.example.com"]["name"]': 4,
 'cel.bind(dra, device.attributes["dra.example.com"], dra.name)': 15,
 'device.attributes["dra.example.com"].name > 0': 5,
 'device.attributes["dra.example.com"].name == "fish"': 5,
 'device.attributes["dra.example.com"].name.exists(x, x > 0)': 5 + 6*64,
 'device.attributes["dra.example.com"].names': 4,
 'device.attributes["dra.example.com"].name.includes("fish")': 52,
 'device.attributes["dra.example.com"].names.size() == 2': 6,
 'device.attributes["dra.example.com"].names.all(x, x != "")': 5 + 4*64,
 'device.attributes["dra.example.com"].names.all(x, x.isGreaterThan(semver("0.0.1")))': 5 + 6*64,
 'device.attributes["dra.example.com"].name.includes(semver("1.0.0"))': 53,
 '1 in device.attributes["dra.example.com"].names': 68,
 'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))': 6,
 'device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)': 7,
 'device.attributes["dra.example.com"].name.exists(x, x.isGreaterThan(semver("0.0.1")))': 5 + 7*64,
 'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))': 6,
 '"name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))': 10,
 '!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))': 11,
 '''
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
''': 52,
 'device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c': 12,
 'device.attributes.exists_one(x, x == "dra.example.com")': 164,
 'device.attributes["dra.example.com"].exists_one(x, x == "services")': 133,
 'device.attributes["dra.example.com"].services.split("example").size() >= 2': 19,
 'device.attributes["dra.example.com"].services.matches("[^a]?sym")': 18,
 'device.capacity.exists_one(x, x == "dra.example.com")': 164,
 'device.capacity["dra.example.com"].exists_one(x, x == "memory")': 133,
 "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))": 85555551,
 'device.allowMultipleAllocations == true': 3,
}


@pytest.mark.parametrize("expression,expected", list(EXPECT_COST.items()),
                         ids=[k.strip()[:50] for k in EXPECT_COST])
def test_estimate_matches_compile_test(expression: str, expected: int) -> None:
    assert compile_cached(expression).max_cost == expected


def test_expensive_rejected_by_validation() -> None:
    # compile_test "expensive": 85555551 > CELSelectorExpressionMaxCost -> API validation error
    expensive = [k for k, v in EXPECT_COST.items() if v > 1_000_000][0]
    errs = check_expression(expensive, FeatureGates())
    assert [e.kind for e in errs] == ["cost"]
    assert errs[0].message == "too complex, exceeds cost limit"


def test_realistic_selectors_are_cheap() -> None:
    # includes() exists in the NewExpressions env only with DRAListTypeAttributes
    gates = FeatureGates().with_overrides(DRAListTypeAttributes=True)
    for expr, cost in EXPECT_COST.items():
        if cost < 1_000_000:
            assert check_expression(expr, gates) == []
