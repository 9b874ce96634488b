"""Nothing is unpickled or imported from the shared temp directory
(docs/decisions/0004-own-cel-engine.md).

dractl's earlier CEL parser built its lark parser with ``cache=True``: lark pickled the parse table
to ``$TMPDIR/.lark_cache_<user>_<hash>_<py>.tmp`` and, on the next run, unpickled whatever file was
at that predictable name, whoever wrote it. Another local user could create it first (the sticky
bit of /tmp allows that) and run code as the next person to run dractl.

Here a hostile "cache" (a pickle that creates a marker file when loaded) is planted at exactly the
name the earlier parser used, in a private TMPDIR. A positive control shows the planted file is
live: building the earlier parser (tests/unit/cel/lark_reference.py) with lark's cache, as dractl
did, creates the marker. Then the real ``dractl`` entry point runs validate, allocate and env on
manifests with CEL selectors (valid and invalid ones), with that TMPDIR: the marker never
appears, and dractl leaves nothing of its own in the temp directory either.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import run_subprocess

REPO = Path(__file__).resolve().parents[2]
REFERENCE_DIR = REPO / "tests" / "unit" / "cel"

CLAIMS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: one-gpu
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
        - cel:
            expression: device.attributes["gpu.example.com"].model.matches("^A1[0-9]+") || x ==
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: broken
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: '"unterminated'
"""

# Build the earlier parser with lark's cache, exactly as dractl did before (same grammar, same
# options, so the same cache file name).
_OLD_PARSER_WITH_CACHE = f"""
import sys
sys.path.insert(0, {str(REFERENCE_DIR)!r})
import lark, lark_reference
lark.Lark(lark_reference._patched_grammar(), cache=True, **lark_reference.lark_options())
"""


class _CreatesMarker:
    """Unpickling this creates the marker file (open(path, "w")): proof that code ran."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _build_old_parser_with_cache(tmpdir: Path) -> None:
    env = dict(os.environ, TMPDIR=str(tmpdir))
    subprocess.run([sys.executable, "-c", _OLD_PARSER_WITH_CACHE], env=env, check=True,
                   capture_output=True, timeout=120)


def _lark_cache_name(tmp_path: Path) -> str:
    """The name lark's cache file gets for dractl's earlier parser (lark writes it here)."""
    probe = tmp_path / "probe"
    probe.mkdir()
    _build_old_parser_with_cache(probe)
    names = [p.name for p in probe.iterdir() if p.name.startswith(".lark_cache_")]
    assert len(names) == 1, names
    return names[0]


@pytest.fixture
def hostile_tmpdir(tmp_path: Path):
    """A private TMPDIR with a hostile lark cache planted; yields (tmpdir, marker)."""
    name = _lark_cache_name(tmp_path)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    marker = tmp_path / "PWNED"
    (tmpdir / name).write_bytes(b"0" * 64 + b"\n" + pickle.dumps(_CreatesMarker(str(marker))))
    return tmpdir, marker


def test_planted_cache_would_run_under_the_earlier_parser(hostile_tmpdir) -> None:
    """Positive control: the planted file is live, the way the earlier dractl built its parser."""
    tmpdir, marker = hostile_tmpdir
    _build_old_parser_with_cache(tmpdir)
    assert marker.exists()


@pytest.mark.parametrize("args", [
    ["validate", "{claims}"],
    ["validate", "{claims}", "-o", "json"],
    ["allocate", "-i", "builtin:example-gpu", str(REPO / "examples" / "gpu-pod.yaml")],
    ["allocate", "-i", "builtin:example-gpu", "{claims}"],
    ["env", "-i", "builtin:example-gpu", str(REPO / "examples" / "gpu-pod.yaml")],
])
def test_dractl_never_loads_a_planted_cache(hostile_tmpdir, tmp_path: Path, args: list) -> None:
    tmpdir, marker = hostile_tmpdir
    before = sorted(p.name for p in tmpdir.iterdir())
    claims = tmp_path / "claims.yaml"
    claims.write_text(CLAIMS)
    run = run_subprocess([a.replace("{claims}", str(claims)) for a in args],
                         env={"TMPDIR": str(tmpdir)}, cwd=tmp_path)
    assert run.code in (0, 1), (run.code, run.err[-2000:])
    assert not run.problems(), run.problems()
    if "{claims}" in args and args[0] == "validate":
        assert "Syntax error" in run.out + run.err  # the CEL selectors were compiled
    assert not marker.exists(), "dractl unpickled the planted cache file"
    assert sorted(p.name for p in tmpdir.iterdir()) == before, "dractl wrote to TMPDIR"


def test_dractl_does_not_import_lark_or_celpy() -> None:
    """No parser generator at run time: the CEL layer is dractl's own code
    (docs/decisions/0004-own-cel-engine.md)."""
    code = ("import sys\n"
            "from dractl.cli.app import main\n"
            f"sys.argv = ['dractl', 'allocate', '-i', 'builtin:example-gpu', "
            f"{str(REPO / 'examples' / 'gpu-pod.yaml')!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "import dractl.cel.interp, dractl.cel.checker, dractl.cel.parser\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('lark', 'celpy'))\n"
            "sys.stderr.write('IMPORTED:' + ','.join(bad) + '\\n')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "IMPORTED:\n" in proc.stderr, proc.stderr[-2000:]
