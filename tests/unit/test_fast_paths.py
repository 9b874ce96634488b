"""The loader's and the validator's fast paths give exactly what the general paths give.

Each fast path (docs/decisions/0005-performance-targets.md) skips work for the common case; these
tests hold it to the answer of the code it short-cuts: PyYAML's resolver and constructors, the
unprintable-character expression, positions composed with tags resolved, and the attribute rules on
their slow path.
"""

from __future__ import annotations

import yaml

from dractl.api.versions import FeatureGates
from dractl.load.parse import _NOT_PRINTABLE, _all_printable, parse_source
from dractl.load.positions import PositionIndex
from dractl.load.yamlsafe import ManifestLoader, NodeLoader, _BaseLoader
from dractl.validate.rules import RuleContext, check_document

PLAIN_SCALARS = [
    "gpu", "bench", "claim-0001", "true", "True", "TRUE", "yes", "No", "on", "OFF", "y", "n",
    "~", "null", "Null", "", "0", "7", "-3", "+12", "0755", "0o17", "0x1F", "0b101", "1_000",
    "190:20:30", "1e3", "-1.5", ".5", ".inf", "-.Inf", ".NaN", "<<", "=", "2001-12-14",
    "2001-12-14t21:59:43.10-05:00", "!x", "&a", "*b", "-", ".", "café", "Étoile", "10Gi",
    "x:y", "tmpl-1", "o", "t", "f", "F",
]


def test_plain_scalar_tags_match_pyyaml_resolver():
    loader = ManifestLoader("")
    try:
        for text in PLAIN_SCALARS:
            expected = _BaseLoader.resolve(loader, yaml.ScalarNode, text, (True, False))
            assert loader.resolve(yaml.ScalarNode, text, (True, False)) == expected, text
    finally:
        loader.dispose()


def _construct_all(text: str) -> tuple[list, list[int]]:
    loader = ManifestLoader(text)
    values, aliases = [], []
    try:
        while loader.check_node():
            values.append(loader.construct_document(loader.get_node()))
            aliases.append(loader.alias_uses)
    finally:
        loader.dispose()
    return values, aliases


def test_plain_numbers_booleans_and_nulls_decode_like_pyyaml():
    # (not the texts YAML reads as something else in a value, timestamps, which dractl keeps
    # as strings, nor NaN and the infinities, which it refuses as JSON does)
    skipped = ("<<", "=", "!x", "&a", "*b", "", "-", ".inf", "-.Inf", ".NaN")
    lines = [f"k{i}: {text}" for i, text in enumerate(PLAIN_SCALARS)
             if text not in skipped and not text.startswith("2001")]
    text = "\n".join(lines) + "\nlist: [1, -2, true, null, 0x10, 3.5]\n"
    values, _ = _construct_all(text)
    assert values == [yaml.load(text, Loader=yaml.SafeLoader)]


def test_explicitly_tagged_scalars_keep_their_checks():
    values, _ = _construct_all('a: !!int "12"\nb: !!float 3\nc: !!bool "true"\nd: !!null ""\n')
    assert values == [{"a": 12, "b": 3.0, "c": True, "d": None}]
    out = parse_source("x.yaml", b"a: !!int abc\n")
    assert [f.code for f in out.findings] == ["DRA0001"]


def test_aliased_scalars_are_still_counted_as_aliases():
    values, aliases = _construct_all("a: &n 5\nb: *n\n---\nc: 5\nd: 5\n")
    assert values == [{"a": 5, "b": 5}, {"c": 5, "d": 5}]
    assert aliases[0] > 0 and aliases[1] == 0


def test_all_printable_matches_the_expression():
    samples = [f"ab{chr(c)}cd" for c in range(0x80)]
    samples += ["", "plain text\n", "é\x01", "é", "x\x85y", "\ufeffa", "a\ud800b", "\U0001f600"]
    for text in samples:
        assert _all_printable(text) == (_NOT_PRINTABLE.search(text) is None), repr(text)


def _marks(node) -> list:
    out = [(type(node).__name__, node.start_mark.line, node.start_mark.column,
            node.value if isinstance(node, yaml.ScalarNode) else None)]
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            out += _marks(key) + _marks(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            out += _marks(item)
    return out


def test_node_loader_composes_the_same_nodes_and_marks():
    text = ("a: 1\nb: [x, 'y', {c: true}]\nd:\n  - &r {e: ~}\n  - *r\n"
            "on: yes\n'q': \"w\"\nf: |\n  block\n")
    plain = yaml.compose(text, Loader=yaml.CSafeLoader if hasattr(yaml, "CSafeLoader")
                         else yaml.SafeLoader)
    fast = NodeLoader(text)
    try:
        node = fast.get_single_node()
    finally:
        fast.dispose()
    assert _marks(node) == _marks(plain)


def test_positions_of_fields_are_found_through_the_node_loader():
    text = "a: 1\nb:\n  c: [x, y]\n  d: {e: 2}\n"
    index = PositionIndex(text)
    index.doc_lines.append(0)
    assert index.locate(0, ("b", "c", 1)) == (3, 10)
    assert index.locate(0, ("b", "d", "e")) == (4, 7)
    assert index.locate(0, ("b", "missing")) == (2, 1)


def _slice(attributes: dict) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": "s"},
            "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                     "pool": {"name": "p", "resourceSliceCount": 1, "generation": 0},
                     "devices": [{"name": "d0", "attributes": attributes}]}}


def _codes(doc: dict) -> list[tuple[str, tuple]]:
    found = check_document(doc, RuleContext(FeatureGates("1.37"), "1.37"))
    return [(f.code, f.path) for f in found]


def test_one_value_attributes_take_the_short_path_only_when_nothing_is_wrong():
    assert _codes(_slice({"a": {"int": 1}, "b": {"bool": False}, "c": {"string": "x" * 64},
                          "d": {"version": "1.2.3"}})) == []
    long_string = _codes(_slice({"a": {"string": "x" * 65}}))
    assert [code for code, _ in long_string] == ["DRA1217"]
    multibyte = _codes(_slice({"a": {"string": "é" * 33}}))  # 66 bytes in 33 characters
    assert [code for code, _ in multibyte] == ["DRA1217"]
    assert [code for code, _ in _codes(_slice({"a": {"int": None}}))] == ["DRA1216"]
    assert [code for code, _ in _codes(_slice({"a": {"version": "v1"}}))] == ["DRA1218"]
    two = _codes(_slice({"a": {"int": 1, "bool": True}}))
    assert [code for code, _ in two] == ["DRA1216"]


def test_shared_maps_are_counted_only_where_aliases_can_be():
    values, aliases = _construct_all("base: &b {x: 1}\nuse: *b\n")
    assert values == [{"base": {"x": 1}, "use": {"x": 1}}]
    assert values[0]["base"] is values[0]["use"] and aliases == [1]
    values, aliases = _construct_all("a: {x: 1}\nb: '*not an alias'\nc: [1, {y: 2}]\n")
    assert values == [{"a": {"x": 1}, "b": "*not an alias", "c": [1, {"y": 2}]}]
    assert aliases == [0]
    values, aliases = _construct_all("a: {x: 1}\nb: [2]\n")  # no "*" anywhere
    assert values == [{"a": {"x": 1}, "b": [2]}] and aliases == [0]
