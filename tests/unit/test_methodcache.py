"""dractl.cli.methodcache: the compiled dataclass methods served from a cache beside the bytecode.

What must hold: classes made through the cache behave exactly as without it; a second run of the
real entry point compiles none of the texts the first one did; the file goes where Python puts
dractl's .pyc (PYTHONPYCACHEPREFIX honoured), never elsewhere, and is not written under
PYTHONDONTWRITEBYTECODE; a file someone else could have written, a damaged one or a foreign one
is ignored.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dractl.cli import methodcache

REPO = Path(__file__).resolve().parents[2]

# A child that runs the real console entry point with `compile` counted inside dataclasses'
# `exec` path: it prints how many texts it had to compile (the cache's misses).
_COUNTING_CHILD = """
import sys
from dractl.cli import methodcache
compiled = []
real_compile = compile
def counting_compile(*args, **kwargs):
    compiled.append(1)
    return real_compile(*args, **kwargs)
methodcache.compile = counting_compile   # the cache compiles through this module's name
import atexit, os
real_exit = os._exit
def report_then_exit(status):
    sys.stderr.write(f"compiled={len(compiled)}\\n")
    sys.stderr.flush()
    real_exit(status)
os._exit = report_then_exit
sys.argv = ["dractl"] + sys.argv[1:]
from dractl.cli.entry import entry
entry()
"""


def _run_entry(args: list[str], env: dict) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "DRACTL_DEBUG")}
    full.update(env)
    return subprocess.run([sys.executable, "-c", _COUNTING_CHILD, *args], env=full, cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def _compiled(run: subprocess.CompletedProcess) -> int:
    line = [x for x in run.stderr.splitlines() if x.startswith("compiled=")][-1]
    return int(line.split("=")[1])


def _cache_files(root: Path) -> list[Path]:
    return sorted(root.rglob("dataclass-methods.*.marshal"))


def test_second_run_compiles_nothing_the_first_compiled(tmp_path):
    prefix = tmp_path / "pycache"
    args = ["allocate", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml"]
    first = _run_entry(args, {"PYTHONPYCACHEPREFIX": str(prefix)})
    second = _run_entry(args, {"PYTHONPYCACHEPREFIX": str(prefix)})
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert first.stdout == second.stdout
    assert _compiled(first) > 50          # every dataclass method of the run, compiled once
    assert _compiled(second) == 0         # ... and served from the cache the next time
    files = _cache_files(prefix)
    assert len(files) == 1
    # Where Python writes dractl/__init__.py's bytecode under that prefix (the source
    # directory's absolute path below the prefix, no __pycache__ level).
    import dractl
    package_dir = Path(dractl.__file__).resolve().parent
    assert files[0].parent == prefix / str(package_dir).lstrip(os.sep)
    assert files[0].name == f"dataclass-methods.{sys.implementation.cache_tag}.marshal"


def test_nothing_written_under_dont_write_bytecode(tmp_path):
    prefix = tmp_path / "pycache"
    run = _run_entry(["validate", "examples/gpu-pod.yaml"],
                     {"PYTHONPYCACHEPREFIX": str(prefix), "PYTHONDONTWRITEBYTECODE": "1"})
    assert run.returncode == 0, run.stderr
    assert _compiled(run) > 0
    assert _cache_files(prefix) == []


@pytest.fixture
def cache_at(tmp_path, monkeypatch):
    """methodcache pointed at a file in tmp_path, installed for the test, restored after."""
    path = tmp_path / "dataclass-methods.test.marshal"
    monkeypatch.setattr(methodcache, "_cache_path", lambda: str(path))
    monkeypatch.setattr(methodcache, "_codes", {})
    monkeypatch.setattr(methodcache, "_added", False)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    methodcache.uninstall()
    yield path
    methodcache.uninstall()


def _make_class():
    @dataclasses.dataclass(frozen=True)
    class Sample:
        name: str
        items: list = dataclasses.field(default_factory=list, compare=False)
        count: int = 0
    return Sample


def test_classes_through_the_cache_behave_the_same(cache_at):
    plain = _make_class()
    methodcache.install()
    cached = _make_class()          # compiled, remembered
    methodcache.save()
    methodcache.uninstall()
    methodcache._codes.clear()
    methodcache.install()           # read back from the file
    served = _make_class()
    assert methodcache._added is False
    for cls in (plain, cached, served):
        a, b = cls("x", [1]), cls("x", [2])
        assert a == b and hash(a) == hash(b)
        assert repr(a) == "_make_class.<locals>.Sample(name='x', items=[1], count=0)"
        with pytest.raises(dataclasses.FrozenInstanceError):
            a.name = "y"
        assert [f.name for f in dataclasses.fields(cls)] == ["name", "items", "count"]


def _write_cache(path: Path, table: dict, mode: int = 0o644) -> None:
    path.write_bytes(methodcache._FORMAT + marshal.dumps(table))
    os.chmod(path, mode)


def _planted_table() -> dict:
    # A text dataclasses would compile for some class, mapped to code that records it was used.
    marker_code = compile("def __create_fn__():\n def f(self): return 'planted'\n return f",
                          "<string>", "exec")
    return {"PLANTED": marker_code}


def test_a_file_others_may_write_is_ignored(cache_at):
    _write_cache(cache_at, _planted_table(), mode=0o666)
    os.chmod(cache_at, 0o666)
    methodcache.install()
    assert "PLANTED" not in methodcache._codes


def test_own_file_is_read(cache_at):
    _write_cache(cache_at, _planted_table())
    methodcache.install()
    assert "PLANTED" in methodcache._codes


@pytest.mark.parametrize("content", [b"", b"garbage", methodcache._FORMAT + b"\x00\x01junk",
                                     methodcache._FORMAT + marshal.dumps([1, 2, 3]),
                                     methodcache._FORMAT + marshal.dumps({"text": "not code"})])
def test_damaged_or_foreign_files_are_ignored(cache_at, content):
    cache_at.write_bytes(content)
    methodcache.install()
    assert methodcache._codes == {}
    cls = _make_class()              # still works, compiled afresh
    assert cls("a").count == 0
    methodcache.save()               # and the file is rebuilt
    assert cache_at.read_bytes().startswith(methodcache._FORMAT)


def test_exec_without_namespaces_runs_in_the_callers(cache_at):
    """dataclasses passes its namespaces today; were one left out, the code must still run where
    the builtin exec would run it (the caller's frame), not in methodcache's module."""
    seen: dict = {}
    methodcache._exec("seen['module'] = __name__", None, {"seen": seen})
    assert seen["module"] == __name__ != "dractl.cli.methodcache"
    namespace: dict = {}
    methodcache._exec("x = __name__", {"__name__": "given"}, namespace)
    assert namespace["x"] == "given"
