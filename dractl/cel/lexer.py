"""Tokens of CEL text for dractl's recursive-descent parser (:mod:`dractl.cel.parser`).

The token rules are those dractl's earlier LALR parser used (celpy 0.5's ``cel.lark`` as lark
lexed it), kept so that expressions parse, and fail, exactly as before; a differential test
(tests/unit/cel/test_parser_differential.py) compares both on every expression in the repository
and on generated ones. What that lexer did, and this one reproduces:

* one set of token rules, tried in a fixed order (string and bytes literals, numbers, names,
  then operators, longest first); the first rule that matches wins, not the longest match;
* numbers carry their sign where an operand may start (``-1`` is one literal there, but
  ``a-1`` is ``a``, ``-``, ``1``), and ``.5`` is a number only where an operand may start;
* the lexer only offers the tokens the parser can take at that point (lark's "contextual
  lexer"), which this module models with four :data:`modes <OPERAND>`. Where no allowed token
  matches, the token the unrestricted rules give is returned, and the parser reports it as
  "mismatched input";
* ``in`` is a keyword only after an operand, where any name starting with ``in`` is the
  keyword followed by the rest (``a index`` is ``a in dex``); elsewhere ``in`` is a name, as
  are the words cel-go reserves (``if``, ``for``, ...). ``true``/``false``/``null`` are
  literals everywhere, so ``a.true`` is an error.

Positions are code-point offsets into the expression text.
"""

from __future__ import annotations

import re

# modes: what may come next, i.e. which tokens the parser can take at this point
OPERAND = 0   # an operand starts: literals, names, prefix operators, brackets
OPERATOR = 1  # an operand ended: binary operators, postfix ".", "[", "{", "(", closers, "?"
NAME = 2      # after "." or inside a message literal's braces: a field name
COLON = 3     # after a field name in a message literal

EOF = "EOF"
IDENT = "IDENT"
IN = "in"
INT, UINT, FLOAT = "INT_LIT", "UINT_LIT", "FLOAT_LIT"
STRING, MLSTRING, BYTES = "STRING_LIT", "MLSTRING_LIT", "BYTES_LIT"
BOOL, NULL = "BOOL_LIT", "NULL_LIT"
LITERALS = frozenset((INT, UINT, FLOAT, STRING, MLSTRING, BYTES, BOOL, NULL))

_TWO_CHAR = frozenset(("||", "&&", "<=", ">=", "==", "!="))
_ONE_CHAR = frozenset("!:,.{<([->%+?})]/*")
_SPACE = frozenset("\t\n\f\r ")
_IDENT_START = frozenset("_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")

_IDENT_RE = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_NUMBER_RES = (  # first match wins, in this order
    (FLOAT, re.compile(r"-?[0-9]+[eE][+-]?[0-9]+"
                       r"|-?[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?"
                       r"|-?[0-9]*\.[0-9]+(?:[eE][+-]?[0-9]+)?")),
    (UINT, re.compile(r"-?(?:0x[0-9a-fA-F]+|[0-9]+)[uU]")),
    (INT, re.compile(r"-?(?:0x[0-9a-fA-F]+|[0-9]+)")),
)

# A quoted body ends at the first closing quote that an escape does not swallow; only escapes
# of a quote or a backslash can swallow one, so the other escapes need no rule of their own here
# (they are decoded, and checked, by the parser). Single-quoted forms stop at a line end. An
# escape swallows a quote only when a closing quote still follows (on the line, for single-quoted
# forms): a final backslash ends the literal (``"a\\"`` is the literal ``a\\``). That is what the
# expression ``(?:\\["'\\]|.)*?`` matched -- by backtracking, exponentially on a run of
# backslashes that never closes (``"`` and 36 backslashes: 1.8 s, each two more x4). Scanned
# here in one pass (tests/unit/cel/test_lexer_strings.py compares the two).
_ESCAPABLE = "\"'\\"


def _quoted_end(text: str, at: int, q: str, triple: bool) -> int | None:
    """The end of the string literal starting at ``at`` (an optional r/R, then ``q`` once or
    three times), or None when it does not close."""
    p = at + 1 if text[at:at + 1] in ("r", "R") else at
    opening = q * 3 if triple else q
    if not text.startswith(opening, p):
        return None
    i = p + len(opening)
    end = len(text) if triple else _line_end(text, i)
    last = text.rfind(opening, i, end) if triple else text.rfind(q, i, end)
    if last < 0:
        return None
    while i <= last:
        if text.startswith(opening, i):
            return i + len(opening)
        if text[i] == "\\" and text[i + 1:i + 2] in _ESCAPABLE and i + 2 <= last:
            i += 2
        else:
            i += 1
    return None


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


