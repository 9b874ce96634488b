"""Comprehensions of dractl's CEL compiler (dractl.cel.interp): the generic accumulator loop,
the fast paths of the standard macros and cel.bind.

Each function takes the `Compiler` (it compiles the sub-expressions in the comprehension's
variable scopes) and returns the node's closure ``f(env) -> value``. The fast paths give the
same results, errors and runtime cost as evaluating cel-go's expansion with the generic loop
(tests/unit/cel/test_cel_engine.py compares both); every runtime cost charged below is the cost
of the expansion's nodes that the fast path skips.
"""

from __future__ import annotations

from typing import Any, Callable

from . import ast as A
from .freevars import free_idents
from .optionalvars import read_optional_variable
from .values import CostExceeded, EvalError, Optional, go_type_name

Fn = Callable[[dict], Any]

MISSING = object()


class ErrBox:
    """An error value stored in a comprehension accumulator (re-raised when read)."""

    __slots__ = ("err",)

    def __init__(self, err: EvalError):
        self.err = err


def _items(r: Any, two_vars: bool, off: int) -> Any:
    """What a comprehension iterates over: map keys (or (key, value)), list elements (or
    (index, element))."""
    if isinstance(r, dict):
        return list(r.items()) if two_vars else list(r.keys())
    if isinstance(r, (list, tuple)):
        return list(enumerate(r)) if two_vars else r
    raise EvalError(f"got '{go_type_name(r)}', expected iterable type", off)


def _restore(env: dict, saved: dict) -> None:
    """Put back the variables a comprehension shadowed (or drop the ones it introduced)."""
    for k, v in saved.items():
        if v is MISSING:
            env.pop(k, None)
        else:
            env[k] = v


def _restore_vars(env: dict, v1: str, old1: Any, v2: str | None, old2: Any) -> None:
    """_restore for the macros' one or two iteration variables (no dict on the hot path)."""
    if old1 is MISSING:
        env.pop(v1, None)
    else:
        env[v1] = old1
    if v2:
        if old2 is MISSING:
            env.pop(v2, None)
        else:
            env[v2] = old2


def _compile_scoped(compiler, node: A.Node, names: list[str]) -> Fn:
    compiler.scopes.extend(names)
    try:
        return compiler.compile(node)
    finally:
        del compiler.scopes[-len(names):]


def generic(compiler, n: A.Comprehension) -> Fn:
    """cel-go's comprehension: accumulator init, loop condition, step, result."""
    rng = compiler.compile(n.iter_range)
    init = compiler.compile(n.accu_init)
    v1, v2, accu = n.iter_var, n.iter_var2, n.accu_var
    loop_scope = [accu, v1] + ([v2] if v2 else [])
    cond = _compile_scoped(compiler, n.loop_cond, loop_scope)
    step = _compile_scoped(compiler, n.loop_step, loop_scope)
    result = _compile_scoped(compiler, n.result, [accu])
    off = n.offset
    const_true_cond = isinstance(n.loop_cond, A.Lit) and n.loop_cond.value is True

    def comprehension(env):
        items = _items(rng(env), v2, off)
        saved = {k: env.get(k, MISSING) for k in (accu, v1, v2) if k}
        try:
            try:
                env[accu] = init(env)
            except CostExceeded:
                raise
            except EvalError as e:
                env[accu] = ErrBox(e)
            for it in items:
                if v2:
                    env[v1], env[v2] = it
                else:
                    env[v1] = it
                if not const_true_cond and cond(env) is False:
                    break
                try:
                    env[accu] = step(env)
                except CostExceeded:
                    raise
                except EvalError as e:
                    env[accu] = ErrBox(e)
            return result(env)
        finally:
            _restore(env, saved)
    return comprehension


