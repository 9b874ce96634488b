"""RE2 regular expressions for ``matches``/``find``/``findAll`` (Kubernetes and cel-go use RE2).

Uses the ``google-re2`` package (a dependency of cel-python, so always installed with dractl): it
matches in linear time, so there is no catastrophic backtracking, and it rejects what RE2 rejects
(look-around, back-references). Patterns are compiled once and cached.
"""

from __future__ import annotations

from functools import lru_cache

from .values import EvalError


def _re2():
    """The re2 module and its options, loaded on the first pattern: most runs have none, and
    the import costs ~2 ms of start-up."""
    global _OPTIONS
    import re2

    if _OPTIONS is None:
        _OPTIONS = re2.Options()
        _OPTIONS.log_errors = False  # otherwise RE2 prints parse errors to stderr
    return re2


_OPTIONS = None


class RegexError(EvalError):
    pass


@lru_cache(maxsize=1024)
def _compile(pattern: str):
    re2 = _re2()
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as e:
        msg = e.args[0] if e.args else str(e)
        if isinstance(msg, bytes):
            msg = msg.decode("utf-8", "replace")
        return RegexError(f"error parsing regexp: {msg}")
    except Exception as e:  # pragma: no cover - defensive (e.g. invalid UTF-8)
        return RegexError(f"error parsing regexp: {e}")


def compile_re(pattern: str):
    r = _compile(pattern)
    if isinstance(r, RegexError):
        raise RegexError(r.message)
    return r


def check_pattern(pattern: str) -> str | None:
    """None if the pattern is valid RE2, else the error message."""
    r = _compile(pattern)
    return r.message if isinstance(r, RegexError) else None
