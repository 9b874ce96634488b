"""Make strings from manifests safe to print.

Manifest text ends up in terminals and CI logs. Control characters (ANSI escapes, OSC 8 links,
carriage returns that overwrite a line, bidi overrides) are shown as visible escapes instead of
being interpreted. Rich markup is never parsed from these strings: the text report builds
`rich.text.Text` objects, so `[bold]` stays literal.
"""

from __future__ import annotations

import re

# C0/C1 controls except tab and newline; DEL; Unicode bidi controls and line/paragraph separators.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match) -> str:
    c = m.group()
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(s: object) -> str:
    """Escape control characters but keep newlines and tabs."""
    return _UNSAFE.sub(_escape, str(s))


def safe_line(s: object) -> str:
    """Escape every control character, newlines included (one-line contexts)."""
    return _UNSAFE_LINE.sub(_escape, str(s))
