"""Parse CEL text into dractl's AST (:mod:`dractl.cel.ast`), expanding macros like cel-go.

A hand-written recursive-descent parser over :mod:`dractl.cel.lexer`'s tokens, for the syntax
Kubernetes enables: CEL's grammar plus optional field/index selection (``a.?b``, ``m[?k]``),
optional list/map entries (``[?x]``, ``{?k: v}``) and trailing commas in list, map and message
literals. It replaces an LALR parser built with lark from celpy's grammar at every start-up
(a third of dractl's start-up time, and a parse-table cache in the temp directory); it gives
the same trees, node ids, offsets and error messages, which
tests/unit/cel/test_parser_differential.py checks against that parser (kept there as a
test-only reference) on every expression in the repository and on generated ones.

Parsing is two steps: :class:`_SyntaxParser` reads tokens into a small syntax tree
(:class:`_Syntax`, positions included), then :class:`_Converter` builds the AST from it, numbering
nodes and expanding macros in the order cel-go's parser does (and the earlier parser did), so
that a macro's variable names are never numbered as nodes. Errors found while building (bad
literals, bad macro arguments) are collected and reported together, after syntax errors.

One difference from the earlier parser, by design: brackets nested deeper than _MAX_NESTING
(5,000; only reachable when a quote in a comment fools the MAX_DEPTH pre-check) are "max
recursion depth exceeded" here, where the earlier parser's answer depended on Python's
recursion limit.

Kept from the earlier parser for now (the differential test pins them), though cel-go differs:
the words cel-go reserves (``if``, ``for``, ``as``, ...) are accepted as names; after an operand
a name starting with ``in`` is the operator ``in`` and the rest (``a index`` is ``a in dex``);
``1.`` is a double literal; ``-1u`` is one (invalid) literal; an operator's reported offset is
found by looking for its character next to the operands, which a comment between them can
mislead.
"""

from __future__ import annotations

import sys

from . import ast as A
from .errors import CelCompileError
from .lexer import COLON, EOF, IDENT, LITERALS, NAME, OPERAND, OPERATOR, LexError, Token, scan

MAX_DEPTH = 250  # cel-go parser default max recursion depth
MAX_CODE_POINTS = 100_000  # cel-go parser default expression size limit (code points)
# Brackets nest at most MAX_DEPTH deep by the pre-check (_nesting_depth), which a quote inside a
# comment can fool; up to _MAX_NESTING they are parsed (about 7 Python frames each), deeper is
# "max recursion depth exceeded". Building the AST recurses about twice per level of the tree.
_MAX_NESTING = 5000
_PARSE_RECURSION_LIMIT = 8 * _MAX_NESTING + 1000
_BUILD_RECURSION_LIMIT = 20000


# --- string literals ------------------------------------------------------------------------

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            '"': '"', "'": "'", "\\": "\\", "`": "`", "?": "?"}


class _LitError(Exception):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message, self.offset = message, offset


def _unescape(body: str, base: int, is_bytes: bool):
    out: list = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            if is_bytes:
                out.extend(c.encode("utf-8"))
            else:
                out.append(c)
            i += 1
            continue
        if i + 1 >= n:
            raise _LitError("Syntax error: invalid escape sequence", base + i)
        e = body[i + 1]
        if e in _ESCAPES:
            ch = _ESCAPES[e]
            out.extend(ch.encode()) if is_bytes else out.append(ch)
            i += 2
        elif e in "xX":
            h = body[i + 2:i + 4]
            if len(h) != 2 or not all(x in "0123456789abcdefABCDEF" for x in h):
                raise _LitError("Syntax error: invalid escape sequence", base + i)
            v = int(h, 16)
            out.append(v) if is_bytes else out.append(chr(v))
            i += 4
        elif e in "uU":
            width = 4 if e == "u" else 8
            h = body[i + 2:i + 2 + width]
            if is_bytes or len(h) != width or not all(x in "0123456789abcdefABCDEF" for x in h):
                raise _LitError("Syntax error: invalid escape sequence", base + i)
            v = int(h, 16)
            if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
                raise _LitError("Syntax error: invalid unicode code point", base + i)
            out.append(chr(v))
            i += 2 + width
        elif e in "0123":
            o = body[i + 1:i + 4]
            if len(o) != 3 or not all(x in "01234567" for x in o):
                raise _LitError("Syntax error: invalid escape sequence", base + i)
            v = int(o, 8)
            out.append(v) if is_bytes else out.append(chr(v))
            i += 4
        else:
            raise _LitError("Syntax error: invalid escape sequence", base + i)
    return bytes(out) if is_bytes else "".join(out)


