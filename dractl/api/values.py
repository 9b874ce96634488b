"""Typed device attribute values as ResourceSlices carry them (the v1 union form)."""

from __future__ import annotations

from typing import NamedTuple

# Scalar union members, and the list-typed members behind DRAListTypeAttributes.
SCALAR_TYPES = ("int", "bool", "string", "version")
LIST_TYPES = ("ints", "bools", "strings", "versions")
_SCALAR_SET, _LIST_SET = frozenset(SCALAR_TYPES), frozenset(LIST_TYPES)


class AttributeValue(NamedTuple):
    """One attribute value: `type` is the union member's field name, `value` its Python value.

    int -> int, bool -> bool, string -> str, version -> str (the semver text as written);
    list types -> tuple of those.
    """

    type: str
    value: object

    def render(self) -> str:
        """The value as Kubernetes renders it into a string (env vars, messages)."""
        def one(v: object) -> str:
            if isinstance(v, bool):
                return "true" if v else "false"
            return str(v)

        if self.type in LIST_TYPES:
            return ",".join(one(v) for v in self.value)  # type: ignore[union-attr]
        return one(self.value)


def attribute_from_manifest(raw: object) -> AttributeValue | None:
    """Convert `{int: 1}` / `{string: "x"}` / ... to an AttributeValue.

    Mirrors upstream's precedence when several members are set (invalid per the API, but the
    allocator still reads it): list members first (set = non-null, even if empty), then scalars.
    None means no member is set ("unsupported attribute value" upstream).
    """
    if not isinstance(raw, dict):
        return None
    if len(raw) == 1:  # the valid form, nearly every attribute: no precedence to apply
        ((kind, value),) = raw.items()
        if value is None:
            return None
        if kind in _SCALAR_SET:
            return AttributeValue(kind, value)
        if kind in _LIST_SET:
            return AttributeValue(kind, tuple(value))
        return None
    for kind in LIST_TYPES:
        if raw.get(kind) is not None:
            return AttributeValue(kind, tuple(raw[kind]))
    for kind in SCALAR_TYPES:
        if raw.get(kind) is not None:
            return AttributeValue(kind, raw[kind])
    return None
