"""Evaluating device selectors through the CEL engine, with upstream's error messages
(docs/spec/cel.md#error-formats):

    class <name>: selector #<i>: CEL compile error: <detail>
    claim <ns/name>: selector #<i> on device <driver/pool/device>: CEL runtime error: <detail>
"""

from __future__ import annotations

from typing import NamedTuple

from dractl.allocator.errors import AllocationError

_COMPILE = "CEL compile error: "
_RUNTIME = "CEL runtime error: "
_ERRORS = None


def _cel_api():
    """(CelCompileError, CelRuntimeError, compile formatter, runtime formatter), imported lazily so
    that the allocator works with any engine object and only needs dractl.cel once an error occurs."""
    global _ERRORS
    if _ERRORS is None:
        import dractl.cel as cel
        if not hasattr(cel, "CelCompileError"):  # package exports not in place yet: use its errors module
            import dractl.cel.errors as cel
        fmt_compile = getattr(cel, "format_compile_error", None)
        fmt_runtime = getattr(cel, "format_runtime_error", None)
        if fmt_runtime is None:
            try:
                from dractl.cel.errors import format_runtime_error as fmt_runtime
            except ImportError:  # pragma: no cover - depends on the CEL package layout
                fmt_runtime = None
        _ERRORS = (cel.CelCompileError, cel.CelRuntimeError, fmt_compile or str, fmt_runtime or str)
    return _ERRORS


class CelFailure(NamedTuple):
    """What an explanation of a CEL runtime error needs: whose selector, on which device."""
    owner: str          # "class <name>" or "claim <ns/name>"
    index: int          # the selector's position
    device: object      # the Device it was evaluated on
    error: Exception    # the CEL runtime error


def _prefixed(prefix: str, text: str) -> str:
    return text if text.startswith(prefix) else prefix + text


def selector_error(exc: Exception, owner: str, index: int, device) -> AllocationError | None:
    """Turn an exception from `engine.matches` into the allocator's hard error, or None if it is
    not a CEL error. `owner` is `class <name>` or `claim <ns/name>`."""
    try:
        compile_error, runtime_error, fmt_compile, fmt_runtime = _cel_api()
    except (ImportError, AttributeError):
        return None
    if isinstance(exc, compile_error):
        return AllocationError(f"{owner}: selector #{index}: {_prefixed(_COMPILE, fmt_compile(exc))}")
    if isinstance(exc, runtime_error):
        return AllocationError(f"{owner}: selector #{index} on device {device.id_str}: "
                               f"{_prefixed(_RUNTIME, fmt_runtime(exc))}",
                               cause=CelFailure(owner, index, device, exc))
    return None