def _string_value(tok: Token):
    text = tok.text
    is_bytes = text[:1] in "bB"
    if is_bytes:
        text = text[1:]
    raw = text[:1] in "rR"
    if raw:
        text = text[1:]
    if not is_bytes and text[:1] in "bB":  # rb"..."
        is_bytes, text = True, text[1:]
    q = 3 if text[:3] in ('"""', "'''") else 1
    body = text[q:-q]
    base = tok.start + (len(tok.text) - len(text)) + q
    if raw:
        return body.encode("utf-8") if is_bytes else body
    return _unescape(body, base, is_bytes)


# --- syntax tree ----------------------------------------------------------------------------

class _Syntax:
    """One construct of the expression as written: ``kind``, the offsets of its first token's
    start and last token's end (brackets included), and up to three parts (see _SyntaxParser)."""

    __slots__ = ("kind", "start", "end", "a", "b", "c")

    def __init__(self, kind: str, start: int, end: int, a=None, b=None, c=None):
        self.kind, self.start, self.end, self.a, self.b, self.c = kind, start, end, a, b, c


class _SyntaxError(Exception):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message, self.offset = message, offset


# operator -> (AST function, precedence); "||" and "&&" are chains of their own
_BINARY = {"<": ("_<_", 1), "<=": ("_<=_", 1), ">": ("_>_", 1), ">=": ("_>=_", 1),
           "==": ("_==_", 1), "!=": ("_!=_", 1), "in": ("@in", 1),
           "+": ("_+_", 2), "-": ("_-_", 2), "*": ("_*_", 3), "/": ("_/_", 3), "%": ("_%_", 3)}


