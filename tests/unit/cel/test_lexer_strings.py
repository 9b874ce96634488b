"""The CEL lexer's string literals: the one-pass scan reads exactly what the backtracking
expression it replaces read, and a never-closed run of backslashes is linear (it was
exponential: `"` and 36 backslashes took 1.8 s, each two more four times that)."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.cel import lexer
from dractl.cel.engine import compile_cached
from dractl.cel.errors import CelCompileError

# The expressions as they were (reference for small inputs only).
_BODY = r"""(?:\\["'\\]|.)*?"""
_ML_BODY = r"""(?:\\["'\\]|[\s\S])*?"""
OLD = {("'", False): re.compile(r"[rR]?'" + _BODY + "'"), ('"', False): re.compile(r'[rR]?"' + _BODY + '"'),
       ("'", True): re.compile(r"[rR]?'''" + _ML_BODY + "'''"),
       ('"', True): re.compile(r'[rR]?"""' + _ML_BODY + '"""')}

TEXT = st.text(alphabet=st.sampled_from(list("\"'\\\nrRa ")), min_size=1, max_size=24)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(text=TEXT, q=st.sampled_from(["'", '"']), triple=st.booleans())
def test_scan_reads_what_the_expression_read(text, q, triple):
    m = OLD[(q, triple)].match(text)
    assert lexer._quoted_end(text, 0, q, triple) == (m.end() if m else None), repr(text)


@pytest.mark.parametrize("body", ["\\\\" * 5000 + "x", "\\\\\\\"" * 3000, "\\\"" * 5000])
@pytest.mark.parametrize("quote", ['"', "'", '"""', "r'"])
def test_unclosed_literals_are_linear(body, quote):
    start = time.process_time()
    with pytest.raises(CelCompileError):
        compile_cached(quote + body)
    assert time.process_time() - start < 1.0
