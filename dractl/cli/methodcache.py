"""A bytecode cache for the methods `dataclasses` writes, so start-up does not compile them again.

Why: `@dataclass` writes each class's `__init__`, `__repr__`, `__eq__` (and, frozen, `__setattr__`,
`__delattr__`, `__hash__`) as source text and compiles it with `exec` when the module is imported:
about 0.1 ms per method here, ~0.5-0.9 ms per class, about 30 ms of the 0.2 s `dractl allocate`
takes to start (63 classes; measured with a wrapper around `dataclasses._process_class`, minimum
of 5 runs). Python caches the bytecode of modules in `__pycache__`, but not of that text.

How: while the CLI imports its modules, the name `exec` inside the `dataclasses` module is this
module's `_exec`, which looks the text up in a table of code objects read from one file beside
dractl's own bytecode (where Python writes `dractl/__pycache__/*.pyc`, honouring
PYTHONPYCACHEPREFIX), compiles and remembers what is missing, and then runs it exactly as `exec`
would: the same text compiled the same way gives the same code object, so the classes are
identical. The table is keyed by the full text, so a changed class simply misses; it is written
back (atomically, through a temporary file and a rename) only when something was added and
bytecode may be written (not under PYTHONDONTWRITEBYTECODE), as Python does for `.pyc` files.

Trust: the file holds code, like a `.pyc`, and sits where dractl's `.pyc` files sit; it is read
only if it belongs to this user or root and nobody else may write it (never from a shared
temporary directory: see tests/hostile/test_no_tmpdir_cache.py).
"""

from __future__ import annotations

import builtins
import dataclasses
import importlib.util
import marshal
import os
import stat
import sys

_FORMAT = b"dractl-dataclass-methods-1\n"
_MAX_BYTES = 4 * 1024 * 1024  # a few hundred small functions: far below; anything bigger is not ours

_codes: dict[str, object] = {}
_added = False
_path: str | None = None


def install() -> None:
    """Serve `dataclasses`' compilations from the cache from now on (idempotent)."""
    global _path
    if dataclasses.__dict__.get("exec") is _exec:
        return
    _path = _cache_path()
    if _path is not None:
        _codes.update(_read(_path))
    dataclasses.exec = _exec  # a module global shadows the builtin `exec` inside dataclasses


def uninstall() -> None:
    """Give `dataclasses` the builtin `exec` back (tests)."""
    if dataclasses.__dict__.get("exec") is _exec:
        del dataclasses.exec


def save() -> None:
    """Write the table back if this run compiled something new (best effort, never raises)."""
    global _added
    if not _added or _path is None or sys.dont_write_bytecode:
        return
    _added = False
    temporary = f"{_path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(_path), exist_ok=True)
        with open(temporary, "wb") as out:
            out.write(_FORMAT + marshal.dumps(_codes))
        os.replace(temporary, _path)
    except (OSError, ValueError):
        try:
            os.unlink(temporary)
        except OSError:
            pass


def _exec(source, globals=None, locals=None, /):
    if isinstance(source, str):
        code = _codes.get(source)
        if code is None:
            global _added
            code = _codes[source] = compile(source, "<string>", "exec")
            _added = True
        source = code
    if globals is None:  # as the builtin would: the calling frame's namespaces, not this module's
        caller = sys._getframe(1)
        globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
    return builtins.exec(source, globals, locals)


def _cache_path() -> str | None:
    """Beside dractl's own bytecode: the directory Python uses for dractl/__init__.py's .pyc."""
    try:
        import dractl

        pyc = importlib.util.cache_from_source(dractl.__file__)
    except (AttributeError, NotImplementedError, TypeError, ValueError):
        return None  # no bytecode cache for this interpreter (sys.implementation.cache_tag None)
    directory, name = os.path.split(pyc)
    tag = name.split(".")[1] if name.count(".") >= 2 else "py"
    return os.path.join(directory, f"dataclass-methods.{tag}.marshal")


def _read(path: str) -> dict:
    try:
        with open(path, "rb") as source:
            info = os.fstat(source.fileno())
            if not _trusted(info):
                return {}
            data = source.read(_MAX_BYTES + 1)
    except OSError:
        return {}
    if len(data) > _MAX_BYTES or not data.startswith(_FORMAT):
        return {}
    try:
        table = marshal.loads(data[len(_FORMAT):])
    except (EOFError, ValueError, TypeError):
        return {}  # written by another Python version, or damaged: rebuilt on the next save
    if not isinstance(table, dict):
        return {}
    return {text: code for text, code in table.items()
            if isinstance(text, str) and type(code) is type(_exec.__code__)}


def _trusted(info: os.stat_result) -> bool:
    owner_ok = info.st_uid in (0, _euid())
    return stat.S_ISREG(info.st_mode) and owner_ok and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _euid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0
