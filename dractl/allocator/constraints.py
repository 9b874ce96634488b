"""Claim constraints (matchAttribute, distinctAttribute) as stateful checkers with add/remove for
backtracking (docs/spec/allocator.md#constraints). Quirks of the reference snapshot are reproduced
on purpose and documented where they happen."""

from __future__ import annotations

from typing import Iterable

from dractl.api.resource import Device
from dractl.api.values import AttributeValue

_SCALAR_TYPES = ("int", "bool", "string", "version")
# list member -> element type, scalar member -> itself
_ELEMENT_TYPE = {"int": "int", "bool": "bool", "string": "string", "version": "version",
                 "ints": "int", "bools": "bool", "strings": "string", "versions": "version"}

_MISSING = object()


def lookup_attribute(device: Device, name: str, derived=None):
    """Constraint attribute lookup (docs/spec/allocator.md#constraint-lookup). Returns the
    AttributeValue, None for an attribute that is present but has no value member, or `_MISSING`.
    `derived`: the 1.37 derived attributes of the device's request for this device (name ->
    AttributeValue); they shadow published ones."""
    if derived and name in derived:
        return derived[name]
    attrs = device.attributes
    if name in attrs:
        return attrs[name]
    domain, sep, ident = name.partition("/")
    if not sep or domain != device.driver:
        return _MISSING
    return attrs.get(ident, _MISSING)


def _as_set(attr: AttributeValue | None) -> tuple[str, frozenset] | None:
    """Typed set view for list semantics; None when there is no non-empty value."""
    if attr is None:
        return None
    elem = _ELEMENT_TYPE.get(attr.type)
    if elem is None:
        return None
    values = frozenset(attr.value) if attr.type not in _SCALAR_TYPES else frozenset((attr.value,))
    if not values:
        return None
    if elem == "version":
        values = frozenset(str(v) for v in values)
    return elem, values


def _scalar_equal(new: AttributeValue | None, old: AttributeValue | None) -> bool | None:
    """Compare by the type of the new attribute. None = the new attribute has no scalar value."""
    if new is None or new.type not in _SCALAR_TYPES:
        return None
    return old is not None and old.type == new.type and old.value == new.value \
        and type(old.value) is type(new.value)


class Constraint:
    def __init__(self, requests: Iterable[str], attribute: str):
        self.request_names = frozenset(requests)
        self.attribute = attribute

    def applies(self, base: str, sub: str | None) -> bool:
        names = self.request_names
        if not names:
            return True
        if sub is None:
            return base in names
        return base in names or f"{base}/{sub}" in names

    def add(self, base: str, sub: str | None, device: Device, derived=None) -> bool:  # pragma: no cover
        raise NotImplementedError

    def remove(self, base: str, sub: str | None, device: Device) -> None:  # pragma: no cover
        raise NotImplementedError


class MatchAttributeConstraint(Constraint):
    """All devices share a value (scalar mode) or a common element (list mode).

    Removal only decrements the count; the remembered value / running intersection is reset only
    when the count returns to 0 — upstream behaviour, which makes list mode stricter after
    backtracking (docs/spec/allocator.md#match-attribute)."""

    def __init__(self, requests: Iterable[str], attribute: str, list_mode: bool):
        super().__init__(requests, attribute)
        self.list_mode = list_mode
        self.count = 0
        self.value = None       # scalar mode: first AttributeValue; list mode: (elem type, frozenset)

    def add(self, base: str, sub: str | None, device: Device, derived=None) -> bool:
        if not self.applies(base, sub):
            return True
        attr = lookup_attribute(device, self.attribute, derived)
        if attr is _MISSING:
            return False
        if self.list_mode:
            view = _as_set(attr)
            if view is None:
                return False
            if self.count == 0:
                self.value = view
                self.count = 1
                return True
            elem, values = self.value
            if view[0] != elem:
                return False
            common = values & view[1]
            if not common:
                return False
            self.value = (elem, common)
            self.count += 1
            return True
        if self.count == 0:
            # The first device is accepted without any type check.
            self.value = attr
            self.count = 1
            return True
        if not _scalar_equal(attr, self.value):
            return False
        self.count += 1
        return True

    def remove(self, base: str, sub: str | None, device: Device) -> None:
        if not self.applies(base, sub):
            return
        self.count -= 1


class DistinctAttributeConstraint(Constraint):
    """Devices must not share a value.

    Snapshot behaviour (default): one remembered attribute per *base request name* — a new device is
    compared with the latest device of each request only, and removal deletes the request's entry
    although other devices of it may still be counted (docs/spec/allocator.md#distinct-attribute).
    With `all_devices` (upstream PR 140600) every admitted device is remembered and compared."""

    def __init__(self, requests: Iterable[str], attribute: str, list_mode: bool, all_devices: bool = False):
        super().__init__(requests, attribute)
        self.list_mode = list_mode
        self.all_devices = all_devices
        self.count = 0
        self.by_request: dict[str, AttributeValue | None] = {}
        self.stack: list[AttributeValue | None] = []

    def _stored(self):
        return self.stack if self.all_devices else list(self.by_request.values())

    def _conflicts(self, attr: AttributeValue | None) -> bool:
        stored = self._stored()
        if self.list_mode:
            view = _as_set(attr)
            if view is None:
                return True
            for old in stored:
                old_view = _as_set(old)
                if old_view is None:
                    continue
                if old_view[0] == view[0] and old_view[1] & view[1]:
                    return True
            return False
        for old in stored:
            eq = _scalar_equal(attr, old)
            if eq is None or eq:
                return True
        return False

    def add(self, base: str, sub: str | None, device: Device, derived=None) -> bool:
        if not self.applies(base, sub):
            return True
        attr = lookup_attribute(device, self.attribute, derived)
        if attr is _MISSING:
            return False
        if self.all_devices:
            if self._conflicts(attr):
                return False
            self.stack.append(attr)
            self.count += 1
            return True
        if self.count == 0:
            if self.list_mode and _as_set(attr) is None:
                return False
            self.by_request[base] = attr
            self.count = 1
            return True
        if self._conflicts(attr):
            return False
        self.by_request[base] = attr
        self.count += 1
        return True

    def remove(self, base: str, sub: str | None, device: Device) -> None:
        if not self.applies(base, sub):
            return
        if self.all_devices:
            self.stack.pop()
        else:
            self.by_request.pop(base, None)
        self.count -= 1
