"""Test-only reference: dractl's earlier CEL parser (lark LALR over celpy's grammar), unchanged.

dractl.cel.parser (hand-written recursive descent, no lark) must give exactly what this gives:
the same AST (node kinds, fields, ids, offsets) and the same errors (messages, positions).
test_parser_differential.py compares the two. This copy differs from the parser dractl shipped
before only here: it imports dractl's AST and errors by absolute name, and it builds its lark
parser without lark's parse-table cache (``cache=True`` pickled it to a predictable file in the
shared temp directory and unpickled it on the next run; docs/decisions/0004-own-cel-engine.md).

The grammar is celpy's ``cel.lark`` (cel-python 0.5), patched at load time for the syntax Kubernetes
enables and celpy lacks: optional field/index selection (``a.?b``, ``m[?k]``), optional list/map
entries (``[?x]``, ``{?k: v}``) and trailing commas in list/map literals.
"""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from dractl.cel import ast as A
from dractl.cel.errors import CelCompileError

MAX_DEPTH = 250  # cel-go parser default max recursion depth
MAX_CODE_POINTS = 100_000  # cel-go parser default expression size limit (code points)

_PATCHES: list[tuple[str, str]] = [
    (
        "member         : member_dot | member_dot_arg | member_index | member_object | primary",
        "member         : member_dot | member_dot_arg | member_index | member_object | primary\n"
        "               | member_dot_opt | member_index_opt\n"
        'member_dot_opt : member "." "?" IDENT\n'
        'member_index_opt : member "[" "?" expr "]"',
    ),
    (
        'list_lit       : "[" [exprlist] "]"',
        'list_lit       : "[" [listinits] "]" | "[" listinits "," "]"\n'
        'listinits      : optexpr | listinits "," optexpr\n'
        "optexpr        : expr | opt_marker expr\n"
        'opt_marker     : "?"',
    ),
    (
        'map_lit        : "{" [mapinits] "}"',
        'map_lit        : "{" [mapinits] "}" | "{" mapinits "," "}"',
    ),
    (
        'mapinits       : expr ":" expr ("," expr ":" expr)*',
        'mapinits       : optexpr ":" expr | mapinits "," optexpr ":" expr',
    ),
    (
        'member_object  : member "{" [fieldinits] "}"',
        'member_object  : member "{" [fieldinits] "}" | member "{" fieldinits "," "}"',
    ),
    (
        'fieldinits     : IDENT ":" expr ("," IDENT ":" expr)*',
        'fieldinits     : IDENT ":" expr | fieldinits "," IDENT ":" expr',
    ),
]


def _patched_grammar() -> str:
    import importlib.util

    spec = importlib.util.find_spec("celpy")  # locate cel.lark without importing celpy
    if spec is None or not spec.origin:
        raise RuntimeError("dractl.cel needs cel-python (celpy) for its CEL grammar")
    text = (Path(spec.origin).parent / "cel.lark").read_text()
    for old, new in _PATCHES:
        if text.count(old) != 1:
            raise RuntimeError(
                f"dractl.cel: celpy's cel.lark changed; cannot apply grammar patch for {old!r}. "
                "dractl pins cel-python==0.5.*")
        text = text.replace(old, new)
    return text


def _bool_literals(t: Token) -> Token:
    if t.value in ("true", "false"):
        return Token.new_borrow_pos("BOOL_LIT", t.value, t)
    if t.value == "null":
        return Token.new_borrow_pos("NULL_LIT", t.value, t)
    return t


_lock = threading.Lock()
_parser: Lark | None = None


def lark_options() -> dict:
    """The options dractl built its lark parser with (tests/hostile uses them to find the cache
    file name the earlier dractl used: lark derives it from the grammar and these options)."""
    return dict(parser="lalr", start="expr", g_regex_flags=re.M,
                lexer_callbacks={"IDENT": _bool_literals}, propagate_positions=True,
                maybe_placeholders=False, priority="invert")


def _get_parser() -> Lark:
    global _parser
    if _parser is None:
        with _lock:
            if _parser is None:
                _parser = Lark(_patched_grammar(), **lark_options())
    return _parser


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
    text = tok.value
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
    base = tok.start_pos + (len(tok.value) - len(text)) + q
    if raw:
        return body.encode("utf-8") if is_bytes else body
    return _unescape(body, base, is_bytes)