class _SyntaxParser:
    """CEL's grammar, one method per level, loops for repetition (only brackets recurse).

    Syntax kinds and parts: ``lit`` (token), ``ident`` (token), ``dot_ident`` (token; ``.name``),
    ``ident_call``/``dot_ident_call`` (name token, argument list), ``paren`` (inner), ``list``
    ([(optional, element)]), ``map`` ([(optional, key, value)]), ``select``/``select_opt``
    (operand, name token), ``index``/``index_opt`` (operand, index), ``member_call`` (operand,
    name token, arguments), ``struct`` (operand, [(name token, value)]), ``unary`` (operator,
    operand), ``binary`` ((function, operator), left, right), ``or``/``and`` ([terms]),
    ``ternary`` (condition, then, else).

    After each token the parser tells the lexer what may follow (a lexer mode); a token that
    cannot continue the expression is reported as "mismatched input" where it starts.
    """

    def __init__(self, text: str):
        self.text = text
        self.depth = 0  # expressions inside brackets being parsed
        self.tok = scan(text, 0, OPERAND)

    def parse(self) -> _Syntax:
        node = self.expr()
        if self.tok.kind != EOF:
            raise self.unexpected()
        return node

    # tokens
    def take(self, mode: int) -> Token:
        tok = self.tok
        self.tok = scan(self.text, tok.end, mode)
        return tok

    def expect(self, kind: str, mode: int) -> Token:
        if self.tok.kind != kind:
            raise self.unexpected()
        return self.take(mode)

    def unexpected(self) -> _SyntaxError:
        tok = self.tok
        if tok.kind == EOF:
            return _SyntaxError("Syntax error: mismatched input '<EOF>'", len(self.text))
        return _SyntaxError(f"Syntax error: mismatched input '{tok.text}'", tok.start)

    # expressions, loosest binding first
    def expr(self) -> _Syntax:
        """``or ? or : expr`` (right-associative, so the chain is gathered, then nested)."""
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise RecursionError  # reported as "max recursion depth exceeded"
        branches = []
        while True:
            cond = self.disjunction()
            if self.tok.kind != "?":
                break
            self.take(OPERAND)
            then = self.disjunction()
            self.expect(":", OPERAND)
            branches.append((cond, then))
        node = cond
        for cond, then in reversed(branches):
            node = _Syntax("ternary", cond.start, node.end, cond, then, node)
        self.depth -= 1
        return node

    def disjunction(self) -> _Syntax:
        """``a || b || c`` as one node with all terms (the AST balances them like cel-go)."""
        terms = [self.conjunction()]
        while self.tok.kind == "||":
            self.take(OPERAND)
            terms.append(self.conjunction())
        return terms[0] if len(terms) == 1 else _Syntax("or", terms[0].start, terms[-1].end, terms)

    def conjunction(self) -> _Syntax:
        terms = [self.binary()]
        while self.tok.kind == "&&":
            self.take(OPERAND)
            terms.append(self.binary())
        return terms[0] if len(terms) == 1 else _Syntax("and", terms[0].start, terms[-1].end, terms)

    def binary(self) -> _Syntax:
        """Relations, additions and multiplications: left-associative, by precedence."""
        operands = [self.unary()]
        ops: list[str] = []
        while self.tok.kind in _BINARY:
            op = self.take(OPERAND).text
            while ops and _BINARY[ops[-1]][1] >= _BINARY[op][1]:
                self._reduce(operands, ops.pop())
            ops.append(op)
            operands.append(self.unary())
        while ops:
            self._reduce(operands, ops.pop())
        return operands[0]

    @staticmethod
    def _reduce(operands: list, op: str) -> None:
        right = operands.pop()
        left = operands.pop()
        operands.append(_Syntax("binary", left.start, right.end, (_BINARY[op][0], op), left, right))

    def unary(self) -> _Syntax:
        ops = []
        while self.tok.kind in ("!", "-"):  # "-" before a number is part of the number
            ops.append(self.take(OPERAND))
        node = self.member()
        for op in reversed(ops):
            node = _Syntax("unary", op.start, node.end, op.kind, node)
        return node

    def member(self) -> _Syntax:
        node = self.primary()
        while True:
            kind = self.tok.kind
            if kind == ".":
                node = self.select(node)
            elif kind == "[":
                self.take(OPERAND)
                optional = self.tok.kind == "?"
                if optional:
                    self.take(OPERAND)
                index = self.expr()
                close = self.expect("]", OPERATOR)
                node = _Syntax("index_opt" if optional else "index", node.start, close.end, node,
                               index)
            elif kind == "{":
                node = self.message(node)
            else:
                return node

    def select(self, operand: _Syntax) -> _Syntax:
        """``.name``, ``.name(args)`` or ``.?name`` after ``operand``."""
        self.take(NAME)
        if self.tok.kind == "?":
            self.take(NAME)
            name = self.expect(IDENT, OPERATOR)
            return _Syntax("select_opt", operand.start, name.end, operand, name)
        name = self.expect(IDENT, OPERATOR)
        if self.tok.kind == "(":
            args, end = self.arguments()
            return _Syntax("member_call", operand.start, end, operand, name, args)
        return _Syntax("select", operand.start, name.end, operand, name)

    def message(self, operand: _Syntax) -> _Syntax:
        """``operand{field: value, ...}`` (the converter checks that operand is a type name)."""
        self.take(NAME)
        fields = []
        while self.tok.kind != "}":
            name = self.expect(IDENT, COLON)
            self.expect(":", OPERAND)
            fields.append((name, self.expr()))
            if self.tok.kind == ",":
                self.take(NAME)
            elif self.tok.kind != "}":
                raise self.unexpected()
        close = self.take(OPERATOR)
        return _Syntax("struct", operand.start, close.end, operand, fields)

    def primary(self) -> _Syntax:
        tok = self.tok
        kind = tok.kind
        if kind in LITERALS:
            self.take(OPERATOR)
            return _Syntax("lit", tok.start, tok.end, tok)
        if kind == IDENT:
            self.take(OPERATOR)
            if self.tok.kind == "(":
                args, end = self.arguments()
                return _Syntax("ident_call", tok.start, end, tok, args)
            return _Syntax("ident", tok.start, tok.end, tok)
        if kind == ".":
            self.take(NAME)
            name = self.expect(IDENT, OPERATOR)
            if self.tok.kind == "(":
                args, end = self.arguments()
                return _Syntax("dot_ident_call", tok.start, end, name, args)
            return _Syntax("dot_ident", tok.start, name.end, name)
        if kind == "(":
            self.take(OPERAND)
            inner = self.expr()
            close = self.expect(")", OPERATOR)
            return _Syntax("paren", tok.start, close.end, inner)
        if kind == "[":
            return self.list_literal()
        if kind == "{":
            return self.map_literal()
        raise self.unexpected()

    def arguments(self) -> tuple[list, int]:
        """``(a, b)`` (no trailing comma); returns the arguments and the offset after ``)``."""
        self.take(OPERAND)
        args = []
        if self.tok.kind != ")":
            while True:
                args.append(self.expr())
                if self.tok.kind == ",":
                    self.take(OPERAND)
                elif self.tok.kind == ")":
                    break
                else:
                    raise self.unexpected()
        return args, self.take(OPERATOR).end

    def list_literal(self) -> _Syntax:
        start = self.take(OPERAND).start
        elements = []
        while self.tok.kind != "]":
            optional = self.tok.kind == "?"
            if optional:
                self.take(OPERAND)
            elements.append((optional, self.expr()))
            if self.tok.kind == ",":
                self.take(OPERAND)
            elif self.tok.kind != "]":
                raise self.unexpected()
        return _Syntax("list", start, self.take(OPERATOR).end, elements)

    def map_literal(self) -> _Syntax:
        start = self.take(OPERAND).start
        entries = []
        while self.tok.kind != "}":
            optional = self.tok.kind == "?"
            if optional:
                self.take(OPERAND)
            key = self.expr()
            self.expect(":", OPERAND)
            entries.append((optional, key, self.expr()))
            if self.tok.kind == ",":
                self.take(OPERAND)
            elif self.tok.kind != "}":
                raise self.unexpected()
        return _Syntax("map", start, self.take(OPERATOR).end, entries)


