"""A static type checker for DRA selectors, modelled on cel-go's checker.

It reproduces the compile errors Kubernetes reports (wording of cel-go):

* ``undeclared reference to 'x' (in container '')`` for unknown identifiers and functions;
* ``undefined field 'x'`` for unknown fields of ``device``;
* ``found no matching overload for 'f' applied to '(int, string)'`` (member calls print the
  receiver type first: ``'string.(int)'``);
* ``expected type 'int' but found 'string'`` for heterogeneous list/map literals;
* ``type 'int' does not support field selection``;
* compile-time validation of regex literals;
* the result type rule of ``compile.go``: ``must evaluate to bool or the unknown type, not int``.

It records the type of every node (``types``: node id -> :class:`T`), which the cost estimator
uses. Declarations follow the StoredExpressions environment of the allocator (all libraries,
whatever the feature gates say); ``new_expressions=True`` applies the NewExpressions gating
(``includes`` and ``allowMultipleAllocations`` only with their gates).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ast as A
from .errors import CelCompileError
from .libs import declarations as LIBRARY_DECLARATIONS
from .parser import line_col
from .regex import check_pattern


class T:
    __slots__ = ("name", "params", "is_param")

    def __init__(self, name: str, params: tuple = (), is_param: bool = False):
        self.name, self.params, self.is_param = name, tuple(params), is_param

    def __eq__(self, o):
        return isinstance(o, T) and o.name == self.name and o.params == self.params and \
            o.is_param == self.is_param

    def __hash__(self):
        return hash((self.name, self.params, self.is_param))

    def __str__(self):
        if self.name == "type" and self.params:
            return f"type({self.params[0]})"
        if self.params:
            return f"{self.name}(" + ", ".join(str(p) for p in self.params) + ")"
        return self.name

    __repr__ = __str__


BOOL, INT, UINT, DOUBLE, STRING, BYTES = (T("bool"), T("int"), T("uint"), T("double"),
                                          T("string"), T("bytes"))
NULL, DYN, ERROR = T("null_type"), T("dyn"), T("*error*")
QUANTITY, SEMVER = T("kubernetes.Quantity"), T("kubernetes.Semver")
TIMESTAMP, DURATION = T("google.protobuf.Timestamp"), T("google.protobuf.Duration")
URL_T, IP_T, CIDR_T, FORMAT_T = T("kubernetes.URL"), T("net.IP"), T("net.CIDR"), T("kubernetes.NamedFormat")
DEVICE = T("kubernetes.DRADevice")


def LIST(e: T) -> T:
    return T("list", (e,))


def MAP(k: T, v: T) -> T:
    return T("map", (k, v))


def OPT(e: T) -> T:
    return T("optional_type", (e,))


def TYPE(e: T) -> T:
    return T("type", (e,))


# --- declarations -----------------------------------------------------------------------------

_SIMPLE = {"bool": BOOL, "int": INT, "uint": UINT, "double": DOUBLE, "string": STRING,
           "bytes": BYTES, "null": NULL, "dyn": DYN, "Q": QUANTITY, "V": SEMVER,
           "ts": TIMESTAMP, "dur": DURATION, "URL": URL_T, "IP": IP_T, "CIDR": CIDR_T,
           "Fmt": FORMAT_T}


def _ty(s: str) -> T:
    s = s.strip()
    if s in _SIMPLE:
        return _SIMPLE[s]
    if len(s) == 1 and s.isupper():
        return T(s, is_param=True)
    name, paren, rest = s.partition("(")
    if not paren:
        raise ValueError(f"unknown type in declaration: {s!r}")
    inner = rest[:-1]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    parts.append(cur)
    ps = tuple(_ty(p) for p in parts)
    if name == "list":
        return T("list", ps)
    if name == "map":
        return T("map", ps)
    if name == "opt":
        return T("optional_type", ps)
    if name == "type":
        return T("type", ps)
    raise ValueError(s)


@dataclass(frozen=True)
class Overload:
    member: bool
    params: tuple  # for members params[0] is the receiver type
    result: T


FUNCS: dict[str, list[Overload]] = {}


def _decl(sig: str) -> None:
    """``name(args) -> r`` (global) or ``recv.name(args) -> r`` (member); ``|`` separates overloads."""
    for one in sig.split(" | "):
        lhs, _, res = one.partition("->")
        lhs = lhs.strip()
        depth, paren = 0, len(lhs) - 1
        for paren in range(len(lhs) - 1, -1, -1):
            depth += lhs[paren] == ")"
            depth -= lhs[paren] == "("
            if depth == 0:
                break
        head, args = lhs[:paren], lhs[paren + 1:-1]
        member = False
        if "." in head and not head.startswith(("sets.", "strings.", "lists.", "optional.",
                                                 "format.", "ip.", "cel.")):
            recv, _, name = head.rpartition(".")
            member = True
        else:
            recv, name = "", head
        params: list[T] = []
        if member:
            params.append(_ty(recv))
        depth, cur = 0, ""
        for ch in args:
            if ch == "," and depth == 0:
                params.append(_ty(cur))
                cur = ""
                continue
            depth += ch == "("
            depth -= ch == ")"
            cur += ch
        if cur.strip():
            params.append(_ty(cur))
        FUNCS.setdefault(name, []).append(Overload(member, tuple(params), _ty(res)))


for _s in [
    # operators
    "!_(bool) -> bool", "-_(int) -> int", "-_(double) -> double", "-_(dur) -> dur",
    "_+_(int,int) -> int", "_+_(uint,uint) -> uint", "_+_(double,double) -> double",
    "_+_(string,string) -> string", "_+_(bytes,bytes) -> bytes", "_+_(list(A),list(A)) -> list(A)",
    "_+_(ts,dur) -> ts", "_+_(dur,ts) -> ts", "_+_(dur,dur) -> dur",
    "_-_(int,int) -> int", "_-_(uint,uint) -> uint", "_-_(double,double) -> double",
    "_-_(ts,ts) -> dur", "_-_(ts,dur) -> ts", "_-_(dur,dur) -> dur",
    "_*_(int,int) -> int", "_*_(uint,uint) -> uint", "_*_(double,double) -> double",
    "_/_(int,int) -> int", "_/_(uint,uint) -> uint", "_/_(double,double) -> double",
    "_%_(int,int) -> int", "_%_(uint,uint) -> uint",
    "_==_(A,A) -> bool", "_!=_(A,A) -> bool",
    "@in(A,list(A)) -> bool", "@in(A,map(A,B)) -> bool",
    "_&&_(bool,bool) -> bool", "_||_(bool,bool) -> bool", "_?_:_(bool,A,A) -> A",
    "@not_strictly_false(bool) -> bool",
]:
    _decl(_s)

for _s in [
    # DRA
    "dyn.includes(dyn) -> bool",
    # comprehension helper (transformMap)
    "cel.@mapInsert(map(K,W),K,W) -> map(K,W)", "cel.@mapInsert(map(K,W),map(K,W)) -> map(K,W)",
]:
    _decl(_s)
for _s in LIBRARY_DECLARATIONS():  # the libraries of dractl/cel/libs/
    _decl(_s)

TYPE_IDENT_TYPES = {
    "int": INT, "uint": UINT, "double": DOUBLE, "bool": BOOL, "string": STRING, "bytes": BYTES,
    "null_type": NULL, "dyn": DYN, "list": LIST(DYN), "map": MAP(DYN, DYN),
    "type": TYPE(DYN), "optional_type": OPT(DYN),
    "google.protobuf.Timestamp": TIMESTAMP, "google.protobuf.Duration": DURATION,
}

ATTR_VALUE = DYN
ATTRIBUTES_T = MAP(STRING, MAP(STRING, ATTR_VALUE))
CAPACITY_T = MAP(STRING, MAP(STRING, QUANTITY))


def device_fields(new_expressions: bool = False, consumable_capacity: bool = True) -> dict[str, T]:
    f = {"driver": STRING, "attributes": ATTRIBUTES_T, "capacity": CAPACITY_T}
    if not new_expressions or consumable_capacity:
        f["allowMultipleAllocations"] = BOOL
    return f


# --- unification ----------------------------------------------------------------------------

def _resolve(t: T, subst: dict) -> T:
    if t.is_param:
        b = subst.get(t.name)
        return _resolve(b, subst) if b is not None else t
    if t.params:
        return T(t.name, tuple(_resolve(p, subst) for p in t.params))
    return t


def _assignable(param: T, arg: T, subst: dict) -> bool:
    if arg == ERROR or param == ERROR:
        return True
    if param.is_param:
        bound = subst.get(param.name)
        if bound is None:
            subst[param.name] = arg
            return True
        if _assignable(bound, arg, subst):
            if bound == DYN or (bound.is_param and arg != DYN):
                subst[param.name] = arg if bound.is_param else bound
            return True
        if _assignable(arg, bound, dict(subst)):
            subst[param.name] = arg
            return True
        return False
    if arg.is_param:
        return True
    if param == DYN or arg == DYN:
        return True
    if param.name != arg.name or len(param.params) != len(arg.params):
        return False
    return all(_assignable(p, a, subst) for p, a in zip(param.params, arg.params, strict=True))


def _contains_param(t: T) -> bool:
    return t.is_param or any(_contains_param(p) for p in t.params)


def _dynify(t: T) -> T:
    if t.is_param:
        return DYN
    if t.params:
        return T(t.name, tuple(_dynify(p) for p in t.params))
    return t


# --- the checker ----------------------------------------------------------------------------

@dataclass
class CheckResult:
    types: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)  # (message, offset)
    result_type: T = DYN


class Checker:
    def __init__(self, text: str, fields: dict[str, T], includes: bool = True):
        self.text = text
        self.fields = fields
        self.includes = includes
        self.types: dict[int, T] = {}
        self.errors: list[tuple[str, int]] = []
        self.scopes: list[dict[str, T]] = []
        self.in_format = 0  # literals inside string.format() args are exempt from homogeneity

    def err(self, msg: str, offset: int) -> T:
        self.errors.append((msg, offset))
        return ERROR

    def check(self, n: A.Node) -> T:
        t = self.types.get(n.id)
        if t is not None:
            return t
        t = getattr(self, "k_" + n.kind)(n)
        self.types[n.id] = t
        return t

    # leaves
    def k_lit(self, n: A.Lit) -> T:
        return {"int": INT, "uint": UINT, "double": DOUBLE, "string": STRING, "bytes": BYTES,
                "bool": BOOL, "null_type": NULL}[n.ctype]

    def _lookup_var(self, name: str) -> T | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name == "device":
            return DEVICE
        return None

    def k_ident(self, n: A.Ident) -> T:
        t = self._lookup_var(n.name)
        if t is not None:
            return t
        if n.name in TYPE_IDENT_TYPES:
            return TYPE(TYPE_IDENT_TYPES[n.name])
        return self.err(f"undeclared reference to '{n.name}' (in container '')", n.offset)

    def _qualified(self, n: A.Node) -> str | None:
        if isinstance(n, A.Ident):
            return n.name
        if isinstance(n, A.Select) and not n.test_only and not n.optional:
            left = self._qualified(n.operand)
            return None if left is None else left + "." + n.field
        return None

    def k_select(self, n: A.Select) -> T:
        # qualified identifiers such as google.protobuf.Timestamp
        q = self._qualified(n)
        if q is not None and q in TYPE_IDENT_TYPES and self._lookup_var(q.split(".")[0]) is None:
            return TYPE(TYPE_IDENT_TYPES[q])
        if isinstance(n.operand, A.Ident) and self._lookup_var(n.operand.name) is None and \
                n.operand.name not in TYPE_IDENT_TYPES:
            root = n
            while isinstance(root, A.Select):
                root = root.operand
            q2 = self._qualified(n) or n.field
            return self.err(f"undeclared reference to '{q2}' (in container '')", root.offset)
        ot = self.check(n.operand)
        if ot == ERROR:
            return ERROR
        optional = n.optional
        if ot.name == "optional_type" and optional:
            ot = ot.params[0]
        ft = self._field_type(ot, n.field, n.offset)
        if ft == ERROR:
            return ERROR
        if n.test_only:
            return BOOL
        return OPT(ft) if optional else ft

    def _field_type(self, ot: T, field: str, off: int) -> T:
        if ot == DYN:
            return DYN
        if ot == DEVICE:
            if field in self.fields:
                return self.fields[field]
            return self.err(f"undefined field '{field}'", off)
        if ot.name == "map":
            k = ot.params[0]
            if k in (STRING, DYN) or k.is_param:
                return ot.params[1]
        return self.err(f"type '{ot}' does not support field selection", off)

    # calls
    def k_call(self, n: A.Call) -> T:
        fn = n.function
        if fn in ("_[_]", "_[?_]"):
            return self._index(n)
        if fn == "_?_:_":
            return self._ternary(n)
        exempt = fn == "format" and n.target is not None
        self.in_format += exempt
        try:
            args = [self.check(a) for a in n.args]
        finally:
            self.in_format -= exempt
        target_t = self.check(n.target) if n.target is not None else None
        if fn in ("matches", "find", "findAll"):
            self._check_regex_literal(n)
        if fn == "includes" and not self.includes:
            return self.err("undeclared reference to 'includes' (in container '')", n.offset)
        overloads = FUNCS.get(fn)
        if overloads is None:
            if n.target is not None:
                # cel-go resolves `a.b.f()` as a qualified function name first
                q = self._qualified(n.target)
                if q and self._lookup_var(q.split(".")[0]) is None:
                    return self.err(f"undeclared reference to '{q}.{fn}' (in container '')", n.offset)
            return self.err(f"undeclared reference to '{fn}' (in container '')", n.offset)
        if ERROR in args or target_t == ERROR:
            return ERROR
        member = n.target is not None
        actual = ([target_t] if member else []) + args
        results = []
        for ov in overloads:
            if ov.member != member or len(ov.params) != len(actual):
                continue
            subst: dict = {}
            if all(_assignable(p, a, subst) for p, a in zip(ov.params, actual, strict=False)):
                results.append(_resolve(ov.result, subst))
        if not results:
            sig = "(" + ", ".join(str(a) for a in args) + ")"
            if member:
                sig = f"{target_t}.{sig}"
            return self.err(f"found no matching overload for '{_display_name(fn)}' applied to '{sig}'",
                            n.offset)
        first = results[0]
        if all(r == first for r in results):
            return _dynify(first) if _contains_param(first) else first
        return DYN

    def _check_regex_literal(self, n: A.Call) -> None:
        if not n.args:  # no pattern: overload resolution reports the wrong arity
            return
        pat = n.args[-1] if n.function == "matches" else n.args[0]
        if n.function == "matches" and n.target is None and len(n.args) == 2:
            pat = n.args[1]
        if isinstance(pat, A.Lit) and pat.ctype == "string":
            msg = check_pattern(pat.value)
            if msg is not None:
                self.err(f"invalid matches argument: {msg}" if n.function == "matches" else
                         f"invalid {n.function} argument: {msg}", pat.offset)

    def _index(self, n: A.Call) -> T:
        ot = self.check(n.args[0])
        it = self.check(n.args[1])
        if ot == ERROR or it == ERROR:
            return ERROR
        optional = n.function == "_[?_]"
        if optional and ot.name == "optional_type":
            ot = ot.params[0]
        if ot == DYN:
            r = DYN
        elif ot.name == "list":
            if it not in (INT, UINT, DYN):
                return self.err(f"found no matching overload for '_[_]' applied to '({ot}, {it})'", n.offset)
            r = ot.params[0]
        elif ot.name == "map":
            if not _assignable(ot.params[0], it, {}):
                return self.err(f"found no matching overload for '_[_]' applied to '({ot}, {it})'", n.offset)
            r = ot.params[1]
        else:
            return self.err(f"found no matching overload for '_[_]' applied to '({ot}, {it})'", n.offset)
        return OPT(r) if optional else r

    def _ternary(self, n: A.Call) -> T:
        c, a, b = (self.check(x) for x in n.args)
        if ERROR in (c, a, b):
            return ERROR
        if not _assignable(BOOL, c, {}):
            return self.err(f"found no matching overload for '_?_:_' applied to '({c}, {a}, {b})'", n.offset)
        if a == b:
            return a
        subst: dict = {}
        if _assignable(a, b, subst) or _assignable(b, a, {}):
            if a == DYN or b == DYN:
                return DYN
            return _dynify(_resolve(a, subst)) if not a.is_param else b
        return self.err(f"found no matching overload for '_?_:_' applied to '({c}, {a}, {b})'", n.offset)

    # aggregates
    def k_list(self, n: A.ListLit) -> T:
        elem: T | None = None
        for i, e in enumerate(n.elements):
            t = self.check(e)
            if i in n.optional_indices:
                if t.name == "optional_type":
                    t = t.params[0]
                elif t not in (DYN, ERROR):
                    self.err(f"expected type 'optional_type({t})' but found '{t}'", e.offset)
                    continue
            if t == ERROR:
                continue
            if elem is None:
                elem = t
            elif not _same_or_dyn(elem, t):
                if self.in_format:
                    elem = DYN
                    continue
                self.err(f"expected type '{elem}' but found '{t}'", e.offset)
            elif elem == DYN or _has_dyn(elem):
                elem = t if not _has_dyn(t) else elem
        return LIST(elem if elem is not None else T("_elem", is_param=True))

    def k_map(self, n: A.MapLit) -> T:
        kt: T | None = None
        vt: T | None = None
        for k, v, optional, _off in n.entries:
            a, b = self.check(k), self.check(v)
            if optional and b.name == "optional_type":
                b = b.params[0]
            if a not in (ERROR,):
                if a not in (STRING, INT, UINT, BOOL, DYN) and not a.is_param:
                    self.err(f"unsupported map key type: {a}", k.offset)
                elif kt is None:
                    kt = a
                elif not _same_or_dyn(kt, a):
                    if self.in_format:
                        kt = DYN
                    else:
                        self.err(f"expected type '{kt}' but found '{a}'", k.offset)
            if b != ERROR:
                if vt is None:
                    vt = b
                elif not _same_or_dyn(vt, b):
                    if self.in_format:
                        vt = DYN
                    else:
                        self.err(f"expected type '{vt}' but found '{b}'", v.offset)
        return MAP(kt or T("_k", is_param=True), vt or T("_v", is_param=True))

    def k_struct(self, n: A.Struct) -> T:
        for _, v, _ in n.fields:
            self.check(v)
        return self.err(f"undeclared reference to '{n.type_name}' (in container '')", n.offset)

    # comprehensions
    def k_comprehension(self, n: A.Comprehension) -> T:
        if n.macro == "cel.bind":
            it = self.check(n.accu_init)
            self.check(n.iter_range)
            self.check(n.loop_cond)
            self.scopes.append({n.accu_var: it})
            try:
                self.check(n.loop_step)
                return self.check(n.result)
            finally:
                self.scopes.pop()
        rt = self.check(n.iter_range)
        if rt == ERROR:
            v1t = v2t = ERROR
        elif rt == DYN:
            v1t, v2t = DYN, DYN
        elif rt.name == "list":
            v1t, v2t = (INT, rt.params[0]) if n.iter_var2 else (rt.params[0], None)
        elif rt.name == "map":
            v1t, v2t = rt.params[0], rt.params[1]
        else:
            self.err(f"expression of type '{rt}' cannot be range of a comprehension "
                     "(must be list, map, or dynamic)", n.iter_range.offset)
            v1t = v2t = ERROR
        scope = {n.iter_var: v1t}
        if n.iter_var2:
            scope[n.iter_var2] = v2t
        init_t = self.check(n.accu_init)
        accu_t = self._accu_type(n, init_t, scope)
        self.scopes.append({**scope, n.accu_var: accu_t})
        try:
            self.check(n.loop_cond)
            self.check(n.loop_step)
        finally:
            self.scopes.pop()
        self.scopes.append({n.accu_var: accu_t})
        try:
            return self.check(n.result)
        finally:
            self.scopes.pop()

    def _accu_type(self, n: A.Comprehension, init_t: T, scope: dict) -> T:
        """Accumulator type of the macro expansions whose init is an empty literal."""
        step = n.loop_step
        if n.macro in ("map", "filter", "transformMap", "transformMapEntry"):
            if isinstance(step, A.Call) and step.function == "_?_:_":
                self.scopes.append({**scope, n.accu_var: DYN})
                try:
                    ct = self.check(step.args[0])
                finally:
                    self.scopes.pop()
                if ct not in (BOOL, DYN, ERROR):
                    self.err(f"found no matching overload for '_?_:_' applied to '({ct}, ...)'",
                             step.args[0].offset)
                step = step.args[1]
            if n.macro in ("map", "filter"):
                elem = step.args[1].elements[0]  # @result + [elem]
                self.scopes.append({**scope, n.accu_var: DYN})
                try:
                    et = self.check(elem)
                finally:
                    self.scopes.pop()
                return LIST(et)
            if n.macro == "transformMap":
                self.scopes.append({**scope, n.accu_var: DYN})
                try:
                    vt = self.check(step.args[2])
                finally:
                    self.scopes.pop()
                return MAP(scope[n.iter_var], vt)
            self.scopes.append({**scope, n.accu_var: DYN})
            try:
                mt = self.check(step.args[1])
            finally:
                self.scopes.pop()
            return mt if mt.name == "map" else MAP(DYN, DYN)
        return init_t


def _has_dyn(t: T) -> bool:
    return t == DYN or any(_has_dyn(p) for p in t.params)


def _same_or_dyn(a: T, b: T) -> bool:
    if a == b or a == DYN or b == DYN or a.is_param or b.is_param:
        return True
    if a.name != b.name or len(a.params) != len(b.params):
        return False
    return all(_same_or_dyn(x, y) for x, y in zip(a.params, b.params, strict=True))


_DISPLAY = {"@in": "@in"}


def _display_name(fn: str) -> str:
    return _DISPLAY.get(fn, fn)


def check(text: str, node: A.Node, fields: dict[str, T], includes: bool = True) -> CheckResult:
    c = Checker(text, fields, includes)
    rt = c.check(node)
    return CheckResult(c.types, sorted(c.errors, key=lambda e: e[1]), rt)


def compile_errors(text: str, res: CheckResult) -> list[CelCompileError]:
    out = []
    seen = set()
    for msg, off in res.errors:
        if (msg, off) in seen:
            continue
        seen.add((msg, off))
        line, col = line_col(text, off)
        out.append(CelCompileError(text, msg, line, col, "check"))
    return out


def result_type_error(text: str, rt: T) -> CelCompileError | None:
    """compile.go: the output type must be bool or the unknown type (dyn)."""
    if rt in (BOOL, DYN, ERROR) or rt.is_param:
        return None
    return CelCompileError(text, f"must evaluate to bool or the unknown type, not {rt}", None, None,
                           "check")
