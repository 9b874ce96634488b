"""The loader's scans over user-sized text are linear and keep no memory per character
(dractl/load/scan.py), and read exactly what the backtracking expressions they replace read:
the nesting pre-check's flow tokens and the JSON NaN/Infinity locator, compared on generated
text, on both the possessive and the loop implementation."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.load import jsontext, parse, scan

# The expressions as they were, kept here as the reference for small inputs only.
_OLD_FLOW_TOKENS = re.compile(r"""[\[\]{}]|"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|#[^\n]*""")
_OLD_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.S)


def _old_flow_depth(text: str) -> int:
    depth = deepest = 0
    for m in _OLD_FLOW_TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(0, depth - 1)
    return deepest


def _old_non_finite(text: str):
    for m in _OLD_NON_FINITE.finditer(text):
        if m.group(1):
            return jsontext._line_column(text, m.start(1)) + (m.group(1),)
    return 1, 1, "NaN"


FLOW_TEXT = st.text(alphabet=st.sampled_from(list("[]{}\"'#\\\n ab:")), max_size=60)
JSON_TEXT = st.text(alphabet=st.sampled_from(list('"\\NaIfinty-[]{},:1 \n')), max_size=60)
PATHS = pytest.mark.parametrize("possessive", [True, False] if scan.POSSESSIVE else [False])


@PATHS
@settings(max_examples=600, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=FLOW_TEXT)
def test_flow_depth_reads_what_the_expression_read(possessive, text, monkeypatch):
    monkeypatch.setattr(parse, "line_dq_body_end",
                        lambda t, s: scan.line_dq_body_end(t, s, possessive))
    assert parse._flow_depth(text) == _old_flow_depth(text)


@PATHS
@settings(max_examples=600, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=JSON_TEXT)
def test_non_finite_position_reads_what_the_expression_read(possessive, text, monkeypatch):
    monkeypatch.setattr(jsontext, "json_string_end",
                        lambda t, s: scan.json_string_end(t, s, possessive))
    assert jsontext.non_finite_position(text) == _old_non_finite(text)


@PATHS
@pytest.mark.parametrize("size", [80_000, 320_000])
def test_unclosed_line_of_escaped_quotes_is_linear(possessive, size, monkeypatch):
    """One `"` then `\\"` repeated, never closed: 80 KB took 45 s in the expression."""
    monkeypatch.setattr(parse, "line_dq_body_end",
                        lambda t, s: scan.line_dq_body_end(t, s, possessive))
    line = 'a: "' + '\\"' * (size // 2) + "\n" + "[" * 3000 + "]" * 3000 + "\n"
    start = time.process_time()
    assert parse._flow_depth(line) == 3000
    assert time.process_time() - start < 0.5 * size / 80_000


def test_many_failing_quotes_with_brackets_between_are_linear():
    line = '"[\\"' * 40_000 + "\n"
    start = time.process_time()
    assert parse._flow_depth(line) == 39_999
    assert _old_flow_depth('"[\\"' * 200 + "\n") == 199  # the same reading, small enough for it
    assert time.process_time() - start < 0.5


def test_parse_source_of_a_long_line_of_escaped_quotes_is_fast():
    data = ('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  k: "' +
            '\\"' * 40_000 + "\n").encode()
    start = time.process_time()
    parsed = parse.parse_source("x.yaml", data)
    assert time.process_time() - start < 1.0
    assert [f.code for f in parsed.findings] == ["DRA0001"]