def fast_macro(compiler, n: A.Comprehension) -> Fn:
    """all/exists/exists_one/map/filter without the generic accumulator machinery."""
    macro, v1, v2 = n.macro, n.iter_var, n.iter_var2
    scope = [n.accu_var, v1] + ([v2] if v2 else [])
    rng = compiler.compile(n.iter_range)
    step = n.loop_step
    cond_f = None
    if macro in ("all", "exists"):
        body = _compile_scoped(compiler, step.args[1], scope)
    elif macro in ("exists_one", "filter"):
        body = _compile_scoped(compiler, step.args[0], scope)
    else:  # map, optionally with a filter
        if step.function == "_?_:_":
            cond_f = _compile_scoped(compiler, step.args[0], scope)
            step = step.args[1]
        body = _compile_scoped(compiler, step.args[1].elements[0], scope)
    fn = _macro(macro, rng, body, cond_f, n, compiler.metered)
    if compiler.metered:  # the runtime cost is charged per iteration: nothing is reused
        return fn
    bound = {v1, n.accu_var} | ({v2} if v2 else set())
    body_node = step.args[1] if macro in ("all", "exists") else step.args[0] \
        if macro in ("exists_one", "filter") else step.args[1].elements[0]
    invariant = [f for f, node in ((body, body_node), (cond_f, n.loop_step.args[0] if cond_f else None))
                 if f is not None and _reads_none_of(compiler, node, bound)]
    if not invariant:
        return fn
    # A body that does not read the iteration variable has one value for every item: it is
    # evaluated once per run of the macro (a 400 x 400 loop whose inner body reads only the
    # device is 800 steps, not 160,000). Its value or its error is the same either way.
    onces = {id(f): _Once(f) for f in invariant}
    fn = _macro(macro, rng, onces.get(id(body), body),
                onces.get(id(cond_f), cond_f) if cond_f is not None else None, n, False)
    resets = tuple(onces.values())

    def once_per_run(env):
        for once in resets:
            once.reset()
        return fn(env)
    return once_per_run


def _macro(macro: str, rng: Fn, body: Fn, cond_f: Fn | None, n: A.Comprehension, metered: bool) -> Fn:
    v1, v2 = n.iter_var, n.iter_var2
    if macro in ("all", "exists"):
        return _quantifier(rng, body, v1, v2, n.offset, metered, macro == "exists")
    if macro == "exists_one":
        return _exists_one(rng, body, v1, v2, n.offset, metered)
    if macro == "filter":
        return _filter(rng, body, v1, n.offset, metered)
    return _map(rng, body, cond_f, v1, n.offset, metered)


def _reads_none_of(compiler, node: A.Node | None, names: set) -> bool:
    free = free_idents(node, compiler.free_cache) if node is not None else None
    return free is not None and not (free & names)


class _Once:
    """fn(env) evaluated at most once between resets: its value, or its error raised again."""

    __slots__ = ("fn", "done", "value", "error")

    def __init__(self, fn: Fn):
        self.fn = fn
        self.reset()

    def reset(self) -> None:
        self.done, self.value, self.error = False, None, None

    def __call__(self, env):
        if not self.done:
            try:
                self.value = self.fn(env)
            except EvalError as e:
                self.error = e
            self.done = True
        if self.error is not None:
            raise self.error
        return self.value


def _checked(fn: Fn, env: dict, off: int) -> Any:
    """A macro's predicate: its bool, or the EvalError it raised (the loop absorbs errors the
    way cel-go's logical operators do; a cost overrun ends the evaluation)."""
    try:
        p = fn(env)
    except CostExceeded:
        raise
    except EvalError as e:
        return e
    return p if type(p) is bool else EvalError("no such overload", off)


def _quantifier(rng: Fn, body: Fn, v1: str, v2: str | None, off: int, metered: bool,
                stop: bool) -> Fn:
    """all (stop at False) and exists (stop at True): an error is kept until a stopping value
    absorbs it."""
    cond_cost = 3 if stop else 2  # the expansion's loop condition

    def quantifier(env):
        items = _items(rng(env), v2, off)
        meter = env["@cost"] if metered else None
        old1, old2 = env.get(v1, MISSING), env.get(v2, MISSING) if v2 else MISSING
        try:
            accu: Any = not stop
            err = None
            for it in items:
                if meter is not None:
                    meter.charge(cond_cost)
                if accu is stop:
                    break
                if v2:
                    env[v1], env[v2] = it
                else:
                    env[v1] = it
                if meter is not None:
                    meter.charge(1)
                try:
                    p = body(env)
                except CostExceeded:
                    raise
                except EvalError as e:
                    if err is None:
                        err = e
                    continue
                if p is stop:
                    accu, err = stop, None
                elif type(p) is not bool:
                    if err is None:
                        err = EvalError("no such overload", off)
                elif err is None:
                    accu = p
            if meter is not None:
                meter.charge(1)
            if err is not None and accu is not stop:
                raise err
            return accu
        finally:
            _restore_vars(env, v1, old1, v2, old2)
    return quantifier


