"""Kubernetes format library (k8s.io/apiserver/pkg/cel/library/format.go): format.named,
format.<name>() and validate. The validators live in dractl/cel/formatlib.py."""

from __future__ import annotations

from ..formatlib import FORMAT_FUNCTIONS, format_named, format_validate
from . import Library

_NAMES = tuple(name.split(".", 1)[1] for name in FORMAT_FUNCTIONS)

LIBRARY = Library(
    "format",
    ("format.named(string) -> opt(Fmt)", "Fmt.validate(string) -> opt(list(string))",
     *(f"format.{name}() -> Fmt" for name in _NAMES)),
    functions={"format.named": format_named, "validate": format_validate, **FORMAT_FUNCTIONS},
)
