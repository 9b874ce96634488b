"""Generators for the hostile inputs of docs/decisions/0006-hostile-inputs.md (hypothesis strategies
over real seeds).

* type confusion at any field path of any kind (schema_paths.py): a value the field's type cannot
  hold, or an enum-like string no enum has, or any VALUE of fuzz_mutate;
* YAML tags with impossible values (`!!float 'x'`, `!!bool ''`, `!!int ''`, `!!set`, `!!omap`,
  `.nan`, unknown and Python tags) written into the YAML text of a document;
* lone surrogates in JSON strings (`"p\\ud800"`), which only JSON text can carry;
* control, bidi, zero-width and tag characters in names: object names, namespaces, container,
  claim and request names, node names and label values, where they reach every report.
"""

from __future__ import annotations

import json
import re

import yaml
from fuzz_mutate import VALUES
from hypothesis import strategies as st
from schema_paths import SAMPLES, field_paths, put, wrong_values

YAML_TAGGED = [
    "!!float 'x'", "!!bool ''", "!!int ''", "!!int 0x", "!!int '1.5'", "!!null x", "!!float .nan",
    ".inf", "-.inf", ".NaN", "!!set {a, b}", "!!omap [{a: 1}]", "!!pairs [{a: 1}, {a: 2}]",
    "!!binary AAAA", "!!timestamp 2001-12-14", "!!str {a: 1}", "!!map x", "!!seq x", "!foo x",
    "!!python/object/apply:os.system ['true']", "!!python/name:os.system", "!<tag:x> y",
    "!!merge x", "!!value x", "!!yaml x", "!!int 99999999999999999999999999999", "!!float 1",
    # collection tags on the wrong kind of node, short and verbatim
    "!!seq {a: 1}", "!!map [1, 2]", "!!map ''", "!!seq ''", "!<tag:yaml.org,2002:seq> {a: 1}",
    "!<tag:yaml.org,2002:map> [1]", "!!set [a]", "!!omap {a: 1}", "!!pairs x", "!!seq [{a: !!map x}]",
]

# Every tag a node may carry: the collection tags, the scalar tags, a local and an unknown one.
# with_node_tag puts one on any node, of any kind (mapping, sequence or scalar; in a list, a key,
# under a merge key), so the whole class of tag/node-kind mismatches is generated.
NODE_TAGS = ["tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:set",
             "tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs", "tag:yaml.org,2002:str",
             "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
             "tag:yaml.org,2002:null", "tag:yaml.org,2002:binary",
             "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:merge", "!", "!local",
             "tag:example.com,2000:thing"]

# Characters that hide, reorder or overwrite text on a terminal, or in a CI log viewer.
HOSTILE_CHARS = ["\x1b]0;OWNED\x07", "\x1b[2J", "\x1b[31m", "\x07", "\x08", "\r", "\x85", "\x9b",
                 "\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u200d",
                 "\u200e", "\u2060", "\ufeff", "\u2028", "\u2029", "\u061c", "\u00ad",
                 "\U000e0041\U000e0042", "\x00", "\x7f", "\t", "\n"]
HOSTILE_NAME = st.builds(lambda a, c, b: a + c + b,
                         st.sampled_from(["gpu", "a", "", "default", "node-1"]),
                         st.sampled_from(HOSTILE_CHARS),
                         st.sampled_from(["", "x", "evil.yaml", "-0"]))
SURROGATES = st.sampled_from(["\ud800", "\udfff", "\udc00x", "a\ud83d", "\ud800\ud800"])

# Where names sit in the kinds that reach reports (paths are created if missing).
NAME_PATHS = [("metadata", "name"), ("metadata", "namespace"), ("metadata", "labels", "k"),
              ("spec", "containers", 0, "name"), ("spec", "resourceClaims", 0, "name"),
              ("spec", "resourceClaims", 0, "resourceClaimName"), ("spec", "nodeName"),
              ("spec", "devices", "requests", 0, "name"),
              ("spec", "devices", "requests", 0, "exactly", "deviceClassName"),
              ("spec", "driver"), ("spec", "pool", "name"), ("spec", "devices", 0, "name")]