# --- syntax tree -> AST ---------------------------------------------------------------------

class _Converter:
    """Builds the AST from the syntax tree: node ids in cel-go's order, operator offsets where
    cel-go reports them (found, as before, by looking back or forward from the operands for the
    operator's character), macros expanded (cel-go parser/macro.go)."""

    def __init__(self, text: str):
        self.text = text
        self.next_id = 1
        self.errors: list[tuple[str, int]] = []

    # positions
    def _back(self, pos: int, ch: str) -> int:
        """Offset of the last ``ch`` at or before ``pos`` (skipping whitespace/comments)."""
        i = min(pos, len(self.text) - 1)
        while i >= 0 and self.text[i] != ch:
            i -= 1
        return max(i, 0)

    def _fwd(self, pos: int, ch: str) -> int:
        i = self.text.find(ch, pos)
        return i if i >= 0 else pos

    def mk(self, node: A.Node) -> A.Node:
        node.id = self.next_id
        self.next_id += 1
        return node

    def error(self, msg: str, offset: int) -> None:
        self.errors.append((msg, offset))

    def conv(self, t: _Syntax) -> A.Node:
        return getattr(self, "r_" + t.kind)(t)

    def r_ternary(self, t: _Syntax) -> A.Node:
        off = self._back(t.b.start - 1, "?")
        return self.mk(A.Call("_?_:_", None, [self.conv(t.a), self.conv(t.b), self.conv(t.c)], off))

    def _logic(self, terms: list, fn: str, op: str) -> A.Node:
        # balance the chain like cel-go's parser does
        offs = [self._back(right.start - 1, op[0]) - 1 for right in terms[1:]]
        nodes = [self.conv(x) for x in terms]
        return self._balance(fn, nodes, offs, 0, len(offs) - 1)

    def _balance(self, fn: str, nodes: list, offs: list, lo: int, hi: int) -> A.Node:
        if lo == hi:
            return self.mk(A.Call(fn, None, [nodes[lo], nodes[lo + 1]], offs[lo]))
        mid = (lo + hi + 1) // 2
        left = nodes[lo] if mid == lo else self._balance(fn, nodes, offs, lo, mid - 1)
        right = nodes[hi + 1] if mid == hi else self._balance(fn, nodes, offs, mid + 1, hi)
        return self.mk(A.Call(fn, None, [left, right], offs[mid]))

    def r_or(self, t: _Syntax) -> A.Node:
        return self._logic(t.a, "_||_", "||")

    def r_and(self, t: _Syntax) -> A.Node:
        return self._logic(t.a, "_&&_", "&&")

    def r_binary(self, t: _Syntax) -> A.Node:
        fn, op = t.a
        i = t.c.start - 1
        while i > 0 and self.text[i].isspace():
            i -= 1
        off = i - len(op) + 1
        lnode, rnode = self.conv(t.b), self.conv(t.c)
        return self.mk(A.Call(fn, None, [lnode, rnode], off))

    def r_unary(self, t: _Syntax) -> A.Node:
        off = t.start
        if t.a == "!":
            return self.mk(A.Call("!_", None, [self.conv(t.b)], off))
        # fold -<literal> the way cel-go's lexer sees negative numbers
        inner = self.conv(t.b)
        if isinstance(inner, A.Lit) and inner.ctype in ("int", "double") and \
                self.text[off + 1:].lstrip()[:1] in tuple("0123456789."):
            v = -inner.value
            if inner.ctype == "int" and v < -(2 ** 63):
                self.error("invalid int literal", off)
            return self.mk(A.Lit(v, inner.ctype, off))
        return self.mk(A.Call("-_", None, [inner], off))

    def r_select(self, t: _Syntax) -> A.Node:
        off = self._back(t.b.start - 1, ".")
        return self.mk(A.Select(self.conv(t.a), t.b.text, off))

    def r_select_opt(self, t: _Syntax) -> A.Node:
        off = self._back(self._back(t.b.start - 1, "?") - 1, ".")
        return self.mk(A.Select(self.conv(t.a), t.b.text, off, optional=True))

    def r_index(self, t: _Syntax) -> A.Node:
        off = self._back(t.b.start - 1, "[")
        return self.mk(A.Call("_[_]", None, [self.conv(t.a), self.conv(t.b)], off))

    def r_index_opt(self, t: _Syntax) -> A.Node:
        off = self._back(self._back(t.b.start - 1, "?") - 1, "[")
        return self.mk(A.Call("_[?_]", None, [self.conv(t.a), self.conv(t.b)], off))

    def r_member_call(self, t: _Syntax) -> A.Node:
        operand, ident, args = t.a, t.b, t.c
        off = self._fwd(ident.end, "(")
        # namespaced global functions: sets.contains(...), strings.quote(...), cel.bind(...)
        if operand.kind == "ident" and operand.a.text in NAMESPACES:
            full = operand.a.text + "." + ident.text
            macro = self._global_macro(full, args, off)
            if macro is not None:
                return macro
            if full in NAMESPACED_FUNCTIONS:
                return self.mk(A.Call(full, None, [self.conv(a) for a in args], off))
        target = self.conv(operand)
        macro = self._member_macro(target, ident.text, args, off)
        if macro is not None:
            return macro
        return self.mk(A.Call(ident.text, target, [self.conv(a) for a in args], off))

    def r_ident_call(self, t: _Syntax) -> A.Node:
        ident, args = t.a, t.b
        off = self._fwd(ident.end, "(")
        macro = self._global_macro(ident.text, args, off)
        if macro is not None:
            return macro
        return self.mk(A.Call(ident.text, None, [self.conv(a) for a in args], off))

    def r_dot_ident_call(self, t: _Syntax) -> A.Node:
        ident, args = t.a, t.b
        off = self._fwd(ident.end, "(")
        return self.mk(A.Call(ident.text, None, [self.conv(a) for a in args], off))

    def r_ident(self, t: _Syntax) -> A.Node:
        return self.mk(A.Ident(t.a.text, t.a.start))

    def r_dot_ident(self, t: _Syntax) -> A.Node:
        return self.mk(A.Ident(t.a.text, t.start))

    def r_paren(self, t: _Syntax) -> A.Node:
        return self.conv(t.a)

    def r_list(self, t: _Syntax) -> A.Node:
        elems: list[A.Node] = []
        opt: list[int] = []
        for i, (optional, element) in enumerate(t.a):
            if optional:
                opt.append(i)
            elems.append(self.conv(element))
        return self.mk(A.ListLit(elems, t.start, tuple(opt)))

    def r_map(self, t: _Syntax) -> A.Node:
        entries = []
        for optional, key, value in t.a:
            k = self.conv(key)
            entries.append((k, self.conv(value), optional, self._fwd(key.end, ":")))
        return self.mk(A.MapLit(entries, t.start))

    def r_struct(self, t: _Syntax) -> A.Node:
        operand = t.a
        name = self._dotted(operand)
        off = self._fwd(operand.end, "{")
        fields = []
        for tok, value in t.b:
            fields.append((tok.text, self.conv(value), tok.start))
        if name is None:
            self.error("Syntax error: mismatched input '{'", off)
            name = "?"
        return self.mk(A.Struct(name, fields, off))

    def _dotted(self, t: _Syntax) -> str | None:
        if t.kind == "ident":
            return t.a.text
        if t.kind == "select":
            left = self._dotted(t.a)
            return None if left is None else left + "." + t.b.text
        return None

    def r_lit(self, t: _Syntax) -> A.Node:
        tok = t.a
        ty, v, off = tok.kind, tok.text, tok.start
        try:
            if ty == "INT_LIT":
                neg = v.startswith("-")
                body = v[1:] if neg else v
                n = int(body[2:], 16) if body[:2].lower() == "0x" else int(body, 10)
                n = -n if neg else n
                if not (-(2 ** 63) <= n <= 2 ** 63 - 1):
                    self.error("invalid int literal", off)
                return self.mk(A.Lit(n, "int", off))
            if ty == "UINT_LIT":
                body = v[:-1]
                n = int(body[2:], 16) if body.lower().startswith("0x") else int(body, 10)
                if body.startswith("-") or n > 2 ** 64 - 1:
                    self.error("invalid uint literal", off)
                from .values import UInt
                return self.mk(A.Lit(UInt(abs(n)), "uint", off))
            if ty == "FLOAT_LIT":
                return self.mk(A.Lit(float(v), "double", off))
            if ty in ("STRING_LIT", "MLSTRING_LIT"):
                return self.mk(A.Lit(_string_value(tok), "string", off))
            if ty == "BYTES_LIT":
                return self.mk(A.Lit(_string_value(tok), "bytes", off))
            if ty == "BOOL_LIT":
                return self.mk(A.Lit(v == "true", "bool", off))
            if ty == "NULL_LIT":
                return self.mk(A.Lit(None, "null_type", off))
        except _LitError as e:
            self.error(e.message, e.offset)
            return self.mk(A.Lit("", "string", off))
        except ValueError:
            self.error(f"invalid literal {v!r}", off)
            return self.mk(A.Lit(0, "int", off))
        raise AssertionError(ty)

    # --- macros (cel-go parser/macro.go semantics) ---------------------------------------
    def _ident_arg(self, arg: _Syntax, what: str, off: int) -> str | None:
        if arg.kind == "ident":
            return arg.a.text
        self.error(what, arg.start)
        return None

    def _lit(self, v, ctype, off):
        return self.mk(A.Lit(v, ctype, off))

    def _id(self, name, off):
        return self.mk(A.Ident(name, off))

    def _call(self, fn, args, off, target=None):
        return self.mk(A.Call(fn, target, args, off))

    def _global_macro(self, name: str, args: list, off: int) -> A.Node | None:
        if name == "has" and len(args) == 1:
            inner = self.conv(args[0])
            if isinstance(inner, A.Select) and not inner.optional:
                inner.test_only = True
                return inner
            self.error("invalid argument to has() macro", off)
            return inner
        if name == "cel.bind" and len(args) == 3:
            var = self._ident_arg(args[0], "cel.bind() variable names must be simple identifiers", off)
            init = self.conv(args[1])
            body = self.conv(args[2])
            return self.mk(A.Comprehension("#unused", self.mk(A.ListLit([], off)), var or "#bad", init,
                                           self._lit(False, "bool", off), self._id(var or "#bad", off),
                                           body, off, macro="cel.bind"))
        return None

    def _member_macro(self, target: A.Node, name: str, args: list, off: int) -> A.Node | None:
        n = len(args)
        one = {"all": 2, "exists": 2, "exists_one": 2, "existsOne": 2, "map": (2, 3), "filter": 2}
        if name in ("optMap", "optFlatMap") and n == 2:
            var = self._ident_arg(args[0], f"{name}() variable name must be a simple identifier", off)
            body = self.conv(args[1])
            return self._opt_map(target, var or "#bad", body, off, name == "optFlatMap")
        if name == "sortBy" and n == 2:
            # cel-go: cel.bind(@__sortBy_input__, l, @sortByAssociatedKeys(in, in.map(x, key)))
            var = self._ident_arg(args[0], "sortBy(var, ...) variable name must be a simple identifier", off)
            key = self.conv(args[1])
            inp = "@__sortBy_input__"
            body = self._call("@sortBy", [self._id(inp, off),
                                          self._comp_map(self._id(inp, off), var or "#bad", None, None, key, off)], off)
            return self.mk(A.Comprehension("#unused", self.mk(A.ListLit([], off)), inp, target,
                                           self._lit(False, "bool", off), self._id(inp, off), body, off,
                                           macro="cel.bind"))
        if name in ("all", "exists", "exists_one", "existsOne") and n == 3 or \
                name in ("transformList", "transformMap", "transformMapEntry") and n in (3, 4):
            v1 = self._ident_arg(args[0], "argument must be a simple name", off) or "#bad"
            v2 = self._ident_arg(args[1], "argument must be a simple name", off) or "#bad"
            if v1 == v2:
                self.error("duplicate variable name: " + v1, off)
            rest = [self.conv(a) for a in args[2:]]
            return self._comp2(target, name, v1, v2, rest, off)
        if name in one:
            want = one[name]
            if (n in want) if isinstance(want, tuple) else (n == want):
                var = self._ident_arg(args[0], "argument must be a simple name", off) or "#bad"
                if var in (A.ACCU, "__result__"):
                    self.error("iteration variable overwrites accumulator variable", off)
                rest = [self.conv(a) for a in args[1:]]
                return self._comp1(target, name, var, rest, off)
        return None

    def _comp1(self, target, name, var, rest, off):
        R = A.ACCU
        if name == "all":
            return self.mk(A.Comprehension(var, target, R, self._lit(True, "bool", off),
                                           self._call("@not_strictly_false", [self._id(R, off)], off),
                                           self._call("_&&_", [self._id(R, off), rest[0]], off),
                                           self._id(R, off), off, macro="all"))
        if name == "exists":
            return self.mk(A.Comprehension(var, target, R, self._lit(False, "bool", off),
                                           self._call("@not_strictly_false", [self._call("!_", [self._id(R, off)], off)], off),
                                           self._call("_||_", [self._id(R, off), rest[0]], off),
                                           self._id(R, off), off, macro="exists"))
        if name in ("exists_one", "existsOne"):
            return self.mk(A.Comprehension(var, target, R, self._lit(0, "int", off),
                                           self._lit(True, "bool", off),
                                           self._call("_?_:_", [rest[0], self._call("_+_", [self._id(R, off), self._lit(1, "int", off)], off), self._id(R, off)], off),
                                           self._call("_==_", [self._id(R, off), self._lit(1, "int", off)], off), off, macro="exists_one"))
        if name == "map":
            if len(rest) == 1:
                return self._comp_map(target, var, None, None, rest[0], off)
            return self._comp_map(target, var, None, rest[0], rest[1], off)
        if name == "filter":
            step = self._call("_?_:_", [rest[0], self._call("_+_", [self._id(R, off), self.mk(A.ListLit([self._id(var, off)], off))], off), self._id(R, off)], off)
            return self.mk(A.Comprehension(var, target, R, self.mk(A.ListLit([], off)),
                                           self._lit(True, "bool", off), step, self._id(R, off), off, macro="filter"))
        raise AssertionError(name)

    def _comp_map(self, target, var, var2, cond, expr, off):
        R = A.ACCU
        step = self._call("_+_", [self._id(R, off), self.mk(A.ListLit([expr], off))], off)
        if cond is not None:
            step = self._call("_?_:_", [cond, step, self._id(R, off)], off)
        return self.mk(A.Comprehension(var, target, R, self.mk(A.ListLit([], off)),
                                       self._lit(True, "bool", off), step, self._id(R, off), off,
                                       iter_var2=var2, macro="map"))

    def _comp2(self, target, name, v1, v2, rest, off):
        R = A.ACCU
        if name == "all":
            return self.mk(A.Comprehension(v1, target, R, self._lit(True, "bool", off),
                                           self._call("@not_strictly_false", [self._id(R, off)], off),
                                           self._call("_&&_", [self._id(R, off), rest[0]], off),
                                           self._id(R, off), off, iter_var2=v2, macro="all"))
        if name == "exists":
            return self.mk(A.Comprehension(v1, target, R, self._lit(False, "bool", off),
                                           self._call("@not_strictly_false", [self._call("!_", [self._id(R, off)], off)], off),
                                           self._call("_||_", [self._id(R, off), rest[0]], off),
                                           self._id(R, off), off, iter_var2=v2, macro="exists"))
        if name in ("existsOne", "exists_one"):
            return self.mk(A.Comprehension(v1, target, R, self._lit(0, "int", off),
                                           self._lit(True, "bool", off),
                                           self._call("_?_:_", [rest[0], self._call("_+_", [self._id(R, off), self._lit(1, "int", off)], off), self._id(R, off)], off),
                                           self._call("_==_", [self._id(R, off), self._lit(1, "int", off)], off), off, iter_var2=v2, macro="exists_one"))
        if name == "transformList":
            cond, expr = (rest[0], rest[1]) if len(rest) == 2 else (None, rest[0])
            return self._comp_map(target, v1, v2, cond, expr, off)
        if name in ("transformMap", "transformMapEntry"):
            cond, expr = (rest[0], rest[1]) if len(rest) == 2 else (None, rest[0])
            if name == "transformMap":
                step = self._call("cel.@mapInsert", [self._id(R, off), self._id(v1, off), expr], off)
            else:
                step = self._call("cel.@mapInsert", [self._id(R, off), expr], off)
            if cond is not None:
                step = self._call("_?_:_", [cond, step, self._id(R, off)], off)
            return self.mk(A.Comprehension(v1, target, R, self.mk(A.MapLit([], off)),
                                           self._lit(True, "bool", off), step, self._id(R, off), off,
                                           iter_var2=v2, macro=name))
        raise AssertionError(name)

    def _opt_map(self, target, var, body, off, flat):
        # opt.optMap(x, e) -> opt.hasValue() ? optional.of(cel.bind(x, opt.value(), e)) : optional.none()
        bind = self.mk(A.Comprehension("#unused", self.mk(A.ListLit([], off)), var,
                                       self._call("value", [], off, target=target),
                                       self._lit(False, "bool", off), self._id(var, off), body, off,
                                       macro="cel.bind"))
        then = bind if flat else self._call("optional.of", [bind], off)
        return self._call("_?_:_", [self._call("hasValue", [], off, target=target), then,
                                    self._call("optional.none", [], off)], off)