class Token:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind: str, text: str, start: int, end: int):
        self.kind, self.text, self.start, self.end = kind, text, start, end

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r}, {self.start})"


class LexError(Exception):
    """No token rule matches at ``offset`` (cel-go: "token recognition error")."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message, self.offset = message, offset


def skip_space(text: str, pos: int) -> int:
    """Offset of the next character that is neither white space nor inside a ``//`` comment."""
    n = len(text)
    while pos < n:
        c = text[pos]
        if c in _SPACE:
            pos += 1
        elif c == "/" and text.startswith("//", pos):
            end = text.find("\n", pos)
            pos = n if end < 0 else end
        else:
            break
    return pos


def scan(text: str, pos: int, mode: int) -> Token:
    """The token at ``pos`` (after skipping space and comments) as the lexer sees it in ``mode``."""
    pos = skip_space(text, pos)
    if pos >= len(text):
        return Token(EOF, "<EOF>", pos, pos)
    c = text[pos]
    if mode == OPERATOR:
        if c == "-" or c == ".":  # never a signed or leading-dot number after an operand
            return Token(c, c, pos, pos + 1)
        if c == "i" and text.startswith("in", pos):
            return Token(IN, "in", pos, pos + 2)
    elif mode == NAME and c in _IDENT_START:
        return _name(text, pos, keyword_in=False)
    tok = _unrestricted(text, pos, c)
    if mode == OPERAND:
        if tok.kind == IN:
            tok.kind = IDENT
        elif tok.kind == "!=":
            return Token("!", "!", pos, pos + 1)
    return tok


def _name(text: str, pos: int, keyword_in: bool) -> Token:
    word = _IDENT_RE.match(text, pos).group()
    kind = IDENT
    if word in ("true", "false"):
        kind = BOOL
    elif word == "null":
        kind = NULL
    elif word == "in" and keyword_in:
        kind = IN
    return Token(kind, word, pos, pos + len(word))


def _unrestricted(text: str, pos: int, c: str) -> Token:
    """The token every rule together gives at ``pos`` (``c`` is the character there)."""
    if c in _IDENT_START:
        nxt = text[pos + 1:pos + 2]
        if c in "bB":
            quoted = pos + 1 if nxt in ("'", '"') else pos + 2 if nxt in ("r", "R") else -1
            tok = _quoted(text, pos, quoted, BYTES) if quoted > 0 else None
            if tok is not None:
                return tok
        elif c in "rR" and nxt in ("'", '"'):
            tok = _quoted(text, pos, pos + 1, None)
            if tok is not None:
                return tok
        return _name(text, pos, keyword_in=True)
    if c in "'\"":
        tok = _quoted(text, pos, pos, None)
        if tok is not None:
            return tok
        raise LexError("Syntax error: token recognition error at: '" + text[pos:].split("\n")[0] + "'",
                       pos)
    if c in _DIGITS or (c in "-." and _starts_number(text, pos)):
        for kind, pattern in _NUMBER_RES:
            m = pattern.match(text, pos)
            if m:
                return Token(kind, m.group(), pos, m.end())
    two = text[pos:pos + 2]
    if two in _TWO_CHAR:
        return Token(two, two, pos, pos + 2)
    if c in _ONE_CHAR:
        return Token(c, c, pos, pos + 1)
    raise LexError(f"Syntax error: token recognition error at: '{c}'", pos)


def _starts_number(text: str, pos: int) -> bool:
    """Whether a number rule can match at ``pos``, which holds "-" or "."."""
    rest = text[pos + 1:pos + 3]
    if text[pos] == "-" and rest[:1] == ".":
        rest = rest[1:]
    return rest[:1] in _DIGITS and rest != ""


def _quoted(text: str, start: int, quote_at: int, kind: str | None) -> Token | None:
    """A string (``kind`` None: plain or raw) or bytes literal whose quote is at ``quote_at``."""
    body_at = quote_at if kind is None else start + 1  # the pattern takes the optional r/R
    if quote_at >= len(text):
        return None
    q = text[quote_at]
    if q not in ("'", '"'):
        return None
    for triple, found in ((True, MLSTRING), (False, STRING)):
        end = _quoted_end(text, body_at if kind is not None else start, q, triple)
        if end is not None:
            return Token(kind or found, text[start:end], start, end)
    return None
