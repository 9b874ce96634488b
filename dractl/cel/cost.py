"""Static worst-case cost estimate, following cel-go's ``checker/cost.go`` with Kubernetes' library
estimator (``apiserver/pkg/cel/library/cost.go``) and DRA's size estimator (``compile.go``).

Only the maximum is needed (``MaxCost``). Sizes of values reachable from ``device`` come from the
declared API limits: driver <= 63 chars, <= 32 domains and <= 32 ids per domain, domain <= 63 and id
<= 32 chars, attribute values <= 64 (the larger of the 64-char string and 48-value list limits).
Calibrated against the ``expectCost`` values of upstream's ``compile_test.go``
(tests/unit/cel/test_cel_cost.py).
"""

from __future__ import annotations

import math

from . import ast as A
from .checker import BOOL, BYTES, DOUBLE, DURATION, INT, STRING, TIMESTAMP, UINT, T

U64 = 2 ** 64 - 1
UNKNOWN = (0, U64)

# DRA declared sizes by path (compile.go's DeclTypes)
_ATTR_VALUE = "attrValue"
_DECL = {
    "device": {"driver": ("str", 63), "attributes": ("outerA", 32), "capacity": ("outerC", 32),
               "allowMultipleAllocations": ("scalar", 1)},
}


def _add(a: int, b: int) -> int:
    return min(a + b, U64)


def _mul(a: int, b: int) -> int:
    return min(a * b, U64)


def _factor(x: int, f: float) -> int:
    if x >= U64:
        return U64
    v = math.ceil(x * f)
    return min(v, U64)


def _is_scalar(t: T | None) -> bool:
    if t is None:
        return False
    if t in (BOOL, INT, UINT, DOUBLE, DURATION, TIMESTAMP):
        return True
    if t.name == "optional_type" and t.params:
        return _is_scalar(t.params[0])
    return False


class _Var:
    __slots__ = ("path", "size", "entry")

    def __init__(self, path, size, entry):
        self.path, self.size, self.entry = path, size, entry


