"""Byte-level fuzzing of the loader: whatever the bytes, parse_source returns
findings and never raises, and `dractl validate -` stays clean.

Inputs are real manifests with random byte edits (insert, delete, overwrite, truncate, splice),
so the parser sees almost-valid YAML and JSON, where its error recovery lives.
"""

from __future__ import annotations

import json

import pytest
import yaml
from cli_harness import CASES, assert_ok, run_inproc
from fuzz_mutate import NASTY_STRINGS
from fuzz_seeds import inventory_docs, inventory_names, scenarios
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_cli import budget

from dractl.load.limits import Limits
from dractl.load.parse import parse_source

_SEEDS: list[bytes] = []


@pytest.fixture(autouse=True)
def _no_config_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def seeds() -> list[bytes]:
    if not _SEEDS:
        for s in scenarios()[::3]:
            if s.manifests:
                _SEEDS.append(yaml.safe_dump_all(list(s.manifests), sort_keys=False).encode())
                _SEEDS.append(json.dumps(s.manifests[0]).encode())
        for name in inventory_names():
            _SEEDS.append(yaml.safe_dump_all(list(inventory_docs(name)), sort_keys=False).encode())
    return _SEEDS


_SNIPPETS = [s.encode("utf-8", "surrogatepass") for s in NASTY_STRINGS if len(s) < 100] + [
    b"\n---\n", b"---", b"...\n", b"&a ", b"*a", b"*b ", b"<<: *a\n", b"!!binary ", b"!!python/object:os.system ",
    b"!!str ", b"!foo ", b"%YAML 1.1\n", b"%TAG ! tag:x,2000:\n", b"? ", b": ", b"- ", b"{", b"}", b"[",
    b"]", b"'", b'"', b"|", b">", b"#", b"\t", b"\r", b"\xef\xbb\xbf", b"\xff\xfe", b"\x00",
    b"\xc3", b"\xed\xa0\x80", b"9" * 5000, b"1e99999", b"0x" + b"f" * 100, b".inf", b"-.nan",
    b"2001-12-14t21:59:43.10-05:00", b"0o17", b"1_000", b"190:20:30", b"=",
]


@st.composite
def mutated(draw):
    data = bytearray(draw(st.sampled_from(seeds())))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["insert", "delete", "overwrite", "truncate", "splice", "byte"]))
        at = draw(st.integers(0, len(data)))
        if op == "insert":
            data[at:at] = draw(st.sampled_from(_SNIPPETS))
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 40))]
        elif op == "overwrite":
            chunk = draw(st.sampled_from(_SNIPPETS))
            data[at:at + len(chunk)] = chunk
        elif op == "truncate":
            del data[at:]
        elif op == "splice":  # another seed's tail
            other = draw(st.sampled_from(seeds()))
            data[at:] = other[draw(st.integers(0, len(other))):]
        else:
            data[at:at] = bytes([draw(st.integers(0, 255))])
    return bytes(data)


@budget(400)
@given(data=mutated(), name=st.sampled_from(["x.yaml", "x.json", "x.yml", "<stdin>"]))
def test_parse_source_never_raises(data, name):
    CASES["loader (parse_source)"] += 1
    parsed = parse_source(name, data, Limits())
    assert parsed.raw_documents >= 0
    for f in parsed.findings:
        assert f.severity in ("error", "warning", "info") and f.code.startswith("DRA")
        assert f.line >= 0 and f.column >= 0


@budget(100)
@given(data=mutated(), fmt=st.sampled_from(["text", "json"]))
def test_validate_mutated_bytes(data, fmt):
    CASES["validate (bytes)"] += 1
    run = run_inproc(["validate", "-", "-o", fmt], stdin=data, time_limit=20)
    assert_ok(run, fmt)


@budget(150)
@given(data=st.data(), streaming=st.booleans())
def test_any_tag_on_any_node_is_a_finding(data, streaming):
    """A tag from NODE_TAGS on any node of a real manifest: parse_source never raises, and a
    collection tag on a node of the other kind is a DRA0001 finding at that node, on both
    reading paths (composed and event stream)."""
    from fuzz_hostile import with_node_tag

    from dractl.load import parse

    CASES["loader (node tags)"] += 1
    docs = list(yaml.safe_load_all(data.draw(st.sampled_from(seeds()))))
    text = with_node_tag([d for d in docs if d is not None], data)
    saved = parse.STREAM_FROM_BYTES
    parse.STREAM_FROM_BYTES = 0 if streaming else saved
    try:
        parsed = parse_source("x.yaml", text, Limits())
    finally:
        parse.STREAM_FROM_BYTES = saved
    mismatched = [m for m in _MISMATCH.finditer(text.decode("utf-8", "surrogatepass"))]
    for f in parsed.findings:
        assert f.line >= 1 and f.column >= 1
    if mismatched:
        assert any(f.code == "DRA0001" for f in parsed.findings), text[:2000]


# `!!seq {`, `!!map [`, `!!seq 'x'`-like text that PyYAML's serializer writes for a mismatched tag.
_MISMATCH = __import__("re").compile(
    r"!!(?:seq|omap|pairs) (?:\{|[^\s\[\-{])|!!(?:map|set) (?:\[|[^\s{\[?])")
