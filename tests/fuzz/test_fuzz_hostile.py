"""Fuzzing with the hostile inputs of fuzz_hostile.py through the real entry point.

Each case takes a seed scenario (manifests plus their inventory, inline), puts hostile names and
lone surrogates into it, then a value of the wrong type (or an enum-like string) at a random
field path of a random kind, and writes it as YAML, as JSON (surrogates as \\udXXX escapes) or
as YAML with one scalar replaced by a tagged value. Every command and output format must finish
with exit status 0, 1 or 2, no traceback, no internal error, well-formed output and no raw
control, bidi or zero-width character on stdout or stderr; `validate -o json` must report the
wrong type at its path ("must be of type"). Budget: tests/fuzz/conftest.py.
"""

from __future__ import annotations

import copy
import json

import pytest
from cli_harness import CASES, assert_ok, run_inproc
from fuzz_hostile import (
    confuse,
    hostile_names,
    to_json,
    with_node_tag,
    with_surrogate,
    with_yaml_tag,
)
from fuzz_mutate import serialize
from fuzz_seeds import inventory_docs, scenarios
from hypothesis import given
from hypothesis import strategies as st
from schema_paths import accepts, field_paths
from test_fuzz_cli import ALLOCATE_FORMATS, ENV_FORMATS, VALIDATE_FORMATS, budget

from dractl.findings import render_path

COMMANDS = [("validate", VALIDATE_FORMATS), ("allocate", ALLOCATE_FORMATS), ("env", ENV_FORMATS)]


@pytest.fixture(autouse=True)
def _no_config_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def _docs(data) -> list[dict]:
    scenario = data.draw(st.sampled_from(scenarios()), label="scenario")
    return [copy.deepcopy(d) for d in inventory_docs(scenario.inventory)] + \
        [copy.deepcopy(d) for d in scenario.manifests]



@budget(120)
@given(data=st.data())
def test_fuzz_hostile(data):
    docs = _docs(data)
    notes = []
    for _ in range(data.draw(st.integers(0, 2), label="name mutations")):
        notes.append(data.draw(st.sampled_from([hostile_names, with_surrogate]))(docs, data))
    before = copy.deepcopy(docs)
    notes.append(confuse(docs, data))
    changed = [i for i, (a, b) in enumerate(zip(before, docs, strict=False)) if a != b]
    shape = data.draw(st.sampled_from(["yaml", "json", "tagged", "node-tag"]), label="shape")
    stdin = serialize(docs, "yaml") if shape == "yaml" else to_json(docs) if shape == "json" \
        else with_yaml_tag(docs, data) if shape == "tagged" else with_node_tag(docs, data)
    command, formats = data.draw(st.sampled_from(COMMANDS), label="command")
    fmt = data.draw(st.sampled_from(formats), label="format")
    run = run_inproc([command, "-", "-o", fmt], stdin=stdin, time_limit=60)
    CASES[f"hostile {command}"] += 1
    try:
        assert_ok(run, fmt)
    except AssertionError as exc:
        raise AssertionError(f"[{shape}] {'; '.join(notes)}\n{exc}") from None
    if command == "validate" and fmt == "json" and shape in ("yaml", "json") and changed:
        _check_type_finding(run, before[changed[0]], docs[changed[0]], notes[-1])


def _check_type_finding(run, before: dict, after: dict, note: str) -> None:
    """The confused field, when its value is of a wrong type, has a "must be of type" finding."""
    for field in field_paths():
        if field.kind != after.get("kind") or field.api_version != after.get("apiVersion"):
            continue
        path = field.concrete()
        value = _get(after, path)
        if value is _MISSING or _get(before, path) == value or accepts(field, value) or value is None:
            continue
        if not _json_representable(value):
            return  # NaN/Infinity: the whole document is refused on loading (a DRA0001 finding)
        findings = json.loads(run.out)["findings"]
        if any(f["code"] == "DRA0001" for f in findings):
            return  # a YAML error (a lone surrogate YAML cannot carry) hid the document
        fields = {(f["field"], f["message"]) for f in findings}
        want = render_path(path)
        assert any(f == want and "must be of type" in m for f, m in fields) or \
            any(want.startswith(f + ".") or want.startswith(f + "[") for f, _ in fields), \
            f"{note}: no type finding at {want}: {sorted(fields)[:8]}"
        return


_MISSING = object()


def _json_representable(value) -> bool:
    try:
        json.dumps(value, allow_nan=False)
        return True
    except (ValueError, TypeError):
        return False


def _get(node, path):
    for elem in path:
        try:
            node = node[elem]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return node
