"""Errors of dractl's CEL layer and the allocator's error texts (docs/spec/cel.md#error-formats)."""

from __future__ import annotations

NO_SUCH_KEY_HINT = (". consider using CEL optional chaining (.? followed by orValue()) or guarding the "
                    "check with has() for optional fields")


class CelCompileError(Exception):
    """A compile-time problem, worded like cel-go / the API server.

    kind: "syntax" | "check" | "cost" | "length". line/column are 1-based inside the expression
    (None when cel-go reports no location, e.g. the result-type and cost errors).
    """

    def __init__(self, expression: str, message: str, line: int | None = None,
                 column: int | None = None, kind: str = "check"):
        super().__init__(message)
        self.expression = expression
        self.message = message
        self.line = line
        self.column = column
        self.kind = kind
        self.others: list[CelCompileError] = []  # further issues reported together with this one

    @property
    def issues(self) -> list["CelCompileError"]:
        return [self] + list(self.others)

    def __str__(self) -> str:
        return format_compile_detail(self)

    def __repr__(self) -> str:
        return f"CelCompileError({self.kind}, {self.line}:{self.column}, {self.message!r})"


class CelRuntimeError(Exception):
    """An evaluation error, message in cel-go wording (e.g. ``no such key: model``)."""

    def __init__(self, expression: str, message: str, line: int | None = None,
                 column: int | None = None):
        super().__init__(message)
        self.expression = expression
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"CelRuntimeError({self.line}:{self.column}, {self.message!r})"


def _snippet(expression: str, line: int, column: int) -> str:
    lines = expression.split("\n")
    if not (1 <= line <= len(lines)):
        return ""
    src = lines[line - 1]
    marker = "".join("\t" if ch == "\t" else "." for ch in src[:max(column - 1, 0)]) + "^"
    return f"\n | {src}\n | {marker}"


def format_issue(err: CelCompileError) -> str:
    """One cel-go issue: ``ERROR: <input>:L:C: msg`` plus source line and caret."""
    if err.line is None or err.column is None:
        return f"ERROR: <input>:-1:0: {err.message}"
    return (f"ERROR: <input>:{err.line}:{err.column}: {err.message}"
            + _snippet(err.expression, err.line, err.column))


def format_compile_detail(err: CelCompileError) -> str:
    """The detail Kubernetes puts after ``CEL compile error: ``.

    cel-go issues become ``compilation failed: ERROR: ...``; the result-type check, the cost
    estimate and the length limit are plain sentences (compile.go / validation).
    """
    if err.kind in ("syntax", "check") and not err.message.startswith("must evaluate to"):
        return "compilation failed: " + "\n".join(format_issue(e) for e in err.issues)
    return err.message


def format_compile_error(err: CelCompileError) -> str:
    """``CEL compile error: compilation failed: ERROR: <input>:1:5: ...`` (+ source and caret)."""
    return "CEL compile error: " + format_compile_detail(err)


def runtime_detail(err: CelRuntimeError) -> str:
    msg = err.message
    if msg.startswith("no such key:") and not msg.endswith("for optional fields"):
        msg += NO_SUCH_KEY_HINT
    return msg


def format_runtime_error(err: CelRuntimeError) -> str:
    """``CEL runtime error: <msg>`` (with the upstream optional-chaining hint for missing keys).

    The allocator prefixes ``class <c>: selector #<i> on device <driver>/<pool>/<device>: ``.
    """
    return "CEL runtime error: " + runtime_detail(err)


def format_runtime_caret(err: CelRuntimeError) -> str:
    """dractl extra (not part of the upstream text): source line with a caret at the failing node."""
    if err.line is None or err.column is None:
        return ""
    return _snippet(err.expression, err.line, err.column).lstrip("\n")