@st.composite
def wrong_type_at_path(draw, kinds: tuple[str, ...] = ()):
    """(api_version, kind, concrete path, value): a value the field cannot hold."""
    fields = [f for f in field_paths() if not kinds or f.kind in kinds]
    field = draw(st.sampled_from(fields))
    wrong = wrong_values(field)
    choice = st.one_of(st.sampled_from(wrong), VALUES) if wrong else VALUES
    if "string" in field.types:
        choice = st.one_of(choice, st.sampled_from(["maybe", "", "NoSuchValue", "\u202e"]))
    return field, draw(choice)


def confuse(docs: list[dict], data) -> str:
    """Put a wrong value at a random field path of a random document of a kind it has."""
    kinds = tuple(sorted({d.get("kind") for d in docs if isinstance(d.get("kind"), str)}))
    candidates = [f for f in field_paths() if f.kind in kinds]
    if not candidates:
        return "no typed document"
    field, value = data.draw(wrong_type_at_path(kinds), label="confusion")
    matching = [i for i, d in enumerate(docs)
                if d.get("kind") == field.kind and d.get("apiVersion") == field.api_version]
    if not matching:
        return f"no {field.api_version} {field.kind}"
    i = data.draw(st.sampled_from(matching), label="document")
    docs[i] = put(docs[i], field.concrete(), value)
    return f"doc {i} {field.kind} {'/'.join(map(str, field.concrete()))} = {value!r:.60}"


def hostile_names(docs: list[dict], data) -> str:
    i = data.draw(st.integers(0, len(docs) - 1), label="document")
    path = data.draw(st.sampled_from(NAME_PATHS), label="name path")
    value = data.draw(HOSTILE_NAME, label="name")
    docs[i] = put(docs[i], path, value)
    return f"doc {i} {'/'.join(map(str, path))} = {value!r}"


def with_surrogate(docs: list[dict], data) -> str:
    """A lone surrogate into a string (JSON serialisation writes it as a \\udXXX escape)."""
    i = data.draw(st.integers(0, len(docs) - 1), label="document")
    path = data.draw(st.sampled_from(NAME_PATHS + [("metadata", "annotations", "a")]), label="path")
    value = "p" + data.draw(SURROGATES, label="surrogate")
    docs[i] = put(docs[i], path, value)
    return f"doc {i} {'/'.join(map(str, path))} = {value!r}"


def to_json(docs: list[dict]) -> bytes:
    """JSON text (ASCII: lone surrogates become \\udXXX escapes, as a generator would write)."""
    if len(docs) == 1:
        return json.dumps(docs[0]).encode("ascii")
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}).encode("ascii")


_SCALAR_LINE = re.compile(r"^(\s*(?:- )?[A-Za-z][\w.-]*: )(\S.*)$", re.M)


def with_yaml_tag(docs: list[dict], data) -> bytes:
    """The documents as YAML, one scalar replaced by a tagged or non-JSON value."""
    text = yaml.safe_dump_all(docs, sort_keys=False, width=10_000, allow_unicode=True)
    lines = list(_SCALAR_LINE.finditer(text))
    if not lines:
        return text.encode("utf-8", "surrogatepass")
    m = data.draw(st.sampled_from(lines), label="scalar line")
    tag = data.draw(st.sampled_from(YAML_TAGGED), label="tag")
    text = text[:m.start(2)] + tag + text[m.end(2):]
    return text.encode("utf-8", "surrogatepass")


def with_node_tag(docs: list[dict], data) -> bytes:
    """The documents as YAML with one to three nodes (any kind, any depth) given a tag from
    NODE_TAGS, written by PyYAML's serializer as `!!seq {...}`, `!<tag:...> [...]`, ..."""
    text = yaml.safe_dump_all(docs, sort_keys=False, width=10_000, allow_unicode=True)
    roots = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    nodes = []
    for root in roots:
        stack = [root]
        while stack:
            node = stack.pop()
            nodes.append(node)
            if isinstance(node, yaml.MappingNode):
                stack.extend(n for pair in node.value for n in pair)
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(node.value)
    for _ in range(data.draw(st.integers(1, 3), label="tagged nodes")):
        node = data.draw(st.sampled_from(nodes), label="node")
        node.tag = data.draw(st.sampled_from(NODE_TAGS), label="node tag")
    out = yaml.serialize_all(roots, Dumper=yaml.SafeDumper, width=10_000, allow_unicode=True)
    return out.encode("utf-8", "surrogatepass")


__all__ = ["SAMPLES", "YAML_TAGGED", "NODE_TAGS", "HOSTILE_CHARS", "confuse", "hostile_names",
           "with_surrogate", "to_json", "with_yaml_tag", "with_node_tag"]
