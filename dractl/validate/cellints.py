"""dractl's own CEL lint: selectors that kube-scheduler's CEL fails on at run time.

DRA1907 -- an optional holding a Kubernetes library value (semver, quantity, ip, cidr, url) read
back from a comprehension variable (``cel.bind``, ``exists``, ``all``, ``map``, ...). The API
server accepts the expression; kube-scheduler's cel-go v0.27 turns the read into the error
"unsupported conversion to ref.Val" (dractl/cel/optionalvars.py has the mechanism), so every
claim using the selector fails to allocate. The lint names the position inside the expression
the way DRA1901 does (``<input>:line:column``).
"""

from __future__ import annotations

from dractl.findings import WARNING, register

C_OPTIONAL_VARIABLE = register(
    "DRA1907", WARNING,
    "CEL selector reads an optional semver/quantity back from a comprehension variable: "
    "kube-scheduler fails with \"unsupported conversion to ref.Val\"", "dractl")

_GO_TYPES = {"semver": "semver.Version", "quantity": "*resource.Quantity", "ip": "netip.Addr",
             "cidr": "netip.Prefix", "url": "*url.URL"}


# (expression, environment) -> its messages. A corpus repeats its selectors (every claim made
# from one template, every copy of a class): the walk over the checked AST runs once for each.
_messages_cache: dict[tuple, tuple[str, ...]] = {}
_MESSAGES_CACHE_MAX = 4096


def optional_variable_messages(expression: str, gates) -> list[str]:
    """One message per failing read, or none (also when the expression does not compile)."""
    env = ("new", gates.enabled("DRAConsumableCapacity"), gates.enabled("DRAListTypeAttributes"))
    key = (expression, env)
    messages = _messages_cache.get(key)
    if messages is None:
        messages = _lint(expression, env)
        if len(_messages_cache) >= _MESSAGES_CACHE_MAX:
            _messages_cache.clear()
        _messages_cache[key] = messages
    return list(messages)


def _lint(expression: str, env: tuple) -> tuple[str, ...]:
    from dractl.cel.engine import compile_cached
    from dractl.cel.errors import CelCompileError
    from dractl.cel.optionalvars import find_broken_reads
    from dractl.cel.parser import line_col

    try:
        compiled = compile_cached(expression, env)
    except CelCompileError:
        return ()
    return tuple(_message(expression, read, line_col(expression, read.offset))
                 for read in find_broken_reads(compiled.ast, compiled.types or {}))


def _message(expression: str, read, position: tuple[int, int]) -> str:
    line, column = position
    what = f"a {read.library}" if read.library else "a version or quantity attribute"
    go_type = _GO_TYPES.get(read.library, "semver.Version")
    return (f"<input>:{line}:{column}: `{read.variable}` (bound by {read.binder}) holds an "
            f"optional of {what}; kube-scheduler's CEL (cel-go v0.27) cannot read such an "
            f"optional back from a comprehension variable and fails with \"unsupported "
            f"conversion to ref.Val: ({go_type})...\" whenever the value is present, and the "
            f"claim is not allocated. "
            f"Take the value out before binding it (cel.bind({read.variable}, "
            f"<attribute>.?name.orValue(<default>), ...)), or use the optional without a "
            f"variable (<attribute>.?name.value()...)")
