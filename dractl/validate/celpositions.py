"""file:line:column of an offset inside a CEL expression held in a YAML scalar.

The loader knows where the `expression:` key is; the scalar's own layout (block `|`/`>`, plain
or quoted on the key's line) decides where a character of the expression sits. Offsets are in
code points, like dractl.cel reports them. Where the layout cannot be followed (escapes, folded
lines), the token is searched for in the source lines instead; failing that, the key's
position is returned."""

from __future__ import annotations

from functools import lru_cache

from dractl.load.document import Document


@lru_cache(maxsize=64)
def _lines(path: str) -> tuple[str, ...]:
    from dractl.load.limits import DEFAULT_LIMITS
    from dractl.load.reader import FileTooLarge, NotRegularFile, read_regular

    try:  # read again: never blocking on what the file may have been swapped for since
        return tuple(read_regular(path, DEFAULT_LIMITS.max_file_bytes).decode("utf-8").splitlines())
    except (OSError, UnicodeDecodeError, ValueError, NotRegularFile, FileTooLarge):
        return ()


def expression_position(doc: Document, path: tuple, offset: int) -> tuple[int, int]:
    key_line, key_column = doc.locate(path)
    value = _value(doc, path)
    lines = _lines(doc.file)
    if not isinstance(value, str) or not lines or key_line > len(lines):
        return key_line, key_column
    before = value[:offset]
    row, col = before.count("\n"), len(before) - (before.rfind("\n") + 1)
    text = lines[key_line - 1]
    rest = text[key_column - 1:].split(":", 1)[1] if ":" in text[key_column - 1:] else ""
    indicator = rest.strip()[:1]
    if indicator in ("|", ">"):
        first = key_line  # 0-based index of the line after the key
        while first < len(lines) and not lines[first].strip():
            first += 1
        if first >= len(lines):
            return key_line, key_column
        indent = len(lines[first]) - len(lines[first].lstrip(" "))
        if indicator == "|" and first + row < len(lines):
            return first + row + 1, indent + col + 1
        return _search(lines, first, value, offset) or (key_line, key_column)
    if row == 0 and value in text:
        start = text.index(value, key_column - 1)
        return key_line, start + col + 1
    quote = rest.strip()[:1]
    if row == 0 and quote in ("'", '"'):
        start = text.index(quote, key_column - 1 + len(text[key_column - 1:].split(":", 1)[0]) + 1)
        return key_line, _quoted_column(text, start, quote, col)
    return _search(lines, key_line - 1, value, offset) or (key_line, key_column)


def _quoted_column(text: str, start: int, quote: str, col: int) -> int:
    """1-based column of decoded character `col` of the quoted scalar opening at text[start]."""
    i, decoded = start + 1, 0
    while i < len(text) and decoded < col:
        if quote == '"' and text[i] == "\\":
            step = {"x": 4, "u": 6, "U": 10}.get(text[i + 1:i + 2], 2)
        elif quote == "'" and text[i:i + 2] == "''":
            step = 2
        else:
            step = 1
        i += step
        decoded += 1
    return i + 1


def _value(doc: Document, path: tuple):
    node = doc.data
    for elem in path:
        if isinstance(node, dict) and isinstance(elem, str):
            node = node.get(elem)
        elif isinstance(node, list) and isinstance(elem, int) and 0 <= elem < len(node):
            node = node[elem]
        else:
            return None
    return node


def _search(lines, start: int, value: str, offset: int):
    """The token at `offset` (up to the next separator) found in the source from `start`,
    counting earlier occurrences of it in the expression."""
    end = offset
    while end < len(value) and (value[end].isalnum() or value[end] in "_-./"):
        end += 1
    token = value[offset:end] or value[offset:offset + 1]
    nth = value[:offset].count(token)
    seen = 0
    for index in range(start, min(len(lines), start + value.count("\n") + 50)):
        position = lines[index].find(token)
        while position >= 0:
            if seen == nth:
                return index + 1, position + 1
            seen += 1
            position = lines[index].find(token, position + 1)
    return None
