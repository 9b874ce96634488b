"""The expression tree dractl's checker, cost estimator and interpreter work on.

It mirrors cel-go's AST (``common/ast``) closely: macros are already expanded into
:class:`Comprehension` nodes the way cel-go's parser expands them, so the static cost estimate and the
runtime cost follow cel-go's structure. Every node carries ``offset``: the character offset (code
points) of the token cel-go would report for it (the ``.`` of a select, the ``(`` of a call, the
operator of a binary operation, ...).
"""

from __future__ import annotations

from typing import Any

ACCU = "@result"  # cel-go's parser.AccumulatorName


class Node:
    __slots__ = ("id", "offset")
    kind = "node"

    def children(self) -> list["Node"]:
        return []


class Lit(Node):
    __slots__ = ("value", "ctype")
    kind = "lit"

    def __init__(self, value: Any, ctype: str, offset: int):
        self.value, self.ctype, self.offset = value, ctype, offset


class Ident(Node):
    __slots__ = ("name",)
    kind = "ident"

    def __init__(self, name: str, offset: int):
        self.name, self.offset = name, offset


class Select(Node):
    """``operand.field``; ``test_only`` for has(); ``optional`` for ``operand.?field``."""

    __slots__ = ("operand", "field", "test_only", "optional")
    kind = "select"

    def __init__(self, operand: Node, field: str, offset: int, test_only: bool = False,
                 optional: bool = False):
        self.operand, self.field, self.offset = operand, field, offset
        self.test_only, self.optional = test_only, optional

    def children(self) -> list[Node]:
        return [self.operand]


class Call(Node):
    """A function call. Operators use cel-go's names (``_==_``, ``_&&_``, ``_[_]``, ``_[?_]``, ...)."""

    __slots__ = ("function", "target", "args")
    kind = "call"

    def __init__(self, function: str, target: Node | None, args: list[Node], offset: int):
        self.function, self.target, self.args, self.offset = function, target, args, offset

    def children(self) -> list[Node]:
        return ([self.target] if self.target is not None else []) + list(self.args)


class ListLit(Node):
    __slots__ = ("elements", "optional_indices")
    kind = "list"

    def __init__(self, elements: list[Node], offset: int, optional_indices: tuple[int, ...] = ()):
        self.elements, self.offset, self.optional_indices = elements, offset, optional_indices

    def children(self) -> list[Node]:
        return list(self.elements)


class MapLit(Node):
    __slots__ = ("entries",)  # list of (key, value, optional, offset)
    kind = "map"

    def __init__(self, entries: list[tuple[Node, Node, bool, int]], offset: int):
        self.entries, self.offset = entries, offset

    def children(self) -> list[Node]:
        out: list[Node] = []
        for k, v, _, _ in self.entries:
            out += [k, v]
        return out


class Struct(Node):
    """``Name{field: value}`` message construction (no message types are declared for DRA)."""

    __slots__ = ("type_name", "fields")
    kind = "struct"

    def __init__(self, type_name: str, fields: list[tuple[str, Node, int]], offset: int):
        self.type_name, self.fields, self.offset = type_name, fields, offset

    def children(self) -> list[Node]:
        return [v for _, v, _ in self.fields]


class Comprehension(Node):
    __slots__ = ("iter_var", "iter_var2", "iter_range", "accu_var", "accu_init", "loop_cond",
                 "loop_step", "result", "macro")
    kind = "comprehension"

    def __init__(self, iter_var: str, iter_range: Node, accu_var: str, accu_init: Node,
                 loop_cond: Node, loop_step: Node, result: Node, offset: int,
                 iter_var2: str | None = None, macro: str = ""):
        self.iter_var, self.iter_var2, self.iter_range = iter_var, iter_var2, iter_range
        self.accu_var, self.accu_init = accu_var, accu_init
        self.loop_cond, self.loop_step, self.result = loop_cond, loop_step, result
        self.offset, self.macro = offset, macro

    def children(self) -> list[Node]:
        return [self.iter_range, self.accu_init, self.loop_cond, self.loop_step, self.result]

    @property
    def is_bind(self) -> bool:
        return (self.macro == "cel.bind")


def walk(node: Node):
    """Pre-order iteration without recursion."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children()))


def depth(node: Node) -> int:
    best = 0
    stack = [(node, 1)]
    while stack:
        n, d = stack.pop()
        if d > best:
            best = d
        for c in n.children():
            stack.append((c, d + 1))
    return best
