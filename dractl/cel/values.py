"""Runtime value model of dractl's CEL engine.

CEL values are plain Python objects wherever possible, so evaluation is fast:

=============  ===========================================================
CEL type       Python representation
=============  ===========================================================
bool           ``bool``
int            ``int`` (64-bit range enforced by the arithmetic functions)
uint           :class:`UInt` (``int`` subclass)
double         ``float``
string         ``str``
bytes          ``bytes``
null_type      ``None``
list           ``list`` or ``tuple``
map            ``dict`` (or :class:`DefaultMap` for ``device.attributes``)
type           :class:`CelType`
optional       :class:`Optional`
Quantity       :class:`CelQuantity` (exact; wraps dractl.api.quantity)
Semver         :class:`Semver`
=============  ===========================================================

Errors are Python exceptions (:class:`EvalError`); the logical operators and comprehensions catch
them where CEL treats errors as values.
"""

from __future__ import annotations

import math
from typing import Any

INT64_MIN = -(2 ** 63)
INT64_MAX = 2 ** 63 - 1
UINT64_MAX = 2 ** 64 - 1


class EvalError(Exception):
    """A CEL runtime error (an error *value* in cel-go); message uses cel-go wording."""

    def __init__(self, message: str, offset: int | None = None):
        super().__init__(message)
        self.message = message
        self.offset = offset


class CostExceeded(EvalError):
    """Runtime cost budget exhausted. Never absorbed by && / || (cel-go cancels evaluation)."""

    def __init__(self) -> None:
        super().__init__("operation cancelled: actual cost limit exceeded")


def no_such_overload(*args: Any) -> EvalError:
    return EvalError("no such overload")


class UInt(int):
    """CEL uint: a distinct type with the same Python arithmetic."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


class CelType:
    """A CEL type value (result of ``type(x)`` or the identifiers ``int``, ``string``, ...)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("type", self.name))

    def __repr__(self) -> str:
        return self.name


class Optional:
    """CEL optional value. ``Optional.NONE`` is the empty optional."""

    __slots__ = ("value", "present")
    NONE: "Optional"

    def __init__(self, value: Any = None, present: bool = True):
        self.value = value
        self.present = present

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Optional):
            return False
        if self.present != other.present:
            return False
        return not self.present or _optional_equal(self.value, other.value)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.present else "optional.none()"


Optional.NONE = Optional(None, False)


class BrokenValue:
    """An error *value* held inside a present optional (see :mod:`dractl.cel.optionalvars`).

    kube-scheduler's cel-go re-converts an optional read from a comprehension variable and, for
    Kubernetes library values, the conversion yields an error value that cel-go wraps in the
    optional instead of failing. The error surfaces only when the wrapped value is taken out.
    """

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message

    def __repr__(self) -> str:
        return f"<error: {self.message}>"


def present_value(o: Optional) -> Any:
    """The value of a present optional; raises the error value a :class:`BrokenValue` stands for."""
    v = o.value
    if type(v) is BrokenValue:
        raise EvalError(v.message)
    return v


# Library types whose Equal() returns the other operand when it is an error value (cel-go's
# MaybeNoSuchOverloadErr / ValOrErr); every other type answers false.
_EQUAL_PASSES_ERRORS = {"kubernetes.Semver", "net.IP", "net.CIDR", "kubernetes.URL",
                        "kubernetes.NamedFormat"}


def _optional_equal(a: Any, b: Any) -> bool:
    if type(a) is BrokenValue:
        raise EvalError(a.message)
    if type(b) is BrokenValue:
        if getattr(a, "CEL_TYPE", None) in _EQUAL_PASSES_ERRORS:
            raise EvalError(b.message)
        return False
    return cel_equal(a, b)


class DefaultMap(dict):
    """``device.attributes`` / ``device.capacity``: an unknown domain yields an empty map.

    ``in``, ``size()`` and iteration see only the real keys (like upstream's mapper wrapper, whose
    Find() returns the default but Contains/Size/Iterator are the wrapped map's).
    """

    __slots__ = ()
    EMPTY: dict = {}

    def lookup(self, key: Any) -> Any:
        return self.get(key, DefaultMap.EMPTY)


