"""What JSON text may hold that no Kubernetes object can: lone UTF-16 surrogates and NaN/Infinity.

Python's decoder accepts both; Go's does not hand them through. Go's encoding/json replaces an
escape of a lone surrogate (`"\\ud800"`) with U+FFFD, so the API server stores "p\\ufffd" for
"p\\ud800"; and it refuses `NaN`/`Infinity` as invalid JSON. The loader does the same, so no
later stage (rules, reporters, terminals) ever meets a string that cannot be encoded as UTF-8.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dractl.load.scan import json_string_end

_SURROGATE = re.compile("[\ud800-\udfff]")
# Cheap test on the raw text: without such an escape there is no lone surrogate to look for.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.S)
# Where a string or a non-finite constant may start (scanned, not matched: see load/scan.py).
_STRING_OR_CONSTANT = re.compile(r'["NI]')


class NonFiniteNumber(ValueError):
    """Raised by the decoder's parse_constant hook: NaN and Infinity are not JSON."""


def refuse_constant(name: str):
    raise NonFiniteNumber(name)


def non_finite_position(text: str) -> tuple[int, int, str]:
    """(line, column, token) of the first NaN/Infinity outside a string."""
    pos = 0
    while True:
        m = _STRING_OR_CONSTANT.search(text, pos)
        if m is None:
            return 1, 1, "NaN"
        at = m.start()
        if text[at] == '"':
            pos = json_string_end(text, at + 1)
            continue
        for token in ("NaN", "Infinity"):
            if text.startswith(token, at):
                if token == "Infinity" and at and text[at - 1] == "-":
                    at, token = at - 1, "-Infinity"
                return _line_column(text, at) + (token,)
        pos = at + 1


@dataclass
class LoneSurrogate:
    path: tuple
    value: str          # the string as decoded (holding the surrogate)
    line: int
    column: int


def replace_lone_surrogates(value, text: str) -> tuple[object, list[LoneSurrogate]]:
    """The decoded document with every lone surrogate replaced by U+FFFD, and where they were."""
    if not _SURROGATE_ESCAPE.search(text):
        return value, []
    found: list[tuple[tuple, str]] = []
    fixed = _replace(value, (), found)
    positions = _lone_escape_positions(text)
    out = []
    cursor = 0
    for path, original in found:
        line, column = positions[cursor] if cursor < len(positions) else (1, 1)
        cursor += len(_SURROGATE.findall(original))
        out.append(LoneSurrogate(path, original, line, column))
    return fixed, out


def _replace(value, path: tuple, found: list):
    """Walk in document order (keys before their values), as the text is written."""
    if isinstance(value, str):
        if _SURROGATE.search(value):
            found.append((path, value))
            return _SURROGATE.sub("\ufffd", value)
        return value
    if isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = _replace(item, path + (i,), found)
        return value
    if isinstance(value, dict):
        if not any(isinstance(k, str) and _SURROGATE.search(k) for k in value):
            for k, item in value.items():
                value[k] = _replace(item, path + (k,), found)
            return value
        rebuilt = {}
        for k, item in value.items():
            key = _replace(k, path + (k,), found)
            rebuilt[key] = _replace(item, path + (key,), found)
        return rebuilt
    return value


def _lone_escape_positions(text: str) -> list[tuple[int, int]]:
    """(line, column) of every escape that decodes to a lone surrogate, in text order."""
    out = []
    pending_high = None  # (offset, end) of a high surrogate escape not yet paired
    last_end = -1
    for m in _ESCAPE.finditer(text):
        code = int(m.group(1), 16) if m.group(1) else None
        adjacent = m.start() == last_end
        if pending_high is not None and not (adjacent and code is not None
                                             and 0xDC00 <= code <= 0xDFFF):
            out.append(_line_column(text, pending_high))
            pending_high = None
        elif pending_high is not None:  # a valid pair
            pending_high = None
            last_end = m.end()
            continue
        if code is not None and 0xD800 <= code <= 0xDBFF:
            pending_high = m.start()
        elif code is not None and 0xDC00 <= code <= 0xDFFF:
            out.append(_line_column(text, m.start()))
        last_end = m.end()
    if pending_high is not None:
        out.append(_line_column(text, pending_high))
    return out


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def escaped(text: str, limit: int = 120) -> str:
    """The string quoted like the API server's `Invalid value: "..."`, its surrogates as
    `\\udXXX` escapes (the reporters escape every other unprintable character)."""
    shown = text if len(text) <= limit else text[:limit] + "..."
    shown = shown.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", shown) + '"'
