"""The cluster state's journal: every change the dry run makes while a transaction is open is
recorded as (inverse operation, arguments), so that `rollback()` restores the state exactly.

Transactions nest: a pod's Reserve/PreBind runs inside one, a gang's members inside an outer
one (KEP-4671: all members or none). Outside any transaction nothing is recorded (the common
case: a single pod's claims from templates stay, as the resourceclaim controller's would).
"""

from __future__ import annotations

from typing import Any, Callable

_MISSING = object()


def _restore_attr(obj: Any, name: str, value: Any) -> None:
    setattr(obj, name, value)


def _restore_attrs(obj: Any, values: dict) -> None:
    for name, value in values.items():
        setattr(obj, name, value)


def _subtract_all(mapping: dict, deltas: dict) -> None:
    for key, delta in deltas.items():
        mapping[key] -= delta


def _restore_item(mapping: dict, key: Any, value: Any) -> None:
    if value is _MISSING:
        mapping.pop(key, None)
    else:
        mapping[key] = value


def _remove(items: list, item: Any) -> None:
    items.remove(item)


def _subtract(mapping: dict, key: Any, delta: Any) -> None:
    mapping[key] -= delta


class Journal:
    __slots__ = ("_entries", "_marks")

    def __init__(self) -> None:
        self._entries: list[tuple] = []
        self._marks: list[int] = []

    @property
    def active(self) -> bool:
        return bool(self._marks)

    # -- transactions --------------------------------------------------------------------------
    def begin(self) -> None:
        self._marks.append(len(self._entries))

    def commit(self) -> None:
        """Keep the changes; an enclosing transaction can still undo them."""
        self._marks.pop()
        if not self._marks:
            self._entries.clear()

    def rollback(self) -> int:
        """Undo every change since the matching begin(), newest first; how many there were."""
        mark = self._marks.pop()
        entries = self._entries
        undone = len(entries) - mark
        while len(entries) > mark:
            undo, args = entries.pop()
            undo(*args)
        return undone

    # -- changes -------------------------------------------------------------------------------
    def set_attr(self, obj: Any, name: str, value: Any) -> None:
        if self._marks:
            self._entries.append((_restore_attr, (obj, name, getattr(obj, name))))
        setattr(obj, name, value)

    def set_attrs(self, obj: Any, **values: Any) -> None:
        """Several attributes of one object, undone as one entry."""
        if self._marks:
            self._entries.append((_restore_attrs, (obj, {name: getattr(obj, name) for name in values})))
        for name, value in values.items():
            setattr(obj, name, value)

    def set_item(self, mapping: dict, key: Any, value: Any) -> None:
        if self._marks:
            self._entries.append((_restore_item, (mapping, key, mapping.get(key, _MISSING))))
        mapping[key] = value

    def pop_item(self, mapping: dict, key: Any) -> None:
        if self._marks:
            self._entries.append((_restore_item, (mapping, key, mapping.get(key, _MISSING))))
        mapping.pop(key, None)

    def append(self, items: list, item: Any) -> None:
        items.append(item)
        if self._marks:
            self._entries.append((_remove, (items, item)))

    def add(self, mapping: dict, key: Any, delta: Any) -> None:
        """mapping[key] += delta (a missing key counts as 0)."""
        mapping[key] = mapping.get(key, 0) + delta
        if self._marks:
            self._entries.append((_subtract, (mapping, key, delta)))

    def add_all(self, mapping: dict, deltas: dict) -> None:
        """mapping[key] += delta for every item of `deltas`, undone as one entry."""
        for key, delta in deltas.items():
            mapping[key] = mapping.get(key, 0) + delta
        if self._marks:
            self._entries.append((_subtract_all, (mapping, deltas)))

    def on_rollback(self, undo: Callable, *args: Any) -> None:
        """For state kept outside the dry run's objects (the allocator's committed devices)."""
        if self._marks:
            self._entries.append((undo, args))
