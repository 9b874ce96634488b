"""The event-stream builder (dractl/load/yamlstream.py, used for big files) reads every file
exactly like the composed path: the same documents, values, findings and positions."""

from __future__ import annotations

import os
import pathlib
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.load import parse

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "fuzz"))

from fuzz_hostile import YAML_TAGGED, with_yaml_tag  # noqa: E402
from fuzz_mutate import mutate, serialize  # noqa: E402
from fuzz_seeds import scenarios  # noqa: E402


def _read(name: str, data: bytes, streaming: bool, monkeypatch) -> tuple:
    monkeypatch.setattr(parse, "STREAM_FROM_BYTES", 0 if streaming else 1 << 40)
    out = parse.parse_source(name, data)
    return ([(d.data, d.line, d.column, d.prefix) for d in out.documents],
            [(f.code, f.message, f.line, f.column) for f in out.findings], out.raw_documents)


def _same(name: str, data: bytes, monkeypatch) -> None:
    composed = _read(name, data, False, monkeypatch)
    streamed = _read(name, data, True, monkeypatch)
    assert streamed == composed, name


FILES = sorted(p for p in list((REPO / "examples").glob("*.yaml")) +
               list((REPO / "dractl" / "inventories").glob("*.yaml")) +
               list((REPO / "tests" / "golden" / "scenarios").glob("*.yaml")))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_same_documents_on_every_sample(path, monkeypatch):
    _same(path.name, path.read_bytes(), monkeypatch)


HAND_WRITTEN = [
    b"a: 1\na: 2\n", b"base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n",
    b"l: &l [1, 2]\nm: [*l, *l]\n", b"m:\n  <<: [{a: 1}, {a: 2, b: 3}]\n  c: 4\n",
    b"m: {<<: 5}\n", b"x: *nope\n", b"a: [1\n", b"---\na: 1\n---\nb: !!float 'x'\n---\nc: 3\n",
    b"? [a, b]\n: 1\n", b"1: a\ntrue: b\n~: c\n", b"on: 1\nyes: 2\n", b"a: &x 1\nb: *x\n",
    b"s: !!set {a, b}\no: !!omap [{a: 1}]\n", b"t: !!str {a: 1}\n", b"u: !foo [1]\n",
    b"---\n---\na: 1\n...\n---\n", b"\"<<\": 1\n", b"a: !!binary aGk=\nd: 2001-12-14\n",
    b"r: &r [*r]\n", b"k: !!null ''\nv: !!int '0x1F'\n",
] + [f"a: {t}\nb: ok\n---\nc: 1\n".encode() for t in YAML_TAGGED]


@pytest.mark.parametrize("data", HAND_WRITTEN)
def test_same_documents_on_edge_cases(data, monkeypatch):
    _same("x.yaml", data, monkeypatch)


@settings(max_examples=int(os.environ.get("DRACTL_FUZZ_EXAMPLES") or 60), deadline=None,
          derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_same_documents_on_mutated_seeds(data):
    import copy

    scenario = data.draw(st.sampled_from(scenarios()))
    docs = [copy.deepcopy(d) for d in scenario.manifests] or [{"a": 1}]
    for _ in range(data.draw(st.integers(0, 3))):
        mutate(docs, data)
    text = with_yaml_tag(docs, data) if data.draw(st.booleans()) else serialize(docs, "yaml")
    mp = pytest.MonkeyPatch()
    try:
        _same("x.yaml", text, mp)
    finally:
        mp.undo()


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_event_positions_match_composed_positions(path, monkeypatch):
    """locate_many on a big document (one pass over its events) finds what locate finds."""
    from fuzz_mutate import paths as all_paths

    from dractl.load import positions

    out = parse.parse_source(path.name, path.read_bytes())
    for doc in out.documents:
        wanted = [p for p in all_paths(doc.data)][:400]
        wanted += [p + ("missing", 3) for p in wanted[:20]] + [("metadata", "nope", 0)]
        composed = [doc.locate(p) for p in wanted]
        monkeypatch.setattr(positions, "STREAM_LOCATE_BYTES", 0)
        doc.positions._by_doc.clear()
        streamed = doc.locate_many(wanted)
        monkeypatch.setattr(positions, "STREAM_LOCATE_BYTES", 1 << 40)
        assert streamed == composed, path.name
