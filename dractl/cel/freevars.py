"""The identifiers a CEL sub-expression reads from outside itself (its free variables).

A comprehension binds its iteration variables in its loop condition and step, and its
accumulator there and in its result; everything else it reads comes from outside. The
compiler uses this to find what does not depend on the device or on an enclosing loop:
constant comprehensions are folded once, and a macro body that does not read its own
iteration variable is evaluated once per run of the macro (dractl/cel/comprehensions.py).
"""

from __future__ import annotations

from . import ast as A

UNKNOWN = None  # too deep to analyse: treated as reading everything


def free_idents(node: A.Node, cache: dict) -> frozenset[str] | None:
    """The free identifiers of `node` (cached per node id), or None when too deep."""
    try:
        return _free(node, cache)
    except RecursionError:
        return UNKNOWN


def _free(node: A.Node, cache: dict) -> frozenset[str]:
    hit = cache.get(node.id)
    if hit is not None:
        return hit
    kind = node.kind
    if kind == "ident":
        out = frozenset((node.name,))
    elif kind == "comprehension":
        loop_bound = {node.iter_var, node.accu_var} | ({node.iter_var2} if node.iter_var2 else set())
        out = (_free(node.iter_range, cache) | _free(node.accu_init, cache)
               | ((_free(node.loop_cond, cache) | _free(node.loop_step, cache)) - loop_bound)
               | (_free(node.result, cache) - {node.accu_var}))
    else:
        out = frozenset().union(*(_free(c, cache) for c in node.children()))
    cache[node.id] = out
    return out
