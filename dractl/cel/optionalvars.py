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

from dataclasses import dataclass
from typing import Any

from . import ast as A
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


# --- static detection (dractl's own lint, see dractl/validate/cellints.py) --------------------

# Checker type names of the library values whose optional breaks in a variable.
LIBRARY_TYPES = {"kubernetes.Semver": "semver", "kubernetes.Quantity": "quantity",
                 "net.IP": "ip", "net.CIDR": "cidr", "kubernetes.URL": "url"}
_TAKE_OUT = ("value", "orValue")


@dataclass(frozen=True)
class BrokenRead:
    """A read of a comprehension variable that kube-scheduler's cel-go turns into an error."""

    offset: int  # of the variable reference
    variable: str
    binder: str  # cel.bind, exists, all, map, ...
    library: str  # semver, quantity, ... ("" when inferred from a dyn attribute's use)


def find_broken_reads(node: A.Node, types: dict) -> list[BrokenRead]:
    """Every reference to a comprehension variable holding an optional of a library value whose
    wrapped value is taken out (the reads that fail upstream; ``hasValue()`` does not).

    ``types`` is the checker's node id -> type map. An optional of ``dyn`` (an attribute: its
    type is only known from the data) counts when the taken-out value is used as a library value
    (``.minor()``, ``.isGreaterThan(...)``, compared with ``semver(...)``, ...).
    """
    parents = _parents(node)
    found: list[BrokenRead] = []
    for ident, binder in _variable_references(node):
        t = types.get(ident.id)
        if t is None or t.name != "optional_type" or not t.params:
            continue
        library = LIBRARY_TYPES.get(t.params[0].name)
        if library is None and t.params[0].name != "dyn":
            continue
        taken = _taken_out(ident, parents)
        if taken is None:
            continue
        if library is None and not _used_as_library_value(taken, parents, types):
            continue
        found.append(BrokenRead(ident.offset, ident.name, binder, library or ""))
    return sorted(set(found), key=lambda r: r.offset)


def _parents(root: A.Node) -> dict[int, A.Node]:
    parents: dict[int, A.Node] = {}
    for n in A.walk(root):
        for c in n.children():
            parents[id(c)] = n
    return parents


def _variable_references(root: A.Node):
    """(ident, binder macro) for every identifier bound by an enclosing comprehension."""
    stack: list[tuple[A.Node, dict]] = [(root, {})]
    while stack:
        n, scope = stack.pop()
        if isinstance(n, A.Ident):
            if n.name in scope:
                yield n, scope[n.name]
            continue
        if isinstance(n, A.Comprehension):
            binder = n.macro or "comprehension"
            inner = {**scope, n.accu_var: binder, n.iter_var: binder}
            if n.iter_var2:
                inner[n.iter_var2] = binder
            stack.append((n.iter_range, scope))
            stack.append((n.accu_init, scope))
            for c in (n.loop_cond, n.loop_step, n.result):
                stack.append((c, inner))
            continue
        for c in n.children():
            stack.append((c, scope))


def _taken_out(ident: A.Node, parents: dict) -> A.Node | None:
    """The node holding the optional's value once taken out of the variable's optional, or the
    reference itself for uses that read the value directly (``==``); None for ``hasValue()``."""
    node, parent = ident, parents.get(id(ident))
    while isinstance(parent, A.Call) and parent.target is node and parent.function == "or":
        node, parent = parent, parents.get(id(parent))  # v.or(w) is v itself when v is present
    if isinstance(parent, A.Call) and parent.target is node:
        if parent.function in _TAKE_OUT:
            return parent
        if parent.function == "hasValue":
            return None
    if isinstance(parent, A.Call) and parent.function == "_==_":
        return ident  # `!=` is Equal() != true upstream: no error
    return None


def _used_as_library_value(node: A.Node, parents: dict, types: dict) -> bool:
    parent = parents.get(id(node))
    if not isinstance(parent, A.Call):
        if isinstance(parent, A.Comprehension) and parent.macro == "cel.bind" and \
                parent.accu_init is node:  # optMap: cel.bind(x, v.value(), body)
            return any(_used_as_library_value(ref, parents, types)
                       for ref in _references_to(parent.result, parent.accu_var))
        return False
    if parent.target is node and parent.function in _LIBRARY_ONLY_METHODS:
        return True
    others = [a for a in ([parent.target] if parent.target is not None else []) + parent.args
              if a is not node]
    return any(_library_typed(types.get(o.id)) for o in others)


def _references_to(root: A.Node, name: str) -> list[A.Node]:
    return [n for n in A.walk(root) if isinstance(n, A.Ident) and n.name == name]


def _library_typed(t) -> bool:
    return t is not None and (t.name in LIBRARY_TYPES or
                              (t.name == "optional_type" and bool(t.params) and
                               t.params[0].name in LIBRARY_TYPES))


# Member functions declared only on library receivers (semver, quantity, ip, cidr, url).
_LIBRARY_ONLY_METHODS = frozenset({
    "major", "minor", "patch", "isGreaterThan", "isLessThan", "compareTo", "asInteger",
    "asApproximateFloat", "isInteger", "add", "sub", "mul", "div", "divInt", "family",
    "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
    "isGlobalUnicast", "containsIP", "containsCIDR", "ip", "masked", "prefixLength",
    "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery",
})
