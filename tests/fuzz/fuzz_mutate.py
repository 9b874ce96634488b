"""Structure-aware mutation of Kubernetes manifests, driven by hypothesis.

A mutation picks a document, then a field path inside it (any depth, maps and lists alike), and
does one of: replace the value with a hostile one (wrong type, null, huge integer, unicode and
control characters, empty string, very long string), delete it, add an extra field or list
item, grow a list to thousands of items, transplant another subtree, or corrupt a string.
Serialisation varies too: multi-document YAML, one JSON document, `kind: List`.
"""

from __future__ import annotations

import copy
import json
import math

import yaml
from hypothesis import strategies as st

# Strings that mean something to terminals, CI logs, markup languages or parsers.
NASTY_STRINGS = [
    "", " ", "\t", "0", "-1", "1e3", "0x1F", "true", "null", "~", "NaN", "yes", "on",
    "\x1b[31mred\x1b[0m", "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07",
    "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\", "line1\rOVERWRITE", "a\nb", "\r\n",
    "\x07\x08\x0b\x0c\x7f\x9b31m\x85", "\u202eevil\u202c", "\u2066x\u2069", "\u2028\u2029",
    "[bold red]markup[/]", "[link=https://evil.example]x[/link]", ":smile:", "%0A::error::injected",
    "::error file=x::injected", "\n::warning::injected", "%25%0D%0A", "<script>&amp;</script>",
    "]]>", "<![CDATA[x]]>", "\"'\\", "${{ secrets.TOKEN }}", "$(reboot)", "a" * 64, "a" * 254,
    "x" * 10_000, "é" * 300, "😀" * 50, "\ufeff", "\u0000", "\ufffe", "\uffff", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "gpu.example.com/" + "a" * 300, "1Gi", "-1Gi", "1e1000", "999999999999999999999999Ei",
    "0.0000000000001m", "1.5.6", "v1", "resource.k8s.io/v1", "Pod", "device.attributes",
    'device.driver == "gpu.example.com"', "device.attributes[\"x\"].y.matches(\"(a+)+$\")",
    "((((((((((", "true && " * 200 + "true", "'a'.matches('" + "(a*)*" * 20 + "b')",
]

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
_CONTROL_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x9F,
                                      blacklist_categories=("Cs",)), min_size=1, max_size=12)
_HUGE_INTS = st.sampled_from([2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63,
                              -(2 ** 63), -(2 ** 63) - 1, 2 ** 64, 10 ** 30, -(10 ** 100), 10 ** 400])
_FLOATS = st.sampled_from([0.5, -0.0, 1e308, -1e308, 5e-324, 1.0, 2.5e15, math.inf, -math.inf,
                           math.nan])

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), _HUGE_INTS, _FLOATS, st.integers(),
    st.sampled_from(NASTY_STRINGS), _TEXT, _CONTROL_TEXT,
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.one_of(_TEXT, st.sampled_from(NASTY_STRINGS)),
                                               children, max_size=4)),
    max_leaves=8,
)
KEYS = st.one_of(st.sampled_from(["name", "kind", "apiVersion", "metadata", "spec", "status",
                                  "devices", "requests", "count", "selectors", "cel", "expression",
                                  "attributes", "capacity", "nodeName", "allocationMode",
                                  "deviceClassName", "exactly", "firstAvailable", "constraints",
                                  "resourceClaims", "containers", "env", "valueFrom",
                                  "resourceSliceAttributeRef", "items", "extra", "", "<<"]),
                 _TEXT, st.sampled_from(NASTY_STRINGS))

OPS = ["replace", "replace", "replace", "delete", "delete", "add", "grow", "transplant",
       "corrupt", "retype"]


def paths(node, prefix=()):
    """Every path in a JSON-like tree (pre-order), the root included."""
    out = [prefix]
    stack = [(node, prefix)]
    while stack:
        value, p = stack.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                out.append(p + (k,))
                stack.append((v, p + (k,)))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                out.append(p + (i,))
                stack.append((v, p + (i,)))
    return out


def get(node, path):
    for elem in path:
        node = node[elem]
    return node