# --- conversion -----------------------------------------------------------------------------

_BINOPS = {
    "relation_lt": ("_<_", "<"), "relation_le": ("_<=_", "<="), "relation_gt": ("_>_", ">"),
    "relation_ge": ("_>=_", ">="), "relation_eq": ("_==_", "=="), "relation_ne": ("_!=_", "!="),
    "relation_in": ("@in", "in"), "addition_add": ("_+_", "+"), "addition_sub": ("_-_", "-"),
    "multiplication_mul": ("_*_", "*"), "multiplication_div": ("_/_", "/"),
    "multiplication_mod": ("_%_", "%"),
}


class _Converter:
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

    @staticmethod
    def _start(t) -> int:
        if isinstance(t, Token):
            return t.start_pos
        if t.meta.empty:
            for c in t.children:
                return _Converter._start(c)
            return 0
        return t.meta.start_pos

    @staticmethod
    def _end(t) -> int:
        if isinstance(t, Token):
            return t.end_pos
        return t.meta.end_pos if not t.meta.empty else 0

    def mk(self, node: A.Node) -> A.Node:
        node.id = self.next_id
        self.next_id += 1
        return node

    def error(self, msg: str, offset: int) -> None:
        self.errors.append((msg, offset))

    # rules
    def conv(self, t) -> A.Node:
        while isinstance(t, Tree) and len(t.children) == 1 and t.data in (
                "expr", "conditionalor", "conditionaland", "relation", "addition",
                "multiplication", "unary", "member", "primary"):
            t = t.children[0]
        if isinstance(t, Token):
            raise AssertionError(f"unexpected token {t!r}")
        fn = getattr(self, "r_" + t.data, None)
        if fn is None:
            raise AssertionError(f"unhandled rule {t.data}")
        return fn(t)

    def r_expr(self, t: Tree) -> A.Node:
        cond, a, b = t.children
        off = self._back(self._start(a) - 1, "?")
        return self.mk(A.Call("_?_:_", None, [self.conv(cond), self.conv(a), self.conv(b)], off))

    def _logic(self, t: Tree, fn: str, op: str) -> A.Node:
        # flatten left-recursive chains and balance them like cel-go's parser does
        terms: list = []
        offs: list[int] = []
        cur = t
        while isinstance(cur, Tree) and cur.data == t.data and len(cur.children) == 2:
            left, right = cur.children
            terms.append(right)
            offs.append(self._back(self._start(right) - 1, op[0]) - 1)
            cur = left
        terms.append(cur)
        terms.reverse()
        offs.reverse()
        nodes = [self.conv(x) for x in terms]
        return self._balance(fn, nodes, offs, 0, len(offs) - 1)

    def _balance(self, fn: str, nodes: list, offs: list, lo: int, hi: int) -> A.Node:
        if lo == hi:
            return self.mk(A.Call(fn, None, [nodes[lo], nodes[lo + 1]], offs[lo]))
        mid = (lo + hi + 1) // 2
        left = nodes[lo] if mid == lo else self._balance(fn, nodes, offs, lo, mid - 1)
        right = nodes[hi + 1] if mid == hi else self._balance(fn, nodes, offs, mid + 1, hi)
        return self.mk(A.Call(fn, None, [left, right], offs[mid]))

    def r_conditionalor(self, t: Tree) -> A.Node:
        return self._logic(t, "_||_", "||")

    def r_conditionaland(self, t: Tree) -> A.Node:
        return self._logic(t, "_&&_", "&&")

    def _binary(self, t: Tree) -> A.Node:
        optree, right = t.children
        fn, op = _BINOPS[optree.data]
        left = optree.children[0]
        rstart = self._start(right)
        i = rstart - 1
        while i > 0 and self.text[i].isspace():
            i -= 1
        off = i - len(op) + 1
        lnode, rnode = self.conv(left), self.conv(right)
        if fn == "@in":
            return self.mk(A.Call("@in", None, [lnode, rnode], off))
        return self.mk(A.Call(fn, None, [lnode, rnode], off))

    r_relation = r_addition = r_multiplication = _binary

    def r_unary(self, t: Tree) -> A.Node:
        op, operand = t.children
        off = self._start(op)
        if op.data == "unary_not":
            return self.mk(A.Call("!_", None, [self.conv(operand)], off))
        # fold -<literal> the way cel-go's lexer sees negative numbers
        inner = self.conv(operand)
        if isinstance(inner, A.Lit) and inner.ctype in ("int", "double") and \
                self.text[off + 1:].lstrip()[:1] in tuple("0123456789."):
            v = -inner.value
            if inner.ctype == "int" and v < -(2 ** 63):
                self.error("invalid int literal", off)
            return self.mk(A.Lit(v, inner.ctype, off))
        return self.mk(A.Call("-_", None, [inner], off))

    def r_member_dot(self, t: Tree) -> A.Node:
        operand, ident = t.children
        off = self._back(ident.start_pos - 1, ".")
        return self.mk(A.Select(self.conv(operand), ident.value, off))

    def r_member_dot_opt(self, t: Tree) -> A.Node:
        operand, ident = t.children
        off = self._back(self._back(ident.start_pos - 1, "?") - 1, ".")
        return self.mk(A.Select(self.conv(operand), ident.value, off, optional=True))

    def r_member_index(self, t: Tree) -> A.Node:
        operand, index = t.children
        off = self._back(self._start(index) - 1, "[")
        return self.mk(A.Call("_[_]", None, [self.conv(operand), self.conv(index)], off))

    def r_member_index_opt(self, t: Tree) -> A.Node:
        operand, index = t.children
        off = self._back(self._back(self._start(index) - 1, "?") - 1, "[")
        return self.mk(A.Call("_[?_]", None, [self.conv(operand), self.conv(index)], off))

    def _args(self, t: Tree | None) -> list:
        if t is None:
            return []
        return list(t.children)

    def r_member_dot_arg(self, t: Tree) -> A.Node:
        operand, ident = t.children[0], t.children[1]
        args = self._args(t.children[2] if len(t.children) > 2 else None)
        off = self._fwd(ident.end_pos, "(")
        # namespaced global functions: sets.contains(...), strings.quote(...), cel.bind(...)
        ns = self._namespace(operand)
        if ns is not None:
            full = ns + "." + ident.value
            macro = self._global_macro(full, args, off)
            if macro is not None:
                return macro
            if full in NAMESPACED_FUNCTIONS:
                return self.mk(A.Call(full, None, [self.conv(a) for a in args], off))
        target = self.conv(operand)
        macro = self._member_macro(target, ident.value, args, off)
        if macro is not None:
            return macro
        return self.mk(A.Call(ident.value, target, [self.conv(a) for a in args], off))

    def _namespace(self, operand) -> str | None:
        while isinstance(operand, Tree) and operand.data in ("member", "primary") and \
                len(operand.children) == 1:
            operand = operand.children[0]
        if isinstance(operand, Tree) and operand.data == "ident":
            name = operand.children[0].value
            if name in NAMESPACES:
                return name
        return None

    def r_ident_arg(self, t: Tree) -> A.Node:
        ident = t.children[0]
        args = self._args(t.children[1] if len(t.children) > 1 else None)
        off = self._fwd(ident.end_pos, "(")
        macro = self._global_macro(ident.value, args, off)
        if macro is not None:
            return macro
        return self.mk(A.Call(ident.value, None, [self.conv(a) for a in args], off))

    def r_dot_ident_arg(self, t: Tree) -> A.Node:
        ident = t.children[0]
        args = self._args(t.children[1] if len(t.children) > 1 else None)
        off = self._fwd(ident.end_pos, "(")
        return self.mk(A.Call(ident.value, None, [self.conv(a) for a in args], off))

    def r_ident(self, t: Tree) -> A.Node:
        tok = t.children[0]
        return self.mk(A.Ident(tok.value, tok.start_pos))

    def r_dot_ident(self, t: Tree) -> A.Node:
        tok = t.children[0]
        return self.mk(A.Ident(tok.value, self._start(t)))

    def r_paren_expr(self, t: Tree) -> A.Node:
        return self.conv(t.children[0])

    @staticmethod
    def _flatten(t: Tree, rule: str) -> list:
        """Children of a left-recursive list rule (``x | x "," y``), in order."""
        out: list = []
        while isinstance(t, Tree) and t.data == rule:
            ch = t.children
            if ch and isinstance(ch[0], Tree) and ch[0].data == rule:
                out[:0] = ch[1:]
                t = ch[0]
            else:
                out[:0] = ch
                break
        return out

    def r_list_lit(self, t: Tree) -> A.Node:
        off = self._start(t)
        elems: list[A.Node] = []
        opt: list[int] = []
        if t.children:
            for i, oe in enumerate(self._flatten(t.children[0], "listinits")):
                if len(oe.children) == 2:
                    opt.append(i)
                elems.append(self.conv(oe.children[-1]))
        return self.mk(A.ListLit(elems, off, tuple(opt)))

    def r_map_lit(self, t: Tree) -> A.Node:
        off = self._start(t)
        entries = []
        if t.children:
            ch = self._flatten(t.children[0], "mapinits")
            for i in range(0, len(ch), 2):
                ke, ve = ch[i], ch[i + 1]
                optional = len(ke.children) == 2
                k = self.conv(ke.children[-1])
                eoff = self._fwd(self._end(ke), ":")
                entries.append((k, self.conv(ve), optional, eoff))
        return self.mk(A.MapLit(entries, off))

    def r_member_object(self, t: Tree) -> A.Node:
        operand = t.children[0]
        name = self._dotted(operand)
        off = self._fwd(self._end(operand), "{")
        fields = []
        if len(t.children) > 1:
            ch = self._flatten(t.children[1], "fieldinits")
            for i in range(0, len(ch), 2):
                fields.append((ch[i].value, self.conv(ch[i + 1]), ch[i].start_pos))
        if name is None:
            self.error("Syntax error: mismatched input '{'", off)
            name = "?"
        return self.mk(A.Struct(name, fields, off))

    def _dotted(self, t) -> str | None:
        while isinstance(t, Tree) and t.data in ("member", "primary") and len(t.children) == 1:
            t = t.children[0]
        if isinstance(t, Tree) and t.data == "ident":
            return t.children[0].value
        if isinstance(t, Tree) and t.data == "member_dot":
            left = self._dotted(t.children[0])
            return None if left is None else left + "." + t.children[1].value
        return None

    def r_literal(self, t: Tree) -> A.Node:
        tok = t.children[0]
        ty, v, off = tok.type, tok.value, tok.start_pos
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
                from dractl.cel.values import UInt
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
    def _ident_arg(self, arg, what: str, off: int) -> str | None:
        node = arg
        while isinstance(node, Tree) and len(node.children) == 1 and node.data in (
                "expr", "conditionalor", "conditionaland", "relation", "addition",
                "multiplication", "unary", "member", "primary"):
            node = node.children[0]
        if isinstance(node, Tree) and node.data == "ident":
            return node.children[0].value
        self.error(what, self._start(arg))
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