class Estimator:
    def __init__(self, types: dict):
        self.types = types
        self.paths: dict[int, list] = {}
        self.sizes: dict[int, tuple] = {}
        self.entry_sizes: dict[int, tuple] = {}  # id -> (kind, keysize, valsize)
        self.locals: dict[str, list[_Var]] = {}

    # --- path-based size (DRA sizeEstimator) ---
    @staticmethod
    def _path_size(path: list | None) -> tuple | None:
        if not path or path[0] != "device":
            return None
        node = ("device", None)
        for name in path[1:]:
            kind = node[0]
            if kind == "device":
                d = _DECL["device"].get(name)
                if d is None:
                    return None
                node = d
            elif kind in ("outerA", "outerC"):
                if name in ("@values", "@items"):
                    node = ("innerA" if kind == "outerA" else "innerC", 32)
                elif name == "@keys":
                    node = ("str", 63)
                else:
                    return None
            elif kind == "innerA":
                if name == "@keys":
                    node = ("str", 32)
                else:  # @values or any attribute name: the attribute type
                    node = (_ATTR_VALUE, 64)
            elif kind == "innerC":
                if name == "@keys":
                    node = ("str", 32)
                elif name in ("@values", "@items"):
                    node = ("quantity", 0)
                else:
                    node = ("quantity", 0)
            elif kind == _ATTR_VALUE:
                if name in ("@items", "@values", "@keys"):
                    node = ("any", None)
                else:
                    return None
            else:
                return None
        if node[1] is None:
            return None
        return (0, node[1])

    def get_path(self, n: A.Node) -> list | None:
        if isinstance(n, A.Ident):
            v = self._peek(n.name)
            if v is not None:
                return v.path
        return self.paths.get(n.id)

    def _peek(self, name: str) -> _Var | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def _push(self, name: str, var: _Var) -> None:
        self.locals.setdefault(name, []).append(var)

    def _pop(self, name: str) -> None:
        self.locals[name].pop()

    def size(self, n: A.Node) -> tuple | None:
        if n.id in self.sizes:
            return self.sizes[n.id]
        if isinstance(n, A.Lit):
            if n.ctype in ("string", "bytes"):
                return (len(n.value), len(n.value))
            return (1, 1)
        if isinstance(n, A.ListLit):
            return (len(n.elements), len(n.elements))
        if isinstance(n, A.MapLit):
            return (len(n.entries), len(n.entries))
        path = self.get_path(n)
        if path and path[0] != A.ACCU:
            s = self._path_size(path)
            if s is not None:
                self.sizes[n.id] = s
                return s
        if _is_scalar(self.types.get(n.id)):
            return (1, 1)
        if isinstance(n, A.Ident):
            v = self._peek(n.name)
            if v is not None and v.size is not None:
                return v.size
        return None

    def size_or_unknown(self, n: A.Node) -> tuple:
        s = self.size(n)
        return s if s is not None else UNKNOWN

    def entry_size(self, n: A.Node):
        if n.id in self.entry_sizes:
            return self.entry_sizes[n.id]
        if isinstance(n, A.Ident):
            v = self._peek(n.name)
            if v is not None and v.entry is not None:
                return v.entry
        return None

    # --- cost ---
    def cost(self, n: A.Node) -> int:
        k = n.kind
        if k == "lit":
            return 0
        if k == "ident":
            v = self._peek(n.name)
            self.paths[n.id] = v.path if v is not None else [n.name]
            return 1
        if k == "select":
            return self._select(n)
        if k == "call":
            return self._call(n)
        if k == "list":
            total = 0
            lo, hi = (U64, 0) if n.elements else (0, 0)
            for e in n.elements:
                total = _add(total, self.cost(e))
                s = self.size_or_unknown(e)
                lo, hi = min(lo, s[0]), max(hi, s[1])
            self.entry_sizes[n.id] = ("list", (1, 1), (lo, hi))
            return _add(total, 10)
        if k == "map":
            total = 0
            klo, khi, vlo, vhi = (U64, 0, U64, 0) if n.entries else (0, 0, 0, 0)
            for key, val, _, _ in n.entries:
                total = _add(total, _add(self.cost(key), self.cost(val)))
                ks, vs = self.size_or_unknown(key), self.size_or_unknown(val)
                klo, khi = min(klo, ks[0]), max(khi, ks[1])
                vlo, vhi = min(vlo, vs[0]), max(vhi, vs[1])
            self.entry_sizes[n.id] = ("map", (klo, khi), (vlo, vhi))
            return _add(total, 30)
        if k == "struct":
            total = 40
            for _, v, _ in n.fields:
                total = _add(total, self.cost(v))
            return total
        if k == "comprehension":
            return self._bind(n) if n.macro == "cel.bind" else self._comprehension(n)
        return 0

    def _select(self, n: A.Select) -> int:
        if n.test_only:
            return self.cost(n.operand)  # presence tests cost 0 in Kubernetes
        total = self.cost(n.operand)
        ot = self.types.get(n.operand.id)
        if ot is not None and (ot.name in ("map", "kubernetes.DRADevice") or ot.is_param or
                               ot.name == "optional_type"):
            total = _add(total, 1)
        base = self.get_path(n.operand)
        self.paths[n.id] = (base or []) + [n.field] if base is not None else None
        return total

    def _bind(self, n: A.Comprehension) -> int:
        total = _add(self.cost(n.iter_range), self.cost(n.accu_init))
        self._push(n.accu_var, _Var(self.get_path(n.accu_init), self.size(n.accu_init),
                                    self.entry_size(n.accu_init)))
        total = _add(total, self.cost(n.result))
        self._pop(n.accu_var)
        s = self.size(n.result)
        if s is not None:
            self.sizes[n.id] = s
        e = self.entry_size(n.result)
        if e is not None:
            self.entry_sizes[n.id] = e
        return total

    def _container_kind(self, rng: A.Node) -> str:
        e = self.entry_size(rng)
        if e is not None:
            return e[0]
        t = self.types.get(rng.id)
        if t is not None and t.name in ("list", "map"):
            return t.name
        return "unknown"

    def _comprehension(self, n: A.Comprehension) -> int:
        total = _add(self.cost(n.iter_range), self.cost(n.accu_init))
        self._push(n.accu_var, _Var(self.get_path(n.accu_init), self.size(n.accu_init),
                                    self.entry_size(n.accu_init)))
        rng = n.iter_range
        entry = self.entry_size(rng)
        kind = self._container_kind(rng)
        path = self.get_path(rng)
        if n.iter_var2:
            ksub, vsub = ("@indices", "@items") if kind == "list" else ("@keys", "@values")
            self._push(n.iter_var, _Var(path + [ksub] if path is not None else None,
                                        entry[1] if entry else None, None))
            self._push(n.iter_var2, _Var(path + [vsub] if path is not None else None,
                                         entry[2] if entry else None, None))
        else:
            if kind == "list":
                sub, sz = "@items", (entry[2] if entry else None)
            else:
                sub, sz = "@keys", (entry[1] if entry else None)
            self._push(n.iter_var, _Var(path + [sub] if path is not None else None, sz, None))
        loop = self.cost(n.loop_cond)
        step = self.cost(n.loop_step)
        self._pop(n.iter_var)
        if n.iter_var2:
            self._pop(n.iter_var2)
        total = _add(total, self.cost(n.result))
        self._pop(n.accu_var)
        rng_size = self.size_or_unknown(rng)
        total = _add(total, _mul(rng_size[1], _add(step, loop)))
        if isinstance(n.accu_init, A.Lit):
            s = self.size(n.accu_init)
            if s is not None:
                self.sizes[n.id] = s
        elif isinstance(n.accu_init, (A.ListLit, A.MapLit)):
            self.sizes[n.id] = rng_size
            se = self.entry_size(n.loop_step)
            if se is not None:
                self.entry_sizes[n.id] = se
        return total

    def _list_elem_size(self, target: A.Node) -> tuple | None:
        t = self.types.get(target.id)
        if t is None or not t.params:
            return None
        elem_t = t.params[0]
        path = self.get_path(target)
        if path is not None:
            s = self._path_size(path + ["@items"])
            if s is not None:
                return s
        if _is_scalar(elem_t):
            return (1, 1)
        return None

    def _call(self, n: A.Call) -> int:
        fn = n.function
        if fn == "dyn" and len(n.args) == 1:
            c = self.cost(n.args[0])
            s = self.size(n.args[0])
            if s is not None:
                self.sizes[n.id] = s
            return _add(1, c)
        arg_costs = [self.cost(a) for a in n.args]
        arg_sum = 0
        for c in arg_costs:
            arg_sum = _add(arg_sum, c)
        total = 0
        target = n.target
        if target is not None:
            total = self.cost(target)
        call, result_size = self._function_cost(n, fn, target, arg_costs, arg_sum)
        if fn in ("_[_]", "_[?_]") and n.args:
            kind = self._container_kind(n.args[0])
            base = self.get_path(n.args[0])
            sub = "@items" if kind == "list" else "@values"
            self.paths[n.id] = base + [sub] if base is not None else None
            e = self.entry_size(n.args[0])
            if e is not None:
                result_size = e[2]
        if result_size is not None:
            self.sizes[n.id] = result_size
        return _add(total, call)

    def _function_cost(self, n: A.Call, fn: str, target, arg_costs, arg_sum):
        args = n.args
        sz = self.size_or_unknown
        # Kubernetes library estimator first
        library_cost = _LIBRARY_STATIC_COSTS.get(fn)  # dractl/cel/libs/
        if library_cost is not None:
            r = library_cost(self, n, target, args, arg_sum)
            if r is not None:
                return r
        if fn == "includes":
            return _add(48, arg_sum), None  # DRA: max list length (ResourceSliceMaxAttributeValuesPerDevice)
        # cel-go built-ins
        if fn == "@in" and len(args) == 2:
            ct = self.types.get(args[1].id)
            if ct is not None and ct.name == "map":
                return _add(1, arg_sum), None
            return _add(sz(args[1])[1], arg_sum), None
        if fn in ("_&&_", "_||_"):
            return _add(arg_costs[0], arg_costs[1]), None
        if fn == "_?_:_":
            a, b = sz(args[1]), sz(args[2])
            ea, eb = self.entry_size(args[1]), self.entry_size(args[2])
            if ea is not None and eb is not None:
                self.entry_sizes[n.id] = (ea[0], (min(ea[1][0], eb[1][0]), max(ea[1][1], eb[1][1])),
                                          (min(ea[2][0], eb[2][0]), max(ea[2][1], eb[2][1])))
            return _add(arg_costs[0], max(arg_costs[1], arg_costs[2])), (min(a[0], b[0]), max(a[1], b[1]))
        if fn == "_+_" and len(args) == 2:
            lt = self.types.get(args[0].id)
            if lt is not None and lt.name in ("string", "bytes", "list"):
                l, r = sz(args[0]), sz(args[1])
                size = (_add(l[0], r[0]), _add(l[1], r[1]))
                el, er = self.entry_size(args[0]), self.entry_size(args[1])
                if el is not None and er is not None:
                    self.entry_sizes[n.id] = (el[0], el[1], (min(el[2][0], er[2][0]), max(el[2][1], er[2][1])))
                if lt.name == "list":
                    return _add(1, arg_sum), size
                return _add(_factor(size[1], 0.1), arg_sum), size
        if fn in ("_==_", "_!=_") or (fn in ("_<_", "_<=_", "_>_", "_>=_") and
                                       self.types.get(args[0].id) in (STRING, BYTES)):
            l, r = sz(args[0]), sz(args[1])
            smallest = min(l[1], r[1])
            return _add(_factor(smallest, 0.1), arg_sum), None
        return _add(1, arg_sum), None


def estimate_cost(node: A.Node, types: dict) -> int:
    """Worst-case cost (cel-go ``CostEstimate.Max``) of a checked expression."""
    return Estimator(types).cost(node)


from .libs import static_costs as _library_static_costs  # noqa: E402 - libs import cost lazily

_LIBRARY_STATIC_COSTS = _library_static_costs()
