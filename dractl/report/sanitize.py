"""Make strings from manifests, paths and options safe to print: the one sanitiser.

Manifest text, file names and option values end up in terminals and CI logs. Anything a terminal
or a log viewer would interpret or hide instead of showing is written as a visible escape:

* C0 and C1 control characters and DEL (ANSI/OSC escapes, BEL, carriage returns that overwrite a
  line, backspace, NEL `\\x85`);
* Unicode format characters (category Cf): bidi overrides, embeddings and isolates (U+202A-E,
  U+2066-9, the "Trojan Source" characters), zero-width spaces and joiners (U+200B-F, U+2060-4),
  the BOM U+FEFF, soft hyphen, interlinear annotations and the invisible tag characters
  (U+E0001, U+E0020-7F);
* line and paragraph separators (U+2028, U+2029), which some viewers treat as new lines;
* lone surrogates (U+D800-DFFF), which come from file names that are not valid UTF-8 and cannot be
  encoded for output at all.

The set is Unicode's categories Cc, Cf, Cs, Zl and Zp (tests/unit/test_sanitize.py checks it
against the running Python's unicodedata). Escapes look like Python's: `\\x1b`, `\\u202e`,
`\\U000e0041`. Rich markup is never parsed from these strings: the text report builds
`rich.text.Text` objects, so `[bold]` stays literal.
"""

from __future__ import annotations

import re

# Unicode 15 categories Cc (but C0), Cf, Cs, Zl, Zp: generated from unicodedata once, then written
# out so that importing this module costs nothing.
_FORMAT = ("\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
           "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff"
           "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
           "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
UNSAFE = re.compile("[\x00-\x1f" + _FORMAT + "]")
# The same without tab and newline, for multi-line text.
_UNSAFE_TEXT = re.compile("[\x00-\x08\x0b-\x1f" + _FORMAT + "]")


def _escape(m: re.Match) -> str:
    code = ord(m.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def safe_text(s: object) -> str:
    """Escape what a terminal would interpret, but keep newlines and tabs."""
    return _UNSAFE_TEXT.sub(_escape, str(s))


def safe_line(s: object) -> str:
    """Escape every control and format character, newlines and tabs included (one line)."""
    return UNSAFE.sub(_escape, str(s))


def is_safe(s: str) -> bool:
    """True when `s` prints as itself on one line."""
    return UNSAFE.search(s) is None
