"""Shared machinery of the API-server rules: the finding collector and the error wording.

Messages follow apimachinery's field errors (`<Type>[: <value>][: <detail>]`), without the field
path, which the report prefixes. Values render like the API server renders them: integers, floats
and booleans bare, strings double-quoted, everything else as compact JSON (`null` for nil).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

from dractl.api.quantity import Quantity, QuantityError
from dractl.api.releases import KNOWN_CHANGES, UnknownChangeError, changes_in_force
from dractl.findings import CODES, ERROR, Finding, render_path

# Single place for the `Too long` detail: apimachinery changed it across releases
# ("must have at most N bytes" before, "may not be more than N bytes" now).
TOO_LONG_DETAIL = "may not be more than {n} bytes"


class _Bad:
    """Marker for "present but of the wrong type": rules skip it, the schema check reports it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "BAD"


BAD: Any = _Bad()


# -- value access -----------------------------------------------------------------------------

def get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else None


# The typed getters below repeat get()'s one line rather than call it: they run hundreds of
# thousands of times over a corpus, and a Python call is most of their cost.


def get_str(obj: Any, key: str, default: str = "") -> Any:
    """A string field with Go semantics: absent or null is "" (the default); wrong type is BAD."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return default
    return value if isinstance(value, str) else BAD


def get_opt_str(obj: Any, key: str) -> Any:
    """A *string field: None when absent or null, BAD when not a string."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return None
    return value if isinstance(value, str) else BAD


def get_list(obj: Any, key: str) -> Any:
    """A list field: [] when absent or null, BAD when not a list."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return []
    return value if isinstance(value, list) else BAD


def get_opt_list(obj: Any, key: str) -> Any:
    """A list field where nil and empty differ: None when absent or null."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return None
    return value if isinstance(value, list) else BAD


def get_map(obj: Any, key: str) -> Any:
    """A map field: {} when absent or null, BAD when not a map."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return {}
    return value if isinstance(value, dict) else BAD


def get_obj(obj: Any, key: str) -> Any:
    """A pointer-to-struct field: None when absent or null, BAD when not a map."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return None
    return value if isinstance(value, dict) else BAD


def get_int(obj: Any, key: str, default: int | None = 0) -> Any:
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        return BAD
    return value


def get_bool(obj: Any, key: str) -> Any:
    """A *bool field: None when absent or null, BAD when not a boolean."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return None
    return value if isinstance(value, bool) else BAD


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- message wording --------------------------------------------------------------------------

# dractl's own bound: a value is shown in full up to this many characters, then cut with "...".
# A 50 MB annotation or a list of a million finalizers must not become a message of that size.
SHOWN_VALUE_MAX = 4096


def render_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        if len(value) > SHOWN_VALUE_MAX:
            return go_quote(value[:SHOWN_VALUE_MAX]) + f"... ({len(value)} characters)"
        return go_quote(value)
    if isinstance(value, (list, dict)) and len(value) > SHOWN_VALUE_MAX // 8:
        return f'"{"array" if isinstance(value, list) else "object"} of {len(value)} items"'
    try:
        text = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False,
                          default=str)
    except (TypeError, ValueError, RecursionError):
        return go_quote(str(value)[:SHOWN_VALUE_MAX])
    return text if len(text) <= SHOWN_VALUE_MAX else text[:SHOWN_VALUE_MAX] + "..."


def go_quote(text: str) -> str:
    """Go's %q for the common cases: JSON string escaping, non-ASCII kept."""
    return json.dumps(text, ensure_ascii=False)


def _with_detail(head: str, detail: str) -> str:
    return f"{head}: {detail}" if detail else head


def required(detail: str = "") -> str:
    return _with_detail("Required value", detail)


def invalid(value: Any, detail: str = "") -> str:
    return _with_detail(f"Invalid value: {render_value(value)}", detail)


def unsupported(value: Any, supported: Iterable[str]) -> str:
    quoted = ", ".join(go_quote(s) for s in supported)
    return _with_detail(f"Unsupported value: {render_value(value)}",
                        f"supported values: {quoted}" if quoted else "")


def duplicate(value: Any) -> str:
    return f"Duplicate value: {render_value(value)}"


def not_found(value: Any, detail: str = "") -> str:
    return _with_detail(f"Not found: {render_value(value)}", detail)


def forbidden(detail: str = "") -> str:
    return _with_detail("Forbidden", detail)


def too_long(max_len: int) -> str:
    detail = TOO_LONG_DETAIL.format(n=max_len)
    if max_len == 1:
        detail = detail.replace("bytes", "byte")
    return f"Too long: {detail}"


def too_many(count: int, max_count: int) -> str:
    return f"Too many: {count}: must have at most {max_count} item{'' if max_count == 1 else 's'}"


def internal(detail: str) -> str:
    return _with_detail("Internal error", detail)


# -- collecting findings ------------------------------------------------------------------------

class Emitter:
    """Collects findings of one document; maps v1 paths back to the paths the user wrote."""

    def __init__(self, ctx: Any, original_path: Callable[[tuple], tuple] | None = None):
        self.ctx = ctx
        self.findings: list[Finding] = []
        self.path_mapper = original_path
        self._changes: frozenset[str] | None = None

    @property
    def gates(self):
        return self.ctx.gates

    def in_force(self, change: str) -> bool:
        """Whether the target release ships `change` (a switch of dractl/api/releases.py).
        Asked per device and per request: the release's set is looked up once per document."""
        changes = self._changes
        if changes is None:
            changes = self._changes = changes_in_force(self.ctx.kube_version)
        if change not in changes and change not in KNOWN_CHANGES:
            raise UnknownChangeError(f"unknown release switch {change!r}: not in dractl/api/releases.py")
        return change in changes

    def add(self, code: str, message: str, path: Iterable, severity: str | None = None) -> None:
        path = tuple(path)
        if severity is None:
            doc = CODES.get(code)
            severity = doc.severity if doc else ERROR
        if self.path_mapper is not None:
            original = self.path_mapper(path)
            if original != path:
                message = f"{message} (v1 field: {render_path(path)})"
                path = original
        self.findings.append(Finding(severity, code, message, path))


def uniq_sorted_keys(mapping: dict) -> list:
    """Map keys in a deterministic order (upstream iterates Go maps randomly)."""
    return sorted(mapping, key=lambda k: str(k))


def parsed_quantity(value: Any) -> Quantity | None:
    """A quantity field's value; None when unset or not a quantity (the schema, or the field's
    own rule, reports that)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return Quantity.from_manifest(value)
    except (QuantityError, ValueError, TypeError, ArithmeticError):
        return None
