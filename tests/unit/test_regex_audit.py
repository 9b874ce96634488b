"""No regular expression with backtracking that grows with its input runs over user-sized text.

Every pattern dractl compiles is listed here with how it stays linear on text of any length:
the measured ones (PUMPED: an input built to make a backtracking variant blow up, at 4,000
and 32,000 characters, must cost about 8 times as much, never 64) and the single-step ones
(character classes, literals, possessive bodies). The three rewritten expressions also read
exactly what the ambiguous ones they replace read (compared on generated text). A new pattern fails test_every_pattern_is_audited
until it is added here. RE2 (google-re2) runs CEL's matches() and the config globs."""

from __future__ import annotations

import importlib
import pkgutil
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dractl

# module:attribute -> a pumped input (n -> text) on which a backtracking variant blows up.
PUMPED = {
    "dractl.cel.k8stypes:_SPLIT_RE": lambda n: "1" * n + "x",
    "dractl.cel.timevalues:_DUR_RE": lambda n: "1" * n + "x",
    "dractl.cel.libs.standard:_FLOAT_RE": lambda n: "1" * n + "x",
    "dractl.api.quantity:_QUANTITY_RE": lambda n: "1" * n + "x",
    "dractl.validate.rules._formats:_DNS1123_SUBDOMAIN_RE": lambda n: "a" * n + "-",
    "dractl.validate.rules._formats:_DNS1123_LABEL_RE": lambda n: "a" * n + "-",
    "dractl.validate.rules._formats:_QUALIFIED_NAME_RE": lambda n: "a" * n + "-",
    "dractl.validate.rules._formats:_LABEL_VALUE_RE": lambda n: "a" * n + "-",
    "dractl.validate.rules._formats:_C_IDENTIFIER_RE": lambda n: "a" * n + "-",
    "dractl.validate.rules._formats:SEMVER_RE": lambda n: "1.0.0-" + "1." * n + "!",
    "dractl.allocator.nodes:_LABEL_NAME": lambda n: "a" * n + "-",
    "dractl.allocator.nodes:_DNS_SUBDOMAIN": lambda n: "a." * n + "-",
    "dractl.cel.timevalues:_TS_RE": lambda n: "1" * n,
    "dractl.cel.lexer:_IDENT_RE": lambda n: "a" * n,
    "dractl.load.parse:_DOC_START": lambda n: "---" + " x" * n + "\n" + "--- " * n,
    "dractl.load.positions:_LINE_BREAK": lambda n: "\r" * n,
    "dractl.report.findings_text:_INDEX": lambda n: "[" + "1" * n,
    "dractl.load.jsontext:_SURROGATE_ESCAPE": lambda n: "\\u" * n,
    "dractl.load.jsontext:_ESCAPE": lambda n: "\\u" * n,
    "dractl.validate.envlints:_DRIVER": lambda n: "device.driver == '" * n,
    "dractl.simulate.explain:_SLICE_MENTION": lambda n: " from ResourceSlice " + "a:" * n,
    "dractl.simulate.explain:_HOLDERS": lambda n: ": held by claim " + "a" * n,
}
# The patterns dractl searches with (search, finditer, sub, split); the others it only
# matches at a position, where a search's quadratic retries never happen.
SEARCHED = {"dractl.load.parse:_DOC_START", "dractl.load.jsontext:_SURROGATE_ESCAPE",
            "dractl.load.jsontext:_ESCAPE", "dractl.load.positions:_LINE_BREAK",
            "dractl.report.findings_text:_INDEX", "dractl.validate.envlints:_DRIVER",
            "dractl.simulate.explain:_SLICE_MENTION", "dractl.simulate.explain:_HOLDERS"}
# Character classes, literals and anchored fixed-width forms: one step per character.
SINGLE_STEP = {
    "dractl.load.parse:_NOT_PRINTABLE", "dractl.load.parse:_FLOW_START",
    "dractl.load.parse:_FLOW_START_NO_DQ", "dractl.load.parse:_SQ_STOP",
    "dractl.load.scan:_LINE_DQ_STOP", "dractl.load.scan:_JSON_STOP",
    "dractl.load.scan:_LINE_DQ_BODY", "dractl.load.scan:_JSON_BODY",  # possessive: never backtrack
    "dractl.load.jsontext:_SURROGATE", "dractl.load.jsontext:_STRING_OR_CONSTANT",
    "dractl.report.sanitize:UNSAFE", "dractl.report.sanitize:_UNSAFE_TEXT",
    "dractl.report.junit:_NOT_XML", "dractl.report.sarif:_SURROGATE",
    "dractl.report.step_summary:_BACKTICKS", "dractl.config:_CODE",
    "dractl.cli.selection:_PREFIX", "dractl.cli.argv:_VERSION", "dractl.api.versions:_VERSION_FORMS",
    "dractl.inventories:_NAME", "dractl.inventories:_FIRST_LINE",  # dractl's own files only
    "dractl.report.code_docs:_SECTION", "dractl.report.code_docs:_LABEL",  # dractl's own docs
    "dractl.validate.schema:_DATE_TIME",
}


def _patterns() -> dict[str, re.Pattern]:
    found = {}
    for info in pkgutil.walk_packages(dractl.__path__, "dractl."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and getattr(value, "__module__", None) is None:
                found.setdefault(f"{info.name}:{name}", value)
    return {k: v for k, v in found.items() if k.split(":")[0] == _defining_module(k, v)}


def _defining_module(key: str, pattern: re.Pattern) -> str:
    return key.split(":")[0]


def test_every_pattern_is_audited():
    unknown = sorted(set(_patterns()) - set(PUMPED) - SINGLE_STEP)
    assert not unknown, f"patterns on text without an audit entry: {unknown}"


def _cost(fn, text: str) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        fn(text)
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("key", sorted(PUMPED))
def test_pattern_cost_grows_linearly(key):
    module, name = key.split(":")
    pattern = getattr(importlib.import_module(module), name)
    pump = PUMPED[key]

    def run(text):
        pattern.match(text)
        pattern.fullmatch(text)
        if key in SEARCHED:
            for _ in pattern.finditer(text):
                pass

    small, big = _cost(run, pump(4_000)), _cost(run, pump(32_000))
    # x8 the input: linear costs about x8, quadratic x64 (with room for a noisy machine)
    assert big < 24 * small + 0.005, f"{key}: 4k {small * 1e3:.2f} ms, 32k {big * 1e3:.2f} ms"


# The three rewritten expressions read what the ambiguous ones read.
_OLD = {"dractl.cel.k8stypes:_SPLIT_RE": re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)\Z"),
        "dractl.cel.timevalues:_DUR_RE": re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)"),
        "dractl.cel.libs.standard:_FLOAT_RE": re.compile(
            r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI]nf(?:inity)?|NaN)")}


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(text=st.text(alphabet=st.sampled_from(list("0123456789.+-eEinumkKMGTPsµhfaNI x")), max_size=12),
       key=st.sampled_from(sorted(_OLD)))
def test_rewritten_patterns_read_the_same(text, key):
    module, name = key.split(":")
    new = getattr(importlib.import_module(module), name)
    old = _OLD[key]
    for method in ("match", "fullmatch"):
        a, b = getattr(old, method)(text), getattr(new, method)(text)
        assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), (key, method, text)
