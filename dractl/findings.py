"""Findings: everything dractl has to say about what the user wrote.

A finding is data, never an exception. Rules produce findings with a field *path* (a tuple of
keys and list indexes inside one document); the pipeline fills in file, line and column from the
document's source positions, so rules never deal with positions themselves.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import Iterable, Union

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)


class MapKey(str):
    """A path element that is a key of a map-typed field (rendered `[key]`, not `.key`)."""

    __slots__ = ()


PathElem = Union[str, int, MapKey]
Path = tuple  # tuple[PathElem, ...]


def render_path(path: Iterable[PathElem]) -> str:
    """Render a path like the API server does: `spec.devices.requests[0].exactly.count`."""
    out: list[str] = []
    for elem in path:
        if isinstance(elem, int) and not isinstance(elem, bool):
            out.append(f"[{elem}]")
        elif isinstance(elem, MapKey):
            out.append(f"[{elem}]")
        else:
            out.append(("." if out else "") + str(elem))
    return "".join(out)


@dataclass(frozen=True)
class Finding:
    severity: str
    code: str
    message: str
    path: Path = ()
    file: str = ""
    line: int = 0
    column: int = 0
    api_version: str = ""
    kind: str = ""
    namespace: str = ""
    name: str = ""

    @property
    def field(self) -> str:
        return render_path(self.path)

    @property
    def text(self) -> str:
        """`field: message`, as every report shows a finding; the field only once when the
        message already quotes it (the API server's `unknown field "spec.x"`)."""
        field = self.field
        if not field or f'"{field}"' in self.message:
            return self.message
        return f"{field}: {self.message}"

    def located(self, **kw) -> "Finding":
        return replace(self, **kw)

    def sort_key(self) -> tuple:
        return (self.file, self.line, self.column, self.code, self.message)

    def to_json(self) -> dict:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "field": self.field,
        }


def error(code: str, message: str, path: Path = ()) -> Finding:
    return Finding(ERROR, code, message, tuple(path))


def warning(code: str, message: str, path: Path = ()) -> Finding:
    return Finding(WARNING, code, message, tuple(path))


@dataclass
class RuleDoc:
    """One row of the finding-code table (README, `dractl codes`, SARIF rules).

    The long explanation of a code (what it checks, why, a failing example, the fix) lives next
    to the module that registers it, in `<module>.codes.md` (e.g. dractl/validate/rules/claims.py
    -> claims.codes.md), read only by `dractl codes CODE` and `-o sarif`
    (dractl/report/code_docs.py); `modules` names the registering modules."""

    code: str
    severity: str
    summary: str
    origin: str = "apiserver"  # apiserver | schema | loader | dractl (lint) | scheduler
    modules: tuple = ()


# Registry of every code dractl can emit; modules register their rows at import time.
CODES: dict[str, RuleDoc] = {}


def register(code: str, severity: str, summary: str, origin: str = "apiserver") -> str:
    if code in CODES and CODES[code].summary != summary:
        raise RuntimeError(f"finding code {code} registered twice with different meanings")
    module = sys._getframe(1).f_globals.get("__name__", "")
    known = CODES[code].modules if code in CODES else ()
    CODES[code] = RuleDoc(code, severity, summary, origin,
                          known + ((module,) if module and module not in known else ()))
    return code
