"""Immutable value classes that cost nothing to define at import time.

`@dataclass(frozen=True)` writes the source of `__init__`, `__repr__`, `__eq__`, `__hash__`,
`__setattr__` and `__delattr__` for every class and compiles each one on every start of the
interpreter (Python 3.11 runs one `exec` per method): about a millisecond per class on a busy
2-core machine, a tenth of `dractl allocate`'s start-up for the models alone
(docs/decisions/0005-performance-targets.md).

A `FrozenRecord` subclass lists its fields in `__slots__` (in dataclass field order) and writes
its own `__init__`, which is ordinary code and so compiled once into the .pyc. This base supplies
the rest with the semantics `@dataclass(frozen=True)` gives:

* `__eq__`: equal when the other object has exactly the same class and the tuples of the
  compared fields are equal, else NotImplemented; `__hash__`: the hash of that tuple.
  A class passing `eq=False` keeps object identity for both, as `@dataclass(eq=False)`.
* `__repr__`: `QualName(field=value!r, ...)` over the repr fields, recursion-safe.
* assigning or deleting any attribute raises `dataclasses.FrozenInstanceError`; `__init__` sets
  fields with `object.__setattr__`, as the generated dataclass `__init__` does.
* `__match_args__` is the tuple of `__init__` fields; copy and pickle work (slots state).

Class keywords: `eq=False` (identity equality), `hidden=("f", ...)` (fields left out of the
repr, like `field(repr=False)`), `derived=("f", ...)` (fields `__init__` computes rather than
takes, like `field(init=False)`: left out of `__match_args__`).
"""

from __future__ import annotations

import reprlib
from dataclasses import FrozenInstanceError
from operator import attrgetter


def _tuple_getter(names: tuple[str, ...]):
    """self -> the tuple of these attributes (attrgetter returns a bare value for one name)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


class FrozenRecord:
    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _repr_fields: tuple[str, ...] = ()

    def __init_subclass__(cls, eq: bool = True, hidden: tuple[str, ...] = (),
                          derived: tuple[str, ...] = (), **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        fields = cls.__dict__.get("__slots__", ())
        if isinstance(fields, str):
            fields = (fields,)
        cls._fields = tuple(fields)
        cls._repr_fields = tuple(f for f in cls._fields if f not in hidden)
        cls._values = staticmethod(_tuple_getter(cls._fields))
        cls._shown = staticmethod(_tuple_getter(cls._repr_fields))
        cls.__match_args__ = tuple(f for f in cls._fields if f not in derived)
        if not eq:
            cls.__eq__ = object.__eq__
            cls.__hash__ = object.__hash__

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values(self) == other._values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values(self))

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in
                          zip(self._repr_fields, self._shown(self), strict=True))
        return f"{self.__class__.__qualname__}({shown})"

    def __setattr__(self, name: str, value) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    # copy and pickle: the default slots protocol would restore state through __setattr__.
    def __getstate__(self) -> tuple:
        return self._values(self)

    def __setstate__(self, state: tuple) -> None:
        for name, value in zip(self._fields, state, strict=True):
            object.__setattr__(self, name, value)