def _exists_one(rng: Fn, body: Fn, v1: str, v2: str | None, off: int, metered: bool) -> Fn:
    def exists_one(env):
        items = _items(rng(env), v2, off)
        meter = env["@cost"] if metered else None
        old1, old2 = env.get(v1, MISSING), env.get(v2, MISSING) if v2 else MISSING
        try:
            count, err = 0, None
            for it in items:
                if v2:
                    env[v1], env[v2] = it
                else:
                    env[v1] = it
                p = _checked(body, env, off)
                if type(p) is not bool:
                    if err is None:
                        err = p
                    continue
                if meter is not None:
                    meter.charge(2 if p else 1)
                if p and err is None:
                    count += 1
            if meter is not None:
                meter.charge(2)
            if err is not None:
                raise err
            return count == 1
        finally:
            _restore_vars(env, v1, old1, v2, old2)
    return exists_one


def _filter(rng: Fn, keep: Fn, v1: str, off: int, metered: bool) -> Fn:
    return _collect(rng, keep, None, v1, off, metered)


def _map(rng: Fn, body: Fn, cond_f: Fn | None, v1: str, off: int, metered: bool) -> Fn:
    return _collect(rng, cond_f, body, v1, off, metered)


def _collect(rng: Fn, cond: Fn | None, body: Fn | None, v1: str, off: int, metered: bool) -> Fn:
    """filter(x, cond) (body None: the element itself), map(x, body), map(x, cond, body)."""
    def collect(env):
        items = _items(rng(env), False, off)
        meter = env["@cost"] if metered else None
        old1 = env.get(v1, MISSING)
        try:
            if meter is not None:
                meter.charge(10)  # the [] accumulator
            out: list = []
            err = None
            for it in items:
                env[v1] = it
                if cond is not None:
                    c = _checked(cond, env, off)
                    if type(c) is not bool:
                        if err is None:
                            err = c
                        continue
                    if not c:
                        if meter is not None:
                            meter.charge(1)
                        continue
                if body is None:
                    if meter is not None:
                        meter.charge(13)
                    if err is None:  # the expansion's [x] reads the variable
                        out.append(read_optional_variable(it) if type(it) is Optional else it)
                    continue
                if meter is not None:
                    meter.charge(1)  # accumulator ident; the list literal below
                try:
                    v = body(env)
                except CostExceeded:
                    raise
                except EvalError as e:
                    if meter is not None:
                        meter.charge(10)
                    if err is None:
                        err = e
                    continue
                if meter is not None:
                    meter.charge(11)
                if err is None:
                    out.append(v)
            if meter is not None:
                meter.charge(1)
            if err is not None:
                raise err
            return out
        finally:
            _restore_vars(env, v1, old1, None, None)
    return collect


def bind(compiler, n: A.Comprehension) -> Fn:
    """cel.bind(var, init, body): init evaluated once, an error kept until var is read."""
    init = compiler.compile(n.accu_init)
    var = n.accu_var
    body = _compile_scoped(compiler, n.result, [var])
    metered = compiler.metered

    def bind_(env):
        if metered:
            env["@cost"].charge(10)  # the empty iteration range list
        old = env.get(var, MISSING)
        try:
            env[var] = init(env)
        except CostExceeded:
            raise
        except EvalError as e:
            env[var] = ErrBox(e)
        try:
            return body(env)
        finally:
            _restore(env, {var: old})
    return bind_
