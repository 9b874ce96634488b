"""Reading an optional from a comprehension variable, the way kube-scheduler's cel-go does it.

Upstream mechanism (cel-go v0.27.0, the version kube-scheduler's DRA plugin is built with):
a variable reference is an *absolute attribute* (``interpreter/attributes.go``). When the
variable's value is a present ``*types.Optional``, ``applyQualifiers`` replaces it with
``optional.GetValue().Value()`` -- the wrapped value's *native Go* value -- and the attribute
converts that back with ``adapter.NativeToValue`` before re-wrapping it in ``types.OptionalOf``.
Variables holding optionals exist only inside comprehensions (``cel.bind``, ``exists``, ``all``,
``map``, ``filter``, two-variable forms): ``device`` is never an optional.

The round trip is lossless for CEL's own types (ints, strings, lists, maps, timestamps, ...). For
the Kubernetes library types ``Value()`` returns a Go type the type registry does not know
(``semver.Version``, ``*resource.Quantity``, ``netip.Addr``, ``netip.Prefix``, ``*url.URL``), so
``NativeToValue`` returns the error value ``unsupported conversion to ref.Val: (<Go type>)<%v>``
and the variable reads as ``optional.of(<error>)``: ``hasValue()`` is still true, but taking the
value out (``value()``, ``orValue()``, ``optMap``, ``==``) yields that error. cel-go fixed this
after v0.27 (commit 924f6d51, "Fix unintentional unwrapping of optionals", #1315), so the rule is
tied to the upstream version dractl models.

Other effects of the same round trip, modelled here too: ``optional.of(optional.of(x))`` read
through a variable loses one level (``Optional.Value()`` is the inner value's ``Value()``), an
empty inner optional becomes ``null``, a type value becomes its name (``Type.Value()`` is the
type name string), and ``device.attributes``/``device.capacity`` lose their empty-map default
(the wrapper's ``Value()`` is the plain Go map).
"""

from __future__ import annotations

from typing import Any

from .k8stypes import CelQuantity, Semver
from .netlib import CIDR, URL, IPAddr
from .values import BrokenValue, CelType, DefaultMap, Optional

# Python type of a library value -> the Go type its Value() returns (as fmt's %T prints it).
GO_NATIVE_TYPES: dict[type, str] = {
    Semver: "semver.Version",
    CelQuantity: "*resource.Quantity",
    IPAddr: "netip.Addr",
    CIDR: "netip.Prefix",
    URL: "*url.URL",
}

# Values whose native round trip is the identity (checked first: the common case).
_LOSSLESS = frozenset({bool, int, float, str, bytes, list, tuple, dict, type(None)})

UNSUPPORTED = "unsupported conversion to ref.Val: "


def _go_text(value: Any) -> str:
    """What Go's %v prints for the native value: its String() form."""
    if type(value) is URL:
        return value.text
    return str(value)


def native_round_trip(value: Any) -> Any:
    """``NativeToValue(v.Value())`` for a value wrapped in an optional."""
    t = type(value)
    if t in _LOSSLESS:
        return value
    go_type = GO_NATIVE_TYPES.get(t)
    if go_type is not None:
        return BrokenValue(f"{UNSUPPORTED}({go_type}){_go_text(value)}")
    if t is Optional:
        return native_round_trip(value.value) if value.present else None
    if t is BrokenValue:  # Err.Value() is the Go error itself
        return BrokenValue(f"{UNSUPPORTED}(*errors.errorString){value.message}")
    if t is CelType:
        return value.name
    if t is DefaultMap:
        return dict(value)
    return value


def read_optional_variable(opt: Optional) -> Optional:
    """The value a reference to a comprehension variable holding ``opt`` evaluates to."""
    if not opt.present:
        return opt
    inner = opt.value
    if type(inner) in _LOSSLESS:
        return opt
    return Optional(native_round_trip(inner))


def breaks_in_variable(value: Any) -> str | None:
    """The Go type name if an optional holding ``value`` fails once read from a variable."""
    return GO_NATIVE_TYPES.get(type(value))
