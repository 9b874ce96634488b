"""SelectorEngine: compile once, convert each device once, evaluate each (selector, device) once.

Environment: the allocator compiles every selector in Kubernetes' *StoredExpressions* environment
(all libraries and fields, whatever the feature gates say) and does not estimate cost; it enforces
the runtime cost limit. :func:`check_expression` is what the API server does when a selector is
written (*NewExpressions* environment, length limit, static cost estimate).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Hashable

from dractl.api.limits import CEL_MAX_COST, CEL_MAX_LENGTH

from . import ast as A
from .checker import check, compile_errors, device_fields, result_type_error
from .cost import estimate_cost
from .errors import CelCompileError, CelRuntimeError
from .parser import line_col, parse
from .values import EvalError, type_name

if TYPE_CHECKING:
    from dractl.api.versions import FeatureGates

    from .device import Activation, CelDevice

# The evaluator (.interp, with the function library) and the device conversion (.device) are
# imported where a selector is first evaluated: `dractl validate` only parses, checks and
# estimates, and pre-commit runs it on every commit.

MAX_COST = CEL_MAX_COST
MAX_LENGTH = CEL_MAX_LENGTH
STORED = ("stored",)


class CompiledSelector:
    """A compiled selector: checked AST, static cost estimate and the evaluators."""

    __slots__ = ("expression", "ast", "types", "max_cost", "always_meter", "_program", "_metered",
                 "_lock")

    def __init__(self, expression: str, ast: A.Node, max_cost: int, types: dict | None = None):
        self.expression = expression
        self.ast = ast
        self.types = types or {}
        self.max_cost = max_cost
        # allocations sized by runtime values (lists.range(n)) are not bounded by the estimate
        self.always_meter = any(isinstance(n, A.Call) and n.function == "lists.range" and
                                not isinstance(n.args[0] if n.args else None, A.Lit)
                                for n in A.walk(ast))
        self._program: Callable | None = None
        self._metered: Callable | None = None
        self._lock = threading.Lock()

    def program(self, metered: bool) -> Callable:
        if metered:
            if self._metered is None:
                from .interp import compile_program

                self._metered = compile_program(self.ast, True, self.types)
            return self._metered
        if self._program is None:
            from .interp import compile_program

            self._program = compile_program(self.ast, False, self.types)
        return self._program

    def evaluate(self, activation: Activation, cost_limit: int = MAX_COST) -> bool:
        """Evaluate against one device activation; raises CelRuntimeError."""
        if activation.error is not None:
            raise self._runtime_error(activation.error)
        metered = activation.oversized or self.always_meter or self.max_cost > cost_limit
        env = activation.env
        if metered:
            from .interp import Meter

            env = dict(env)
            env["@cost"] = Meter(cost_limit)
        try:
            result = self.program(metered)(env)
        except EvalError as e:
            raise self._runtime_error(e) from None
        except RecursionError:
            raise CelRuntimeError(self.expression, "max recursion depth exceeded") from None
        except CelRuntimeError:
            raise
        except Exception as e:  # a bug in dractl's CEL layer: never leak internals
            raise CelRuntimeError(self.expression, f"internal error: {type(e).__name__}: {e}") from None
        if type(result) is not bool:
            t = type_name(result)
            raise CelRuntimeError(
                self.expression,
                f"CEL result of type {t} could not be converted to bool: "
                f"type conversion error from '{t}' to 'bool'")
        return result

    def _runtime_error(self, e: EvalError) -> CelRuntimeError:
        line = col = None
        if e.offset is not None:
            line, col = line_col(self.expression, e.offset)
        return CelRuntimeError(self.expression, e.message, line, col)


# --- compilation (process-wide cache) --------------------------------------------------------

_compile_cache: dict[tuple, CompiledSelector | CelCompileError] = {}
_cache_lock = threading.Lock()


def _compile(expression: str, env: tuple) -> CompiledSelector:
    """Parse + check (+ estimate) in the given environment; raises CelCompileError."""
    if not isinstance(expression, str):
        raise CelCompileError(str(expression), "expression must be a string", None, None, "syntax")
    ast = parse(expression)
    new_expr = env[0] == "new"
    fields = device_fields(new_expressions=new_expr,
                           consumable_capacity=env[1] if new_expr else True)
    includes = env[2] if new_expr else True
    res = check(expression, ast, fields, includes)
    errs = compile_errors(expression, res)
    if errs:
        first = errs[0]
        first.others = errs[1:]
        raise first
    rerr = result_type_error(expression, res.result_type)
    if rerr is not None:
        raise rerr
    max_cost = estimate_cost(ast, res.types)
    return CompiledSelector(expression, ast, max_cost, res.types)


def compile_cached(expression: str, env: tuple = STORED) -> CompiledSelector:
    key = (expression, env)
    hit = _compile_cache.get(key)
    if hit is None:
        try:
            hit = _compile(expression, env)
        except CelCompileError as e:
            hit = e
        except RecursionError:
            hit = CelCompileError(expression, "max recursion depth exceeded", None, None,
                                  "syntax")
        except Exception as e:  # never leak internals
            hit = CelCompileError(expression, f"internal error: {type(e).__name__}: {e}", None,
                                  None, "check")
        with _cache_lock:
            if len(_compile_cache) > 50_000:
                _compile_cache.clear()
            _compile_cache[key] = hit
    if isinstance(hit, CelCompileError):
        raise hit
    return hit


class SelectorEngine:
    """Evaluates DRA device selectors like the scheduler's allocator does.

    Caches: compiled selectors per (expression, environment) process-wide; one activation per
    ``device.key``; one result (or error) per (expression, device.key).
    """

    def __init__(self, gates: FeatureGates, *, cost_limit: int = MAX_COST):
        self.gates = gates
        self.cost_limit = cost_limit
        self._activations: dict[Hashable, Activation] = {}
        self._results: dict[tuple[str, Hashable], Any] = {}
        # Devices with the same driver, attributes, capacity and allowMultipleAllocations get
        # the same activation, and so the same result for an expression (a cluster's nodes
        # repeat a few device shapes thousands of times): by content key, and by activation.
        self._by_content: dict[tuple, Activation] = {}
        self._results_by_activation: dict[tuple[str, int], Any] = {}
        self.evaluations = 0  # number of real (uncached) evaluations, for reports/tests

    def compile(self, expression: str) -> CompiledSelector:
        return compile_cached(expression, STORED)

    def activation(self, device: CelDevice) -> Activation:
        act = self._activations.get(device.key)
        if act is None:
            from .device import build_activation, content_key

            content = content_key(device)
            act = self._by_content.get(content) if content is not None else None
            if act is None:
                act = build_activation(device, self.gates)
                if content is not None:
                    self._by_content[content] = act
            self._activations[device.key] = act
        return act

    def matches(self, expression: str, device: CelDevice) -> bool:
        key = (expression, device.key)
        hit = self._results.get(key)
        if hit is None:
            try:
                compiled = self.compile(expression)
                activation = self.activation(device)
                # The result depends on the activation only (kept alive in the caches above,
                # so its id stays its own).
                shared = (expression, id(activation))
                hit = self._results_by_activation.get(shared)
                if hit is None:
                    self.evaluations += 1
                    try:
                        hit = compiled.evaluate(activation, self.cost_limit)
                    except CelRuntimeError as e:
                        hit = e
                    self._results_by_activation[shared] = hit
            except CelCompileError as e:
                hit = e
            self._results[key] = hit
        if hit is True or hit is False:
            return hit
        raise hit


def check_expression(expression: str, gates: FeatureGates) -> list[CelCompileError]:
    """What the API server checks when a selector is created or changed (NewExpressions env).

    Length limit first (a too-long expression gets only that error), then parse and type-check,
    then the static cost estimate against 1,000,000.
    """
    if not isinstance(expression, str):
        return [CelCompileError(str(expression), "expression must be a string", None, None, "syntax")]
    if len(expression.encode("utf-8")) > MAX_LENGTH:
        return [CelCompileError(expression, f"Too long: may not be more than {MAX_LENGTH} bytes",
                                None, None, "length")]
    env = ("new", gates.enabled("DRAConsumableCapacity"), gates.enabled("DRAListTypeAttributes"))
    try:
        compiled = compile_cached(expression, env)
    except CelCompileError as e:
        return e.issues
    if compiled.max_cost > MAX_COST:
        return [CelCompileError(expression, "too complex, exceeds cost limit", None, None, "cost")]
    return []
