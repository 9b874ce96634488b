"""findings_json.dumps writes exactly what json.dumps(indent=2, ensure_ascii=True) writes,
whichever encoder it takes (orjson for plain ASCII without floats, the standard library else)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.report import findings_json


def reference(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=True, sort_keys=False) + "\n"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_same_bytes_as_the_standard_library(value):
    assert findings_json.dumps(value) == reference(value)


def test_every_ascii_character_and_edge_values():
    samples = [{"k": "x" + chr(c)} for c in range(128)]
    samples += [{"n": 2**63}, {"n": -2**63 - 1}, {"f": 1e16}, {"f": 1e-7}, {"f": float("nan")},
                {"u": "é\u2028"}, {1: "int key"}, {"t": ("a", 1)}, {}, [], {"a": []}, "plain"]
    for sample in samples:
        assert findings_json.dumps(sample) == reference(sample), sample


def test_the_fast_encoder_is_the_one_taken_for_plain_plans():
    if findings_json.orjson is None:  # pragma: no cover - orjson is a dependency
        return
    plan = {"pods": [{"name": "p", "node": "n", "claims": ["c"], "ok": True, "n": 3}]}
    assert not findings_json._has_float(plan)
    assert findings_json._has_float({"a": [{"b": 0.5}]})



def test_float_search_by_levels():
    class Half(float):
        pass

    class Opaque:
        value = 0.5

    deep = {"a": [{"b": ("c", [1, {"d": [None, True, "x"]}])}]}
    assert not findings_json._has_float(deep)
    assert not findings_json._has_float({"shared": [deep, deep], "n": 2**70})
    for value in (0.5, [1, 2.5], {"a": {"b": [3, {"c": -1e-07}]}}, ("t", (1.0,)),
                  {"s": Half(0.5)}, {"k": [True, {"z": float("nan")}]}):
        assert findings_json._has_float(value), value
    # Not JSON: the standard library decides (it raises for an object it cannot encode).
    assert findings_json._has_float({"o": Opaque()})
    assert findings_json._has_float({"s": {1, 2}})