def _set(root, path, value):
    get(root, path[:-1])[path[-1]] = value


def mutate(docs: list, data) -> str:
    """Apply one mutation to `docs` (in place); returns a short description for the report."""
    if not docs:
        docs.append(data.draw(VALUES, label="new document"))
        return "new document"
    i = data.draw(st.integers(0, len(docs) - 1), label="document")
    doc = docs[i]
    all_paths = paths(doc)
    path = all_paths[data.draw(st.integers(0, len(all_paths) - 1), label="path")]
    op = data.draw(st.sampled_from(OPS), label="op")
    where = f"doc {i} {'/'.join(map(str, path))}"
    if op == "replace" or (not path and op in ("delete", "transplant")):
        value = data.draw(VALUES, label="value")
        if path:
            _set(doc, path, value)
        else:
            docs[i] = value
        return f"{where}: replace with {value!r:.80}"
    if op == "delete":
        parent = get(doc, path[:-1])
        del parent[path[-1]]
        return f"{where}: delete"
    target = get(doc, path)
    if op == "add":
        if isinstance(target, dict):
            key = data.draw(KEYS, label="key")
            target[key] = data.draw(VALUES, label="value")
            return f"{where}: add key {key!r:.40}"
        if isinstance(target, list):
            target.insert(data.draw(st.integers(0, len(target)), label="at"), data.draw(VALUES))
            return f"{where}: insert item"
        value = [target, data.draw(VALUES)]
    elif op == "grow":
        times = data.draw(st.sampled_from([2, 10, 100, 1000, 5000]), label="times")
        if isinstance(target, list) and target:
            value = [copy.deepcopy(target[0]) if j < 3 else target[0] for j in range(times)]
        elif isinstance(target, dict):
            value = dict(target)
            for j in range(times):
                value[f"k{j}"] = next(iter(target.values()), j) if target else j
        elif isinstance(target, str):
            value = target * min(times, 20_000 // max(1, len(target)) + 1)
        else:
            value = [target] * times
        if not path:
            docs[i] = value
        else:
            _set(doc, path, value)
        return f"{where}: grow x{times}"
    elif op == "transplant":
        j = data.draw(st.integers(0, len(docs) - 1), label="from document")
        src_paths = paths(docs[j])
        src = src_paths[data.draw(st.integers(0, len(src_paths) - 1), label="from path")]
        value = copy.deepcopy(get(docs[j], src))
    elif op == "corrupt":
        if isinstance(target, str):
            at = data.draw(st.integers(0, len(target)), label="at")
            insert = data.draw(st.one_of(st.sampled_from(NASTY_STRINGS), _CONTROL_TEXT, _TEXT))
            value = target[:at] + insert + target[at:]
        else:
            value = data.draw(SCALARS)
    else:  # retype: same content, wrong type
        if isinstance(target, str):
            value = data.draw(st.sampled_from([[target], {"value": target}, len(target), None,
                                               target.encode("ascii", "replace").hex()]))
        elif isinstance(target, bool):
            value = str(target).lower()
        elif isinstance(target, (int, float)):
            value = str(target)
        elif isinstance(target, list):
            value = {str(k): v for k, v in enumerate(target)}
        elif isinstance(target, dict):
            value = list(target.values())
        else:
            value = "null"
    if path:
        _set(doc, path, value)
    else:
        docs[i] = value
    return f"{where}: {op}"


SHAPES = ["yaml", "yaml", "yaml", "json", "list", "json-list"]


def serialize(docs: list, shape: str) -> bytes:
    if shape == "json":
        if len(docs) == 1:
            return json.dumps(docs[0], ensure_ascii=False).encode("utf-8", "surrogatepass")
        shape = "json-list"
    if shape == "json-list":
        return json.dumps({"apiVersion": "v1", "kind": "List", "items": docs},
                          ensure_ascii=False).encode("utf-8", "surrogatepass")
    if shape == "list":
        docs = [{"apiVersion": "v1", "kind": "List", "items": docs}]
    return yaml.safe_dump_all(docs, allow_unicode=True, sort_keys=False, width=10_000) \
        .encode("utf-8", "surrogatepass")
