"""The one sanitiser (dractl/report/sanitize.py): every control, format, separator and surrogate
character is shown as a visible escape; everything printable stays as it is."""

import unicodedata

from dractl.report.sanitize import UNSAFE, is_safe, safe_line, safe_text

CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")


def test_every_character_of_the_unsafe_categories_is_escaped():
    missed = [hex(cp) for cp in range(0x110000)
              if unicodedata.category(chr(cp)) in CATEGORIES and not UNSAFE.match(chr(cp))]
    assert missed == []


def test_nothing_printable_is_escaped():
    # Unicode 15 added format characters U+13439-1343F, which an older unicodedata calls Cn.
    extra = [hex(cp) for cp in range(0x110000) if UNSAFE.match(chr(cp))
             and unicodedata.category(chr(cp)) not in CATEGORIES + ("Cn",)]
    assert extra == []


def test_escapes_are_visible_and_unambiguous():
    assert safe_line("a\x1b]0;OWNED\x07b") == "a\\x1b]0;OWNED\\x07b"
    assert safe_line("\u202eevil\u2066") == "\\u202eevil\\u2066"
    assert safe_line("p\ud800") == "p\\ud800"
    assert safe_line("\U000e0041x") == "\\U000e0041x"
    assert safe_line("\x85\u200b\ufeff\xad") == "\\x85\\u200b\\ufeff\\xad"
    assert safe_line("tab\tnew\nline") == "tab\\x09new\\x0aline"
    assert safe_text("tab\tnew\nline\r") == "tab\tnew\nline\\x0d"
    assert safe_line("é 😀 [bold] gpu.example.com/a-b_c") == "é 😀 [bold] gpu.example.com/a-b_c"
    assert is_safe("plain") and not is_safe("x\u2028")
