"""Linear scans over user-sized text: where a quoted string ends, without backtracking.

An expression such as `"(?:[^"\\\\]|\\\\.)*"` looks harmless, but Python's `re` keeps a
backtracking entry for every repetition of the group: a 20 MB quoted value cost 2.4 GB, and a
line of one `"` followed by thousands of `\\"` (never closed) was tried again from every quote,
quadratic in the line (80 KB: 45 s, inside one `re` call that nothing can interrupt). Here the
body of a string is matched by a possessive pattern (Python 3.11+: it never backtracks and keeps
no entry per repetition), or, on older Pythons, by a loop that jumps from one backslash to the
next. Either way a call costs time linear in the string and constant memory.
"""

from __future__ import annotations

import re
import sys

POSSESSIVE = sys.version_info >= (3, 11)

# Double-quoted, one line: characters but `"`, `\\` and a line break, or an escape of anything
# but a line break (YAML's flow scalars in the loader's nesting pre-check).
_LINE_DQ_BODY = re.compile(r'(?:[^"\\\n]++|\\[^\n])*+') if POSSESSIVE else None
_LINE_DQ_STOP = re.compile(r'["\\\n]')
# JSON strings may not hold a raw line break, but the decoder accepted the text already: any
# character after a backslash.
_JSON_BODY = re.compile(r'(?:[^"\\]++|\\.)*+', re.S) if POSSESSIVE else None
_JSON_STOP = re.compile(r'["\\]')


def line_dq_body_end(text: str, start: int, possessive: bool = POSSESSIVE) -> int:
    """The end of the body of a one-line double-quoted string whose body starts at `start`: the
    offset of its closing `"`, or of the character it cannot go past (a line break, a backslash
    before a line break, the end of the text)."""
    if possessive:
        return _LINE_DQ_BODY.match(text, start).end()
    n = len(text)
    pos = start
    while True:
        m = _LINE_DQ_STOP.search(text, pos)
        if m is None:
            return n
        at = m.start()
        if text[at] != "\\":
            return at
        if at + 1 >= n or text[at + 1] == "\n":
            return at
        pos = at + 2


def json_string_end(text: str, start: int, possessive: bool = POSSESSIVE) -> int:
    """The offset just past the closing quote of a JSON string whose body starts at `start`
    (len(text) when it is not closed)."""
    n = len(text)
    if possessive:
        end = _JSON_BODY.match(text, start).end()
        return end + 1 if end < n else n
    pos = start
    while True:
        m = _JSON_STOP.search(text, pos)
        if m is None:
            return n
        at = m.start()
        if text[at] == '"':
            return at + 1
        pos = at + 2
