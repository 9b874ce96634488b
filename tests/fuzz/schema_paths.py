"""Every field path of every kind dractl reads, from its JSON Schema, and wrong values for them.

Used by the type-confusion tests (tests/hostile/test_type_confusion.py, tests/fuzz): a path is a
tuple of keys with "[]" for a list item and "{}" for a map value; `concrete` turns it into the
path of one value (item 0, map key "k"), and `put` writes a value there, creating what is missing
on the way. Recursive definitions (JSONSchemaProps, ...) are followed once.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass

from dractl.findings import MapKey

ITEM, MAP_VALUE, MAP_KEY = "[]", "{}", "k"
MAX_DEPTH = 14


@dataclass(frozen=True)
class FieldPath:
    api_version: str
    kind: str
    path: tuple          # template: keys, "[]", "{}"
    types: tuple         # JSON types the field accepts ("" when anything goes)
    format: str | None

    def concrete(self) -> tuple:
        return tuple(0 if e == ITEM else MapKey(MAP_KEY) if e == MAP_VALUE else e for e in self.path)


@functools.lru_cache(maxsize=None)
def field_paths(version: str = "1.37") -> tuple[FieldPath, ...]:
    from dractl.validate.schema import SchemaSet

    doc = SchemaSet.for_version(version)._doc()
    defs = doc["$defs"]
    out: list[FieldPath] = []
    for api_version, kinds in sorted(doc["x-dractl"]["kinds"].items()):
        for kind, name in sorted(kinds.items()):
            found: list = []
            _walk(defs, defs[name], (), (name,), found)
            out.extend(FieldPath(api_version, kind, p, t, f) for p, t, f in found
                       if p[0] not in ("apiVersion", "kind"))
    return tuple(out)


def _walk(defs: dict, node: dict, path: tuple, seen: tuple, out: list) -> None:
    if len(path) > MAX_DEPTH or not isinstance(node, dict):
        return
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name not in seen:
            _walk(defs, defs[name], path, seen + (name,), out)
        return
    raw = node.get("type", ())
    types = (raw,) if isinstance(raw, str) else tuple(t for t in raw if t != "null")
    if path:
        out.append((path, types, node.get("format")))
    for key, sub in node.get("properties", {}).items():
        _walk(defs, sub, path + (key,), seen, out)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and extra:
        _walk(defs, extra, path + (MAP_VALUE,), seen, out)
    if "items" in node:
        _walk(defs, node["items"], path + (ITEM,), seen, out)


# One value of each JSON type; `wrong_values` picks those a field cannot hold.
SAMPLES = {"object": {"x": 1}, "array": [1], "boolean": True, "string": "maybe",
           "number": 1.5, "integer": 7}


def accepts(field: FieldPath, value) -> bool:
    types = set(field.types)
    if not types:
        return True  # RawExtension and friends: anything goes
    if field.format in ("int-or-string",):
        types |= {"integer", "string"}
    if field.format == "quantity":
        types |= {"string", "number", "integer"}
    if isinstance(value, bool):
        return "boolean" in types
    if isinstance(value, int):
        return bool(types & {"integer", "number"})
    if isinstance(value, float):
        return "number" in types or ("integer" in types and value.is_integer())
    if isinstance(value, str):
        return "string" in types
    if isinstance(value, list):
        return "array" in types
    if isinstance(value, dict):
        return "object" in types
    return value is None


def wrong_values(field: FieldPath) -> list:
    return [v for v in SAMPLES.values() if not accepts(field, v)]


def put(doc: dict, path: tuple, value) -> dict:
    """A copy of `doc` with `value` at the concrete `path` (missing parents created)."""
    doc = copy.deepcopy(doc)
    node = doc
    path = tuple(str(e) if isinstance(e, str) else e for e in path)  # MapKey -> plain str
    for elem, nxt in zip(path, path[1:] + (None,), strict=True):
        last = nxt is None
        fresh = value if last else ([] if isinstance(nxt, int) else {})
        if isinstance(elem, int):
            if not isinstance(node, list):
                return doc
            if len(node) <= elem:
                node.append(fresh)
            elif last:
                node[elem] = value
            elif not isinstance(node[elem], (dict, list)):
                node[elem] = fresh
        else:
            if not isinstance(node, dict):
                return doc
            if last or not isinstance(node.get(elem), (dict, list)):
                node[elem] = fresh
        if not last:
            node = node[elem]
            if isinstance(nxt, int) and isinstance(node, list) and not node:
                node.append({})
    return doc
