"""dractl's hints on unknown fields (DRA0101), which the API server reports only as `unknown
field "spec.x"` (strict decoding): which apiVersion the document's shape belongs to, where an
indented-wrong field belongs, and which release removed (or added) a field and what replaced it.

Everything here runs only for documents with an unknown field, never for clean ones. The schema
is walked from the kind's definition in the generated schemas (dractl/schemas/k8s-*.json); what
older releases had comes from dractl/schemas/history.json (scripts/gen_api_history.py); what
replaced a removed field is the table below, each entry with the upstream change that made it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dractl.findings import ERROR, Finding, MapKey, register, render_path

C_OTHER_SHAPE = register("DRA0107", ERROR, "the object has the shape of another apiVersion of its "
                         "kind (change apiVersion)", "schema")

UNKNOWN_FIELD = "DRA0101"

# (definition, removed field) -> what to write instead, with the upstream change.
REPLACEMENTS = {
    ("io.k8s.api.core.v1.PodResourceClaim", "source"):
        "set resourceClaimName or resourceClaimTemplateName on the entry itself "
        "(kubernetes/kubernetes#125116)",
    ("io.k8s.api.core.v1.PodSpec", "workloadRef"):
        "set spec.schedulingGroup.podGroupName to a PodGroup (kubernetes/kubernetes#136976)",
    ("io.k8s.api.resource.v1.Device", "nodeAllocatableResourceMappings"):
        "use nodeAllocatableResources with mapping and overhead (KEP-5517, "
        "kubernetes/kubernetes#140009)",
    ("io.k8s.api.resource.v1beta2.Device", "nodeAllocatableResourceMappings"):
        "use nodeAllocatableResources with mapping and overhead (KEP-5517, "
        "kubernetes/kubernetes#140009)",
    ("io.k8s.api.resource.v1beta1.BasicDevice", "nodeAllocatableResourceMappings"):
        "use nodeAllocatableResources with mapping and overhead (KEP-5517, "
        "kubernetes/kubernetes#140009)",
    ("io.k8s.api.resource.v1alpha3.DeviceTaintSelector", "deviceClassName"):
        "select the devices by driver, pool and device (kubernetes/kubernetes#134152)",
    ("io.k8s.api.resource.v1alpha3.DeviceTaintSelector", "selectors"):
        "select the devices by driver, pool and device (kubernetes/kubernetes#134152)",
}

# Preference among a kind's apiVersions when a document fits several: the stable one first.
_PREFERENCE = ("v1", "v1beta2", "v1beta1", "v1alpha3")


def other_shape(doc_data: dict, schemas, api_version: str, kind: str) -> str | None:
    """Another apiVersion of the same group, served by this release, under which the document
    has no unknown field (a v1 claim written under resource.k8s.io/v1beta1); None when none
    fits."""
    group = api_version.rpartition("/")[0]
    candidates = [av for av in schemas.api_versions_for(kind)
                  if av != api_version and av.rpartition("/")[0] == group]
    candidates.sort(key=lambda av: _PREFERENCE.index(av.rpartition("/")[2])
                    if av.rpartition("/")[2] in _PREFERENCE else len(_PREFERENCE))
    for candidate in candidates:
        found, _ = schemas.check(dict(doc_data, apiVersion=candidate))
        if not any(f.code == UNKNOWN_FIELD for f in found):
            return candidate
    return None


def other_shape_finding(api_version: str, candidate: str, kind: str, unknown: list[Finding]) -> Finding:
    fields = ", ".join(f.field for f in unknown[:3]) + (", ..." if len(unknown) > 3 else "")
    return Finding(ERROR, C_OTHER_SHAPE, f"this {kind} has the {candidate} shape, not the "
                   f"{api_version} one ({fields}): change apiVersion to {candidate}", ("apiVersion",))


# Unknown fields of one document that get hints: as many as a report shows of one code on one
# object (dractl.validate.pipeline.REPEATS_SHOWN), so that a document of thousands of unknown
# fields costs no more than a readable one.
HINTED = 100


def explain_unknown_fields(findings: list[Finding], doc, schemas, release: str) -> list[Finding]:
    """`findings` with each unknown-field message completed by the hints that apply."""
    walker = _Walker(schemas, doc.api_version, doc.kind)
    out, hinted = [], 0
    for f in findings:
        if f.code == UNKNOWN_FIELD and f.path and hinted < HINTED:
            hinted += 1
            hint = _hint(f.path, doc, walker, release)
            if hint:
                f = replace(f, message=f.message + hint)
        out.append(f)
    return out


def _hint(path: tuple, doc, walker: "_Walker", release: str) -> str:
    parent, key = path[:-1], str(path[-1])
    definition = walker.definition_at(parent)
    hints = [_history_hint(definition, key, release)] if definition else []
    hints.append(_indentation_hint(walker, doc, parent, key))
    return "".join(h for h in hints if h)


def _history_hint(definition: str, key: str, release: str) -> str:
    from dractl.validate.apiversions import history, position

    span = history()["fields"].get(definition, {}).get(key)
    if span is None:
        return ""
    first, last = span
    releases = history()["releases"]
    if position(last) < position(release):
        gone = releases[releases.index(last) + 1]
        had = f"Kubernetes {first}" if first == last else f"Kubernetes {first} to {last}"
        text = f'; "{key}" was removed in Kubernetes {gone} ({had} had it)'
        instead = REPLACEMENTS.get((definition, key))
        return text + (f": {instead}" if instead else "")
    if position(first) > position(release):
        which = (f"Kubernetes {first} and later" if last == releases[-1]
                 else f"Kubernetes {first}" if first == last else f"Kubernetes {first} to {last}")
        return f'; "{key}" is a field of {which}, not of {release} (see --kube-version)'
    return ""


def _indentation_hint(walker: "_Walker", doc, parent: tuple, key: str) -> str:
    """Where `key`, unknown in the mapping at `parent`, is a field: of a sibling's mapping (it
    should be indented under it) or of an enclosing mapping (indented less)."""
    mapping = _value_at(doc.data, parent)
    if not isinstance(mapping, dict):
        return ""
    found = doc.locate(parent + (key,))
    known = walker.fields(parent)
    for sibling in mapping:
        if sibling == key or sibling not in known or not walker.has_field(parent + (sibling,), key):
            continue
        value = mapping[sibling]
        where = doc.locate(parent + (sibling,))
        first = _first_key_path(value)
        expected = doc.locate(parent + (sibling,) + first)[1] if first else where[1] + 2
        return (f'; wrong indentation: expected {expected} but found {found[1]}: "{key}" is a '
                f'field of "{sibling}" (line {where[0]})')
    for depth in range(len(parent) - 1, -1, -1):
        ancestor = parent[:depth]
        if not walker.has_field(ancestor, key):
            continue
        above = _value_at(doc.data, ancestor)
        if not isinstance(above, dict) or not above or key in above:
            continue
        expected = doc.locate(ancestor + (next(iter(above)),))[1]
        owner = render_path(ancestor) or "the object"
        return (f'; wrong indentation: expected {expected} but found {found[1]}: "{key}" is a '
                f'field of {owner}')
    return ""


def _first_key_path(value: Any) -> tuple:
    if isinstance(value, dict) and value:
        return (next(iter(value)),)
    if isinstance(value, list) and value and isinstance(value[0], dict) and value[0]:
        return (0, next(iter(value[0])))
    return ()


def _value_at(data: Any, path: tuple) -> Any:
    for elem in path:
        if isinstance(data, dict) and not isinstance(elem, int):
            data = data.get(str(elem))
        elif isinstance(data, list) and isinstance(elem, int) and 0 <= elem < len(data):
            data = data[elem]
        else:
            return None
    return data


class _Walker:
    """The generated schema of one kind, walked along field paths."""

    def __init__(self, schemas, api_version: str, kind: str) -> None:
        name = schemas.definition_name(api_version, kind)
        self.defs = schemas.schema_for(api_version, kind)["$defs"] if name else {}
        self.root = {"$ref": f"#/$defs/{name}"} if name else None
        self._nodes: dict[tuple, tuple] = {}

    def _resolve(self, node: dict | None) -> tuple[dict | None, str | None]:
        name = None
        for _ in range(64):  # $ref chains are short; a cycle is not followed forever
            if not isinstance(node, dict) or "$ref" not in node:
                break
            name = node["$ref"].rsplit("/", 1)[-1]
            node = self.defs.get(name)
        return node, name

    def _node_at(self, path: tuple) -> tuple[dict | None, str | None]:
        found = self._nodes.get(path)
        if found is None:
            found = self._nodes[path] = self._walk(path)
        return found

    def _walk(self, path: tuple) -> tuple[dict | None, str | None]:
        node, name = self._resolve(self.root)
        for elem in path:
            if node is None:
                return None, None
            if isinstance(elem, int) and not isinstance(elem, bool):
                node = node.get("items")
            elif isinstance(elem, MapKey):
                node = node.get("additionalProperties")
            else:
                node = node.get("properties", {}).get(str(elem))
            node, name = self._resolve(node)
        return node, name

    def definition_at(self, path: tuple) -> str | None:
        return self._node_at(path)[1]

    def fields(self, path: tuple) -> dict:
        """The fields of the object at `path` (or, for a list, of its items)."""
        node, _ = self._node_at(path)
        if isinstance(node, dict) and "items" in node:
            node, _ = self._resolve(node["items"])
        return node.get("properties", {}) if isinstance(node, dict) else {}

    def has_field(self, path: tuple, key: str) -> bool:
        return key in self.fields(path)
