"""dractl's CEL layer: Kubernetes DRA device selectors, evaluated offline like kube-scheduler.

Public API (others code against these names):

* :class:`SelectorEngine` -- ``compile(expr)``, ``matches(expr, device)`` with caches;
* :func:`check_expression` -- the API server's validation (length, parse, type-check, cost);
* :class:`CelCompileError`, :class:`CelRuntimeError`;
* :class:`CelDevice` -- the protocol a device must satisfy;
* :func:`format_compile_error`, :func:`format_runtime_error` -- the allocator's error texts.
"""

from .engine import CompiledSelector, SelectorEngine, check_expression
from .errors import (
    CelCompileError,
    CelRuntimeError,
    format_compile_detail,
    format_compile_error,
    format_runtime_caret,
    format_runtime_error,
    runtime_detail,
)

__all__ = [
    "CelCompileError", "CelRuntimeError", "CelDevice", "CompiledSelector", "SelectorEngine",
    "check_expression", "format_compile_error", "format_compile_detail", "format_runtime_error",
    "format_runtime_caret", "runtime_detail",
]


def __getattr__(name: str):
    # CelDevice lives with the device conversion, which `dractl validate` never needs
    if name == "CelDevice":
        from .device import CelDevice

        return CelDevice
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
