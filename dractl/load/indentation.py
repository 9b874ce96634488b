"""dractl's hint for YAML syntax errors caused by indentation, in yamllint's words ("wrong
indentation: expected 7 but found 6"): libyaml only says what it did not find.

Called only when a file has a syntax error, on the text before the error: a scan of the lines
for the columns at which a key may start (its mapping's other keys) or a `- ` item may start.
"""

from __future__ import annotations

import re

_KEY_LINE = re.compile(r"( *)((?:- +)*)(.*)")
_BLOCK_SCALAR = re.compile(r"""(?:^|:\s)[|>][-+0-9]*\s*(?:#.*)?$""")


def _content_lines(lines: list[str]):
    """(index, indent, dash columns, key column or None, text) of lines that hold YAML content:
    not blank, not comments, not document markers, not inside block scalars."""
    scalar_parent = None  # indent of the key whose block scalar is being skipped
    for i, raw in enumerate(lines):
        stripped = raw.strip()
        indent = len(raw) - len(raw.lstrip(" "))
        if scalar_parent is not None:
            if not stripped or indent > scalar_parent:
                continue
            scalar_parent = None
        if not stripped or stripped.startswith("#") or stripped in ("---", "...") \
                or stripped.startswith(("--- ", "%")):
            continue
        m = _KEY_LINE.match(raw)
        dashes, rest = m.group(2), m.group(3)
        columns, position = [], indent
        for part in re.findall(r"- +", dashes):
            columns.append(position)
            position += len(part)
        key_column = position if rest and not rest.startswith(("{", "[", '"', "'")) and ":" in rest \
            else None
        yield i, indent, columns, key_column, raw.rstrip()
        if _BLOCK_SCALAR.search(stripped):
            scalar_parent = indent if key_column is None else key_column


def hint(text: str, error_line: int) -> str:
    """`; wrong indentation: expected 7 but found 6 (in "     image: x")` when line
    `error_line` (0-based) of `text` starts at a column no open mapping or list uses; else ""."""
    end = -1
    for _ in range(error_line + 1):  # only the text up to the error: linear in what precedes it
        end = text.find("\n", end + 1)
        if end < 0:
            end = len(text)
            break
    lines = text[:end].split("\n")
    if not 0 <= error_line < len(lines):
        return ""
    keys: list[int] = []     # open mappings' key columns, outermost first
    dashes: list[int] = []   # open lists' dash columns
    previous = None
    target = None
    for i, indent, dash_columns, key_column, raw in _content_lines(lines[:error_line + 1]):
        if i == error_line:
            target = (indent, bool(dash_columns), raw)
            break
        keys[:] = [c for c in keys if c <= indent]
        dashes[:] = [c for c in dashes if c <= indent]
        for c in dash_columns:
            if c not in dashes:
                dashes.append(c)
        if key_column is not None and key_column not in keys:
            keys.append(key_column)
        previous = raw
    if target is None or previous is None:
        return ""
    found, is_item, raw = target
    opens_child = previous.rstrip().endswith(":") or previous.strip().endswith(("- ", "-"))
    deepest = max(keys + dashes, default=-1)
    valid = set(keys) | (set(dashes) if is_item else set())
    if found in valid or (opens_child and found > deepest) or not valid:
        return ""
    expected = min(valid, key=lambda c: (abs(c - found), -c))
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    return f"; wrong indentation: expected {expected + 1} but found {found + 1} (in {_quote(shown)})"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