NAMESPACES = {"sets", "strings", "lists", "optional", "cel", "math", "base64", "format", "ip",
              "k8s"}
NAMESPACED_FUNCTIONS = {
    "sets.contains", "sets.equivalent", "sets.intersects", "strings.quote", "lists.range",
    "optional.of", "optional.ofNonZeroValue", "optional.none", "optional.unwrap",
    "format.dns1123Label", "format.dns1123Subdomain", "format.dns1035Label", "format.qualifiedName",
    "format.dns1123LabelPrefix", "format.dns1123SubdomainPrefix", "format.dns1035LabelPrefix",
    "format.labelValue", "format.uri", "format.uuid", "format.byte", "format.date",
    "format.datetime", "format.named", "ip.isCanonical",
}


def line_col(text: str, offset: int) -> tuple[int, int]:
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    last = text.rfind("\n", 0, offset)
    return line, offset - last  # 1-based column


def _nesting_depth(text: str) -> int:
    """Bracket nesting outside string literals (cheap pre-check before the LALR parse)."""
    depth = best = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            q = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else c
            i += len(q)
            while i < n and not text.startswith(q, i):
                i += 2 if text[i] == "\\" else 1
            i += len(q)
            continue
        if c in "([{":
            depth += 1
            if depth > best:
                best = depth
        elif c in ")]}":
            depth -= 1
        i += 1
    return best