def _syntax_message(e: UnexpectedInput, text: str) -> tuple[str, int]:
    pos = getattr(e, "pos_in_stream", None)
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            return "Syntax error: mismatched input '<EOF>'", len(text)
        return f"Syntax error: mismatched input '{tok.value}'", tok.start_pos or 0
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else "<EOF>"
        if ch in "\"'":
            return "Syntax error: token recognition error at: '" + text[e.pos_in_stream:].split("\n")[0] + "'", e.pos_in_stream
        return f"Syntax error: token recognition error at: '{ch}'", e.pos_in_stream
    if isinstance(e, UnexpectedEOF):
        return "Syntax error: mismatched input '<EOF>'", len(text)
    return "Syntax error", pos or 0


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
    parser = _get_parser()
    try:
        tree = parser.parse(text)
    except UnexpectedInput as e:
        msg, off = _syntax_message(e, text)
        line, col = line_col(text, off)
        raise CelCompileError(text, msg, line, col, "syntax") from None
    except Exception as e:  # lark internals: never let them escape
        raise CelCompileError(text, f"Syntax error: {type(e).__name__}", None, None, "syntax") from None
    conv = _Converter(text)
    old = sys.getrecursionlimit()
    try:
        if old < 20000:
            sys.setrecursionlimit(20000)
        node = conv.conv(tree)
    except RecursionError:
        raise CelCompileError(text, "max recursion depth exceeded", None, None,
                              "syntax") from None
    finally:
        if old < 20000:
            sys.setrecursionlimit(old)
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


def grammar_self_test() -> None:
    """Check that the patched grammar handles the Kubernetes syntax (used by tests)."""
    for expr in ('a.?b', 'm[?"k"]', '[?x, 1,]', '{?"k": v,}', 'has(a.b) && !has(a.c)'):
        parse(expr)
