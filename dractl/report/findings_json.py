"""`validate -o json`, exactly the shape documented in the README (stable)."""

from __future__ import annotations

import json

try:
    import orjson
except ImportError:  # pragma: no cover - a dependency; kept optional for --no-deps installs
    orjson = None

from dractl.findings import Finding


def findings_document(findings: list[Finding], files: int, documents: int) -> dict:
    return {
        "findings": [f.to_json() for f in findings],
        "summary": {
            "files": files,
            "documents": documents,
            "errors": sum(1 for f in findings if f.severity == "error"),
            "warnings": sum(1 for f in findings if f.severity == "warning"),
        },
    }


def dumps(obj: object) -> str:
    """Indented JSON, byte for byte what json.dumps(indent=2, ensure_ascii=True) writes.

    ensure_ascii keeps control characters from manifests escaped (\u001b), never raw. orjson
    writes the same bytes for ASCII-only text without floats and DEL (it spells floats,
    non-ASCII and DEL differently), so it is used exactly then; anything else takes the
    standard library. tests/unit/test_report_json.py compares the two.
    """
    if orjson is not None and not _has_float(obj):
        try:
            data = orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        except (TypeError, orjson.JSONEncodeError):  # non-string keys, integers over 64 bits
            data = b""
        if data and data.isascii() and b"\x7f" not in data:
            return data.decode("ascii")
    return json.dumps(obj, indent=2, ensure_ascii=True, sort_keys=False) + "\n"


def _has_float(obj: object) -> bool:
    stack = [obj]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is dict:
            stack.extend(value.values())  # type: ignore[attr-defined]
        elif kind is list or kind is tuple:
            stack.extend(value)  # type: ignore[arg-type]
        elif isinstance(value, float):
            return True
    return False


def report(result, view) -> str:
    """`validate -o json`."""
    return dumps(findings_document(result.findings, result.files, result.documents_read))