def parse(text: str) -> A.Node:
    """Parse and macro-expand; raises CelCompileError(kind="syntax")."""
    if len(text) > MAX_CODE_POINTS:
        raise CelCompileError(text, "expression code point size exceeds limit: size: "
                              f"{len(text)}, limit {MAX_CODE_POINTS}", None, None, "syntax")
    if _nesting_depth(text) > MAX_DEPTH:
        raise CelCompileError(text, "max recursion depth exceeded", None, None, "syntax")
    try:
        tree = _with_recursion_limit(_PARSE_RECURSION_LIMIT, _SyntaxParser(text).parse)
    except (_SyntaxError, LexError) as e:
        line, col = line_col(text, e.offset)
        raise CelCompileError(text, e.message, line, col, "syntax") from None
    except RecursionError:
        raise CelCompileError(text, "max recursion depth exceeded", None, None, "syntax") from None
    conv = _Converter(text)
    try:
        node = _with_recursion_limit(_BUILD_RECURSION_LIMIT, lambda: conv.conv(tree))
    except RecursionError:
        raise CelCompileError(text, "max recursion depth exceeded", None, None,
                              "syntax") from None
    if conv.errors:
        errs = []
        for msg, off in conv.errors:
            line, col = line_col(text, off)
            errs.append(CelCompileError(text, msg, line, col, "syntax"))
        first = errs[0]
        first.others = errs[1:]
        raise first
    if A.depth(node) > MAX_DEPTH:
        raise CelCompileError(text, "max recursion depth exceeded", None, None, "syntax")
    return node


def _with_recursion_limit(limit: int, fn):
    old = sys.getrecursionlimit()
    if old < limit:
        sys.setrecursionlimit(limit)
    try:
        return fn()
    finally:
        if old < limit:
            sys.setrecursionlimit(old)


def grammar_self_test() -> None:
    """Check that the parser handles the Kubernetes syntax (used by tests)."""
    for expr in ('a.?b', 'm[?"k"]', '[?x, 1,]', '{?"k": v,}', 'has(a.b) && !has(a.c)'):
        parse(expr)