# --- type names ------------------------------------------------------------------------------

def type_name(v: Any) -> str:
    """The CEL type name of a runtime value, as cel-go prints it (``int``, ``list``, ...)."""
    t = type(v)
    if t is bool:
        return "bool"
    if t is int:
        return "int"
    if t is UInt:
        return "uint"
    if t is float:
        return "double"
    if t is str:
        return "string"
    if t is bytes:
        return "bytes"
    if v is None:
        return "null_type"
    if t is list or t is tuple:
        return "list"
    if isinstance(v, dict):
        return "map"
    if t is CelType:
        return "type"
    if t is Optional:
        return "optional_type"
    name = getattr(v, "CEL_TYPE", None)
    if name:
        return name
    return t.__name__


# The Go type names cel-go prints in some errors ("got 'types.Int', expected iterable type").
_GO_TYPE_NAMES = {
    "bool": "types.Bool", "int": "types.Int", "uint": "types.Uint", "double": "types.Double",
    "string": "types.String", "bytes": "types.Bytes", "null_type": "types.Null",
    "type": "*types.Type", "optional_type": "*types.Optional",
    "kubernetes.Semver": "cel.Semver", "kubernetes.Quantity": "cel.Quantity",
    "google.protobuf.Timestamp": "types.Timestamp", "google.protobuf.Duration": "types.Duration",
}


def go_type_name(v: Any) -> str:
    return _GO_TYPE_NAMES.get(type_name(v), type_name(v))


# --- equality / ordering (CEL semantics with heterogeneous numeric equality) -----------------

def _is_num(v: Any) -> bool:
    t = type(v)
    return t is int or t is UInt or t is float


def cel_equal(a: Any, b: Any) -> bool:
    """CEL ``==``: heterogeneous runtime equality (different types -> false, numbers by value)."""
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is float:
            return a == b  # NaN != NaN
        if ta is list or ta is tuple:
            return _list_equal(a, b)
        if isinstance(a, dict):
            return _map_equal(a, b)
        return a == b
    if ta is bool or tb is bool:
        return False
    if _is_num(a) and _is_num(b):
        if ta is float or tb is float:
            return float(a) == float(b) if not (isinstance(a, float) and math.isnan(a)) else False
        return int(a) == int(b)
    if (ta is list or ta is tuple) and (tb is list or tb is tuple):
        return _list_equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return _map_equal(a, b)
    return False


def _list_equal(a: Any, b: Any) -> bool:
    if len(a) != len(b):
        return False
    return all(_element_equal(x, y) for x, y in zip(a, b, strict=True))


def _element_equal(a: Any, b: Any) -> bool:
    """Element equality inside list/map ``==``: cel-go stops only at a false element result, so an
    element comparison that yields an error value counts as equal."""
    try:
        return cel_equal(a, b)
    except EvalError:
        return True


def equal_or_false(a: Any, b: Any) -> bool:
    """Equality where cel-go keeps only a true Bool (list ``in``, ``includes``): errors are false."""
    try:
        return cel_equal(a, b)
    except EvalError:
        return False


def _map_equal(a: dict, b: dict) -> bool:
    if len(a) != len(b):
        return False
    for k, v in a.items():
        found = False
        for k2, v2 in b.items():
            if cel_equal(k, k2):
                if not _element_equal(v, v2):
                    return False
                found = True
                break
        if not found:
            return False
    return True


def cel_compare(a: Any, b: Any) -> int:
    """Ordering for ``<`` etc. (cross-type numeric comparisons enabled). Raises no such overload."""
    ta, tb = type(a), type(b)
    if ta is tb and ta in (int, UInt, float, str, bytes, bool):
        return (a > b) - (a < b)
    if _is_num(a) and _is_num(b):
        if ta is float or tb is float:
            fa, fb = float(a), float(b)
            return (fa > fb) - (fa < fb)
        return (a > b) - (a < b)
    cmp = getattr(a, "cel_compare", None)
    if cmp is not None and type(b) is ta:
        return cmp(b)
    raise no_such_overload()
