"""Compile dractl's CEL AST into nested Python closures and evaluate them.

Each node becomes a function ``f(env) -> value``; ``env`` is a dict of variables (``device`` plus
comprehension/bind variables) and, for metered programs, the cost counter under ``"@cost"``.
Errors are :class:`~dractl.cel.values.EvalError` exceptions; ``&&``, ``||``, ``?:`` and the
comprehension machinery absorb them the way cel-go treats error values.

Two flavours of every program exist:

* **unmetered** (default): used when the static worst-case cost estimate is within the limit, so
  the runtime limit can never be reached on inputs within the API's size limits;
* **metered**: charges cel-go's runtime cost per node and raises ``operation cancelled: actual
  cost limit exceeded`` as soon as the budget is spent. Used when the estimate exceeds the
  limit, and for devices whose data exceeds the API's size limits (the estimate does not hold).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from . import ast as A
from . import comprehensions
from . import functions as F
from .comprehensions import ErrBox as _ErrBox
from .freevars import free_idents
from .optionalvars import read_optional_variable
from .values import (
    BrokenValue,
    CelType,
    CostExceeded,
    DefaultMap,
    EvalError,
    Optional,
    UInt,
    cel_equal,
    present_value,
    type_name,
)

Fn = Callable[[dict], Any]

TYPE_IDENTS = {
    "int": CelType("int"), "uint": CelType("uint"), "double": CelType("double"),
    "bool": CelType("bool"), "string": CelType("string"), "bytes": CelType("bytes"),
    "list": CelType("list"), "map": CelType("map"), "null_type": CelType("null_type"),
    "type": CelType("type"), "dyn": CelType("dyn"), "optional_type": CelType("optional_type"),
    "google.protobuf.Timestamp": CelType("google.protobuf.Timestamp"),
    "google.protobuf.Duration": CelType("google.protobuf.Duration"),
}


class Meter:
    __slots__ = ("cost", "limit")

    def __init__(self, limit: int):
        self.cost = 0
        self.limit = limit

    def charge(self, n: int) -> None:
        self.cost += n
        if self.cost > self.limit:
            raise CostExceeded()


def _err(e: EvalError, offset: int) -> EvalError:
    if e.offset is None:
        e.offset = offset
    return e


def _strlen(v: Any) -> int:
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    return 1


def _factor(n: int, f: float) -> int:
    return int(math.ceil(n * f))


class Compiler:
    def __init__(self, metered: bool, scopes: list[str] | None = None, info: dict | None = None,
                 folds: dict | None = None, types: dict | None = None):
        self.metered = metered
        self.types = types or {}  # node id -> checker type, to recognise fixed-cost operators
        self.scopes: list[str] = scopes if scopes is not None else []
        self.info = info if info is not None else {}  # node id -> (is_const, static_cost)
        self.folds = folds if folds is not None else {}  # node id -> (value, cost) | None
        self.free_cache: dict = {}  # node id -> free identifiers (dractl/cel/freevars.py)

    def compile(self, node: A.Node) -> Fn:
        kind = node.kind
        if kind != "lit":
            const, static = self._analyse(node)
            if const:
                folded = self._fold(node)
                if folded is not None:
                    return folded
            if self.metered and static is not None and kind != "ident":
                inner = Compiler(False, self.scopes, self.info, self.folds, self.types).compile(node)

                def charged(env, inner=inner, static=static):
                    env["@cost"].charge(static)
                    return inner(env)
                return charged
        return getattr(self, "c_" + kind)(node)

    # -- static analysis: constant sub-expressions and fixed runtime costs --------------------
    def _analyse(self, node: A.Node) -> tuple[bool, int | None]:
        hit = self.info.get(node.id)
        if hit is not None:
            return hit
        kind = node.kind
        kids = [self._analyse(c) for c in node.children()]
        const = all(k[0] for k in kids)
        kid_cost = 0
        for k in kids:
            if k[1] is None:
                kid_cost = None
                break
            kid_cost += k[1]
        static: int | None
        if kind == "lit":
            const, static = True, 0
        elif kind == "ident":
            const = node.name in TYPE_IDENTS and node.name not in self.scopes
            static = 0 if const else 1
        elif kind == "select":
            static = None if kid_cost is None else kid_cost + (0 if node.test_only else 1)
        elif kind == "call":
            fn = node.function
            if fn in ("_&&_", "_||_", "_?_:_", "@not_strictly_false") or kid_cost is None:
                static = None
            elif fn in ("_[_]", "_[?_]", "!_"):
                static = kid_cost + 1
            elif fn in ("_==_", "_!=_", "_+_", "_<_", "_<=_", "_>_", "_>=_") and \
                    all(self._scalar(a) for a in node.args):
                static = kid_cost + 1  # scalar operands: fixed cost
            elif fn in ("_==_", "_!=_", "@in") or F.runtime_cost(fn) is not None:
                static = None  # depends on value sizes (constants are folded and measured)
            else:
                static = kid_cost + 1
        elif kind == "list":
            static = None if kid_cost is None else kid_cost + 10
        elif kind == "map":
            static = None if kid_cost is None else kid_cost + 30
        elif kind == "comprehension":  # constant when it reads nothing from outside itself
            free = free_idents(node, self.free_cache)
            const = free is not None and all(name in TYPE_IDENTS and name not in self.scopes
                                             for name in free)
            static = None
        else:  # structs
            const, static = False, None
        self.info[node.id] = (const, static)
        return const, static

    def _scalar(self, node: A.Node) -> bool:
        t = self.types.get(node.id)
        return t is not None and t.name in _SCALAR_TYPES and not t.params

    def _fold(self, node: A.Node) -> Fn | None:
        """Evaluate a constant sub-expression once (metered, so a huge constant such as
        ``lists.range(100000000)`` is not folded); metered programs still charge its cost."""
        if node.id in self.folds:
            r = self.folds[node.id]
        else:
            try:
                env = {"@cost": Meter(FOLD_COST_LIMIT)}
                value = Compiler(True, self.scopes, self.info, self.folds, self.types).c_dispatch(node)(env)
                r = (value, env["@cost"].cost)
            except Exception:  # errors stay lazy: they only matter if evaluated
                r = None
            self.folds[node.id] = r
        if r is None:
            return None
        value, cost = r
        if self.metered and cost:
            def const_charged(env, value=value, cost=cost):
                env["@cost"].charge(cost)
                return value
            return const_charged
        return lambda env, value=value: value

    def c_dispatch(self, node: A.Node) -> Fn:
        return getattr(self, "c_" + node.kind)(node)

    # -- leaves ------------------------------------------------------------------------------
    def c_lit(self, n: A.Lit) -> Fn:
        v = n.value
        return lambda env: v

    def c_ident(self, n: A.Ident) -> Fn:
        name, off = n.name, n.offset
        metered = self.metered
        if name in self.scopes or name == "device":
            def ident(env):
                if metered:
                    env["@cost"].charge(1)
                try:
                    v = env[name]
                except KeyError:
                    raise EvalError(f"no such attribute: {name}", off) from None
                tv = type(v)
                if tv is Optional:  # cel-go re-converts a variable's optional (optionalvars)
                    return read_optional_variable(v)
                if tv is _ErrBox:
                    raise v.err
                if tv is BrokenValue:  # an error value stored in a list/map
                    raise EvalError(v.message, off)
                return v
            return ident
        if name in TYPE_IDENTS:
            t = TYPE_IDENTS[name]
            return lambda env: t
        def undeclared(env):
            raise EvalError(f"no such attribute: {name}", off)
        return undeclared

    # -- select / index ----------------------------------------------------------------------
    def c_select(self, n: A.Select) -> Fn:
        q = _qualified(n)
        if q is not None and q in TYPE_IDENTS and q.split(".")[0] not in self.scopes:
            t = TYPE_IDENTS[q]
            return lambda env: t
        operand = self.compile(n.operand)
        field, off, metered = n.field, n.offset, self.metered
        if n.test_only:
            def has(env):
                o = operand(env)
                if type(o) is DefaultMap:
                    return True
                if isinstance(o, dict):
                    return field in o
                if type(o) is Optional:
                    if not o.present:
                        return False
                    o = present_value(o)
                    if isinstance(o, dict):
                        return type(o) is DefaultMap or field in o
                raise EvalError("no such overload", off)
            return has
        if n.optional:
            def opt_select(env):
                o = operand(env)
                if metered:
                    env["@cost"].charge(1)
                if type(o) is Optional:
                    if not o.present:
                        return o
                    o = present_value(o)
                if type(o) is DefaultMap:
                    return Optional(o.lookup(field))
                if isinstance(o, dict):
                    if field in o:
                        return Optional(o[field])
                    return Optional.NONE
                raise EvalError("no such overload", off)
            return opt_select

        def select(env):
            o = operand(env)
            if metered:
                env["@cost"].charge(1)
            if type(o) is DefaultMap:
                return o.lookup(field)
            if isinstance(o, dict):
                try:
                    return o[field]
                except KeyError:
                    raise EvalError(f"no such key: {field}", off) from None
            raise EvalError("no such overload", off)
        return select

    def _index(self, n: A.Call, optional: bool) -> Fn:
        operand = self.compile(n.args[0])
        index = self.compile(n.args[1])
        off, metered = n.offset, self.metered

        def idx(env):
            o = operand(env)
            k = index(env)
            if metered:
                env["@cost"].charge(1)
            return F.index_value(o, k, optional, off)
        return idx

    # -- calls -------------------------------------------------------------------------------
    def c_call(self, n: A.Call) -> Fn:
        special = _SPECIAL.get(n.function)
        if special is not None:
            return getattr(self, special)(n)
        return self._generic_call(n)

    def _generic_call(self, n: A.Call) -> Fn:
        fn, off, metered = n.function, n.offset, self.metered
        impl = F.lookup(fn)
        argf = ([self.compile(n.target)] if n.target is not None else []) + \
            [self.compile(a) for a in n.args]
        coster = F.runtime_cost(fn) if metered else None
        if impl is None:
            def missing(env):
                raise EvalError(f"no such overload: {fn}", off)
            return missing
        if len(argf) == 0:
            def call0(env):
                if metered:
                    env["@cost"].charge(1)
                try:
                    return impl()
                except EvalError as e:
                    raise _err(e, off) from None
            return call0
        if len(argf) == 1:
            a0 = argf[0]

            def call1(env):
                x = a0(env)
                if metered:
                    env["@cost"].charge(coster(x) if coster else 1)
                try:
                    return impl(x)
                except EvalError as e:
                    raise _err(e, off) from None
                except (TypeError, AttributeError, ValueError):
                    raise EvalError("no such overload", off) from None
            return call1
        if len(argf) == 2:
            a0, a1 = argf

            def call2(env):
                x, y = a0(env), a1(env)
                if metered:
                    env["@cost"].charge(coster(x, y) if coster else 1)
                try:
                    return impl(x, y)
                except EvalError as e:
                    raise _err(e, off) from None
                except (TypeError, AttributeError, ValueError):
                    raise EvalError("no such overload", off) from None
            return call2

        def calln(env):
            vals = [a(env) for a in argf]
            if metered:
                env["@cost"].charge(coster(*vals) if coster else 1)
            try:
                return impl(*vals)
            except EvalError as e:
                raise _err(e, off) from None
            except (TypeError, AttributeError, ValueError):
                raise EvalError("no such overload", off) from None
        return calln

    def f_index(self, n: A.Call) -> Fn:
        return self._index(n, False)

    def f_opt_index(self, n: A.Call) -> Fn:
        return self._index(n, True)

    def _logic(self, n: A.Call, is_and: bool) -> Fn:
        left = self.compile(n.args[0])
        right = self.compile(n.args[1])
        off = n.offset
        short = not is_and  # value that short-circuits: false for &&, true for ||

        def logic(env):
            lerr = None
            try:
                lv = left(env)
                if type(lv) is not bool:
                    raise EvalError("no such overload", off)
                if lv is short:
                    return short
            except CostExceeded:
                raise
            except EvalError as e:
                lerr = e
            try:
                rv = right(env)
                if type(rv) is not bool:
                    raise EvalError("no such overload", off)
            except CostExceeded:
                raise
            except EvalError:
                if lerr is not None:
                    raise lerr from None
                raise
            if rv is short:
                return short
            if lerr is not None:
                raise lerr
            return rv
        return logic

    def f_and(self, n):
        return self._logic(n, True)

    def f_or(self, n):
        return self._logic(n, False)

    def f_ternary(self, n: A.Call) -> Fn:
        cond = self.compile(n.args[0])
        a = self.compile(n.args[1])
        b = self.compile(n.args[2])
        off = n.offset

        def ternary(env):
            c = cond(env)
            if c is True:
                return a(env)
            if c is False:
                return b(env)
            raise EvalError("no such overload", off)
        return ternary

    def f_not(self, n: A.Call) -> Fn:
        x = self.compile(n.args[0])
        off, metered = n.offset, self.metered

        def not_(env):
            v = x(env)
            if metered:
                env["@cost"].charge(1)
            if type(v) is bool:
                return not v
            raise EvalError("no such overload", off)
        return not_

    def f_nsf(self, n: A.Call) -> Fn:
        x = self.compile(n.args[0])
        metered = self.metered

        def nsf(env):
            if metered:
                env["@cost"].charge(1)
            try:
                v = x(env)
            except CostExceeded:
                raise
            except EvalError:
                return True
            return v is not False
        return nsf

    def f_eq(self, n):
        return self._eq(n, False)

    def f_ne(self, n):
        return self._eq(n, True)

    def _eq(self, n: A.Call, negate: bool) -> Fn:
        left = self.compile(n.args[0])
        right = self.compile(n.args[1])
        metered = self.metered

        def eq(env):
            a, b = left(env), right(env)
            if metered:
                env["@cost"].charge(F.cost_compare(a, b))
            if type(a) is type(b) and type(a) in (str, int, bool):
                r = a == b
            else:
                try:
                    r = cel_equal(a, b)
                except EvalError:
                    if negate:  # cel-go: `!=` is Equal(a, b) != true, so an error value is true
                        return True
                    raise
            return (not r) if negate else r
        return eq

    def f_in(self, n: A.Call) -> Fn:
        elem = self.compile(n.args[0])
        container = self.compile(n.args[1])
        off, metered = n.offset, self.metered

        def in_(env):
            e, c = elem(env), container(env)
            if metered:
                env["@cost"].charge(len(c) if isinstance(c, (list, tuple)) else 1)
            try:
                return F.op_in(e, c)
            except EvalError as err:
                raise _err(err, off) from None
        return in_

    # -- aggregates --------------------------------------------------------------------------
    def c_list(self, n: A.ListLit) -> Fn:
        elems = [self.compile(e) for e in n.elements]
        opt = set(n.optional_indices)
        off, metered = n.offset, self.metered
        if not elems:
            def empty(env):
                if metered:
                    env["@cost"].charge(10)
                return []
            return empty
        if not opt:
            def lst(env):
                out = [e(env) for e in elems]
                if metered:
                    env["@cost"].charge(10)
                return out
            return lst

        def optlist(env):
            out = []
            for i, e in enumerate(elems):
                v = e(env)
                if i in opt:
                    if type(v) is not Optional:
                        raise EvalError("no such overload", off)
                    if v.present:
                        out.append(v.value)
                else:
                    out.append(v)
            if metered:
                env["@cost"].charge(10)
            return out
        return optlist

    def c_map(self, n: A.MapLit) -> Fn:
        entries = [(self.compile(k), self.compile(v), o, eoff) for k, v, o, eoff in n.entries]
        metered = self.metered

        def mp(env):
            out: dict = {}
            for k, v, o, eoff in entries:
                kv = k(env)
                if type(kv) not in (str, int, UInt, bool):
                    raise EvalError(f"unsupported map key type: {type_name(kv)}", eoff)
                vv = v(env)
                if o:
                    if type(vv) is not Optional:
                        raise EvalError("no such overload", eoff)
                    if not vv.present:
                        continue
                    vv = vv.value
                nk = F.map_key(kv)
                if nk in out:
                    raise EvalError(f"Failed with repeated key: {kv}", eoff)
                out[nk] = vv
            if metered:
                env["@cost"].charge(30)
            return out
        return mp

    def c_struct(self, n: A.Struct) -> Fn:
        name, off = n.type_name, n.offset

        def struct(env):
            raise EvalError(f"unknown type: {name}", off)
        return struct

    # -- comprehensions (dractl/cel/comprehensions.py) ---------------------------------------
    def c_comprehension(self, n: A.Comprehension) -> Fn:
        if n.macro == "cel.bind":
            return comprehensions.bind(self, n)
        if FAST_MACROS and (n.macro in ("all", "exists", "exists_one") or
                            n.macro in ("map", "filter") and not n.iter_var2):
            return comprehensions.fast_macro(self, n)
        return comprehensions.generic(self, n)


def _qualified(n: A.Node) -> str | None:
    if isinstance(n, A.Ident):
        return n.name
    if isinstance(n, A.Select) and not n.test_only and not n.optional:
        left = _qualified(n.operand)
        return None if left is None else left + "." + n.field
    return None


# A constant sub-expression is evaluated once, at compile time, if it costs at most this: the
# runtime limit (an expression the API server accepts costs no more; a 400x400 constant loop
# under the static limit is 0.3 s once, instead of that on every device).
FOLD_COST_LIMIT = 1_000_000
FAST_MACROS = True  # tests switch this off to compare with the generic comprehension

_SPECIAL = {
    "_[_]": "f_index", "_[?_]": "f_opt_index", "_&&_": "f_and", "_||_": "f_or",
    "_?_:_": "f_ternary", "!_": "f_not", "@not_strictly_false": "f_nsf", "_==_": "f_eq",
    "_!=_": "f_ne", "@in": "f_in",
}


_SCALAR_TYPES = {"int", "uint", "double", "bool", "google.protobuf.Timestamp",
                 "google.protobuf.Duration", "null_type"}


def compile_program(node: A.Node, metered: bool, types: dict | None = None) -> Fn:
    return Compiler(metered, types=types).compile(node)
