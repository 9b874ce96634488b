"""Hostile files (issue #10, part 2): each one ends in a clear finding or error, in bounded time
and memory, and never hides what dractl found in the other inputs.

Run through the real `dractl` entry point as a subprocess where memory or blocking matters
(peak RSS from wait4, a hard kill on overrun), in-process elsewhere.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys

import pytest

from cli_harness import assert_ok, run_inproc, run_subprocess

GOOD = (b"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: good\n"
        b"spec:\n  selectors:\n  - cel:\n      expression: 'device.driver == \"gpu.example.com\"'\n")
# A finding that only appears when this document really was read and checked.
BAD_NAME = (b"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: Not_A_Name\n")
# Generous, to stay green on a loaded 2-core CI runner; the point is "not minutes, not GBs".
TIME_LIMIT = 20.0
MEMORY_LIMIT_KB = 600 * 1024


def findings(run):
    return json.loads(run.out)["findings"]


def codes_by_file(run):
    out = {}
    for f in findings(run):
        out.setdefault(os.path.basename(f["file"]), set()).add(f["code"])
    return out


def write(path, data: bytes):
    path.write_bytes(data)
    return path


def alias_bomb(levels: int = 10, width: int = 10) -> bytes:
    lines = [f'  a0: &a0 [{",".join(["lol"] * width)}]']
    for i in range(1, levels):
        lines.append(f"  a{i}: &a{i} [{','.join([f'*a{i - 1}'] * width)}]")
    return (b"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: bomb\nspec:\n"
            + "\n".join(lines).encode() + b"\n")


@pytest.fixture
def good(tmp_path):
    return write(tmp_path / "good.yaml", GOOD)


@pytest.fixture(autouse=True)
def _no_config_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


# ---- YAML alias bombs ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", ["billion-laughs", "merge-keys", "wide", "in-list", "json-flow"])
def test_alias_bomb(tmp_path, good, shape):
    if shape == "billion-laughs":
        data = alias_bomb()
    elif shape == "merge-keys":  # << merges copy mappings: a bomb without sequences
        lines = ["x0: &x0 {" + ", ".join(f"k{j}: v" for j in range(10)) + "}"]
        for i in range(1, 9):
            lines.append(f"x{i}: &x{i} {{" + ", ".join(f"m{j}: *x{i - 1}" for j in range(10)) + "}")
        data = (b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                + "\n".join("  " + l for l in lines).encode() + b"\n")
    elif shape == "wide":  # one anchor used 100,000 times: quadratic, not exponential
        data = (b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  a: &a [" + b"x," * 100
                + b"x]\n  b: [" + b"*a," * 100_000 + b"*a]\n")
    elif shape == "in-list":
        data = b"apiVersion: v1\nkind: List\nitems:\n- " + alias_bomb().replace(b"\n", b"\n  ")
    else:
        data = alias_bomb(9).replace(b"[", b"[ ").replace(b"]", b" ]")
    bomb = write(tmp_path / "bomb.yaml", data)
    run = run_subprocess(["validate", bomb, good, "-o", "json"], timeout=TIME_LIMIT)
    assert_ok(run, "json")
    assert run.code == 1
    assert run.max_rss_kb < MEMORY_LIMIT_KB, f"peak memory {run.max_rss_kb} KB"
    by_file = codes_by_file(run)
    assert by_file["bomb.yaml"] & {"DRA0010", "DRA0011"}, by_file
    assert "good.yaml" not in by_file  # the good file was read and is clean


def test_alias_bomb_just_under_the_limit_stays_fast(tmp_path):
    """~900,000 nodes after expansion are allowed; every later stage must cope in bounded time."""
    device = "{name: d, attributes: {" + ", ".join(f"a{j}: {{int: {j}}}" for j in range(30)) + "}}"
    data = ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
            "  driver: gpu.example.com\n  nodeName: n\n  pool: {name: p, resourceSliceCount: 1}\n"
            f"  x: &dev {device}\n  devices: [" + ", ".join(["*dev"] * 7000) + "]\n").encode()
    path = write(tmp_path / "wide.yaml", data)
    run = run_inproc(["validate", path, "-o", "json"], time_limit=TIME_LIMIT)
    assert_ok(run, "json")
    assert run.code == 1


# ---- deep nesting --------------------------------------------------------------------------------

def _nested(style: str, depth: int) -> tuple[str, bytes]:
    head = "apiVersion: v1\nkind: Pod\nmetadata: {name: deep}\nspec:\n  x: "
    if style == "flow-seq":
        return "deep.yaml", (head + "[" * depth + "]" * depth + "\n").encode()
    if style == "flow-map":
        return "deep.yaml", (head + "{a: " * depth + "1" + "}" * depth + "\n").encode()
    if style == "block-map":  # one space per level
        return "deep.yaml", (head + "\n" + "".join(" " * (i + 3) + "k:\n" for i in range(depth))).encode()
    if style == "block-seq":
        return "deep.yaml", (head + "\n   " + "- " * depth + "x\n").encode()
    if style == "json":
        return "deep.json", ('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "deep"}, '
                             '"spec": ' + '{"a": ' * depth + "1" + "}" * depth + "}").encode()
    if style == "json-array":
        return "deep.json", ('{"apiVersion": "v1", "kind": "Pod", "spec": '
                             + "[" * depth + "]" * depth + "}").encode()
    raise ValueError(style)


STYLES = ["flow-seq", "flow-map", "block-map", "block-seq", "json", "json-array"]


@pytest.mark.parametrize("style", STYLES)
def test_nesting_10000_levels(tmp_path, good, style):
    name, data = _nested(style, 10_000)
    path = write(tmp_path / name, data)
    run = run_subprocess(["validate", path, good, "-o", "json"], timeout=TIME_LIMIT)
    assert_ok(run, "json")
    assert run.code == 1
    assert run.max_rss_kb < MEMORY_LIMIT_KB, f"peak memory {run.max_rss_kb} KB"
    by_file = codes_by_file(run)
    assert "DRA0011" in by_file[name], by_file
    assert "good.yaml" not in by_file


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("depth", [99, 101, 150, 300, 700, 999, 1500, 2500])
def test_nesting_around_the_limits(tmp_path, style, depth):
    """Depths that slip past the cheap pre-check reach the parser and every later stage, in
    every command: still a finding, never a RecursionError."""
    name, data = _nested(style, depth)
    for args in (["validate", "-o", "json"], ["allocate", "-o", "json", "--timeout", "2"],
                 ["env", "-o", "json"]):
        run = run_inproc([args[0], "-", *args[1:]], stdin=data, time_limit=TIME_LIMIT)
        assert_ok(run, "json")
        if depth > 100:
            assert any(f["code"] == "DRA0011" for f in findings(run)), run.out[:1000]


# ---- huge files ----------------------------------------------------------------------------------

def _sparse(path, size):
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


def test_200_mb_file(tmp_path, good):
    big = _sparse(tmp_path / "big.yaml", 200 * 1024 * 1024)  # instant: a sparse file
    sub = tmp_path / "tree"
    sub.mkdir()
    _sparse(sub / "big-in-dir.yaml", 200 * 1024 * 1024)
    run = run_subprocess(["validate", big, sub, good, "-o", "json"], timeout=TIME_LIMIT)
    assert_ok(run, "json")
    assert run.code == 1
    assert run.max_rss_kb < MEMORY_LIMIT_KB, f"peak memory {run.max_rss_kb} KB"
    by_file = codes_by_file(run)
    assert by_file["big.yaml"] == {"DRA0009"} and by_file["big-in-dir.yaml"] == {"DRA0009"}
    assert "good.yaml" not in by_file


def test_200_mb_on_stdin(tmp_path):
    """Standard input has no size to check first: reading stops at the limit."""
    big = _sparse(tmp_path / "big.yaml", 200 * 1024 * 1024)
    with open(big, "rb") as fh:
        run = run_subprocess(["validate", "-", "-o", "json"], stdin=b"", timeout=TIME_LIMIT,
                             stdin_file=fh)
    assert_ok(run, "json")
    assert run.max_rss_kb < MEMORY_LIMIT_KB, f"peak memory {run.max_rss_kb} KB"
    assert [f["code"] for f in findings(run)] == ["DRA0009"]


def test_dev_zero_on_stdin():
    with open("/dev/zero", "rb") as fh:
        run = run_subprocess(["validate", "-"], timeout=TIME_LIMIT, stdin_file=fh)
    assert_ok(run)
    assert "DRA0009" in run.out
    assert run.max_rss_kb < MEMORY_LIMIT_KB, f"peak memory {run.max_rss_kb} KB"


def test_one_huge_line(tmp_path, good):
    """40 MB on one line (under the size limit): a long scalar, no quadratic behaviour."""
    data = b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {x: " + b"a" * 40_000_000 + b"}\n"
    path = write(tmp_path / "line.yaml", data)
    run = run_subprocess(["validate", path, good, "-o", "json"], timeout=TIME_LIMIT * 2)
    assert_ok(run, "json")
    assert run.max_rss_kb < 2 * MEMORY_LIMIT_KB, f"peak memory {run.max_rss_kb} KB"


# ---- binary and non-UTF-8 -----------------------------------------------------------------------

ENCODED = {
    "random-binary": (os.urandom(4096) + b"\x00", {"DRA0008"}),
    "png": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + os.urandom(200), {"DRA0008"}),
    "elf": (b"\x7fELF\x02\x01\x01" + bytes(100), {"DRA0008"}),
    "gzip": (b"\x1f\x8b\x08\x00" + bytes(20) + os.urandom(50), {"DRA0008"}),
    "latin-1": ("apiVersion: v1\nkind: Pod\nmetadata: {name: café}\n".encode("latin-1"), {"DRA0006"}),
    "cp1252-quotes": (b"apiVersion: v1\nkind: Pod\nmetadata: {name: \x93p\x94}\n", {"DRA0006"}),
    "overlong-utf8": (b"apiVersion: v1\nkind: Pod\nmetadata: {name: \xc0\xaf}\n", {"DRA0006"}),
    "utf8-surrogate": (b"apiVersion: v1\nkind: Pod\nmetadata: {name: \xed\xa0\x80}\n", {"DRA0006"}),
    "truncated-utf8": (b"apiVersion: v1\nkind: Pod\nmetadata: {name: \xe2\x82}\n", {"DRA0006"}),
    "utf16-no-bom": ("apiVersion: v1\nkind: Pod\n".encode("utf-16-le"), {"DRA0008"}),
    "utf16-bad": (b"\xff\xfe" + "apiVersion: v1\n".encode("utf-16-le") + b"\x00\xd8", {"DRA0006"}),
    "utf32-bad": (b"\xff\xfe\x00\x00" + b"\xff\xff\xff\xff", {"DRA0006"}),
    "control-chars": (b"apiVersion: v1\nkind: Pod\nmetadata: {name: \"\x1b[31mred\x07\"}\n", {"DRA0001"}),
    "nul-at-end": (GOOD + b"\x00", {"DRA0008"}),
}


@pytest.mark.parametrize("kind", sorted(ENCODED))
def test_binary_and_non_utf8(tmp_path, good, kind):
    data, expected = ENCODED[kind]
    path = write(tmp_path / f"{kind}.yaml", data)
    for fmt in ("text", "json"):
        run = run_inproc(["validate", path, good, "-o", fmt])
        assert_ok(run, fmt)
        assert run.code == 1
    by_file = codes_by_file(run)
    assert by_file[f"{kind}.yaml"] == expected, by_file
    assert "good.yaml" not in by_file
    # stdin too, and the same finding
    run = run_inproc(["validate", "-", "-o", "json"], stdin=data)
    assert_ok(run, "json")
    assert {f["code"] for f in findings(run)} == expected


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_unicode_with_bom_is_read(tmp_path, encoding):
    path = write(tmp_path / "bom.yaml", ("\ufeff" + BAD_NAME.decode()).encode(encoding))
    run = run_inproc(["validate", path, "-o", "json"])
    assert_ok(run, "json")
    assert "Not_A_Name" in run.out  # decoded and checked like UTF-8 without a BOM
    assert not {f["code"] for f in findings(run)} & {"DRA0006", "DRA0008", "DRA0001"}


# ---- special files -------------------------------------------------------------------------------

def test_fifo_given_as_path_does_not_block(tmp_path, good):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    run = run_subprocess(["validate", fifo, good], timeout=TIME_LIMIT)
    assert_ok(run)
    assert run.code == 2
    assert "FIFO" in run.err and "DRA0013" in run.out


def test_fifo_inside_a_directory_is_reported_not_opened(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    os.mkfifo(tree / "pipe.yaml")
    write(tree / "bad.yaml", BAD_NAME)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tree / "sock.yaml"))
        run = run_subprocess(["validate", tree, "-o", "json"], timeout=TIME_LIMIT)
    finally:
        sock.close()
    assert_ok(run, "json")
    by_file = codes_by_file(run)
    assert by_file["pipe.yaml"] == {"DRA0013"} and by_file["sock.yaml"] == {"DRA0013"}
    assert by_file["bad.yaml"]  # the other file was still checked


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null", "/dev/full"])
def test_device_given_as_path(device, good):
    if not os.path.exists(device):
        pytest.fail(f"{device} missing on this machine")
    run = run_subprocess(["validate", device, good], timeout=TIME_LIMIT)
    assert_ok(run)
    assert run.code == 2 and "DRA0013" in run.out and device in run.err
    assert run.max_rss_kb < MEMORY_LIMIT_KB


def test_symlinks_to_devices_inside_a_directory(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    for device in ("/dev/zero", "/dev/urandom"):
        os.symlink(device, tree / f"{os.path.basename(device)}.yaml")
    write(tree / "bad.yaml", BAD_NAME)
    run = run_subprocess(["validate", tree, "-o", "json"], timeout=TIME_LIMIT)
    assert_ok(run, "json")
    assert run.max_rss_kb < MEMORY_LIMIT_KB
    by_file = codes_by_file(run)
    assert by_file["zero.yaml"] == {"DRA0013"} and by_file["urandom.yaml"] == {"DRA0013"}
    assert by_file["bad.yaml"]


@pytest.mark.parametrize("command", ["allocate", "env"])
def test_special_files_as_inventory(command, tmp_path):
    fifo = tmp_path / "inv.yaml"
    os.mkfifo(fifo)
    for inventory in (str(fifo), "/dev/zero", "builtin:../../etc/passwd", "builtin:"):
        run = run_subprocess([command, "-i", inventory], timeout=TIME_LIMIT)
        assert_ok(run)
        assert run.code == 2, (inventory, run.out, run.err)


# ---- unreadable files ----------------------------------------------------------------------------

def _as_unprivileged():
    """preexec_fn that drops root (root reads everything, so chmod alone tests nothing)."""
    if os.geteuid() != 0:
        return None

    def drop():
        os.setgid(65534)
        os.setuid(65534)
    return drop


def test_unreadable_files_and_directories(tmp_path_factory):
    base = tmp_path_factory.mktemp("unreadable")
    os.chmod(base, 0o755)
    parent = base
    while parent != parent.parent:  # nobody must be able to reach the tree
        if not os.stat(parent).st_mode & stat.S_IXOTH:
            pytest.fail(f"{parent} is not traversable by others; cannot drop privileges here")
        parent = parent.parent
    tree = base / "tree"
    (tree / "locked").mkdir(parents=True)
    write(tree / "locked" / "hidden.yaml", GOOD)
    write(tree / "secret.yaml", GOOD)
    write(tree / "bad.yaml", BAD_NAME)
    lone = write(base / "lone.yaml", GOOD)
    for p in (tree, base):
        os.chmod(p, 0o755)
    os.chmod(tree / "bad.yaml", 0o644)
    os.chmod(tree / "secret.yaml", 0o000)
    os.chmod(lone, 0o000)
    os.chmod(tree / "locked", 0o000)
    try:
        run = run_subprocess(["validate", tree, "-o", "json"], timeout=TIME_LIMIT,
                             preexec_fn=_as_unprivileged(), cwd=base)
        assert_ok(run, "json")
        assert run.code == 2  # unreadable input
        by_file = codes_by_file(run)
        assert by_file["secret.yaml"] == {"DRA0012"} and by_file["locked"] == {"DRA0012"}, by_file
        assert by_file["bad.yaml"]  # still checked
        run = run_subprocess(["validate", lone, tree / "bad.yaml"], timeout=TIME_LIMIT,
                             preexec_fn=_as_unprivileged(), cwd=base)
        assert_ok(run)
        assert run.code == 2 and "lone.yaml" in run.err and "permission denied" in run.err.lower()
    finally:
        for p in (tree / "secret.yaml", lone, tree / "locked"):
            os.chmod(p, 0o755)


# ---- symlink loops and 100,000 files -------------------------------------------------------------

def test_symlink_loops(tmp_path):
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    os.symlink(".", tree / "self")
    os.symlink("..", tree / "a" / "b" / "up")
    os.symlink(tree, tree / "a" / "root")
    os.symlink("x.yaml", tree / "x.yaml")                 # a symlink to itself (ELOOP)
    os.symlink("ping.yaml", tree / "pong.yaml")
    os.symlink("pong.yaml", tree / "ping.yaml")
    os.symlink("../../a", tree / "a" / "b" / "c")         # a ring of three
    os.symlink("missing/far/away.yaml", tree / "dangling.yaml")
    write(tree / "a" / "b" / "bad.yaml", BAD_NAME)
    run = run_subprocess(["validate", tree, tree / "self", "-o", "json"], timeout=TIME_LIMIT)
    assert_ok(run, "json")
    by_file = codes_by_file(run)
    assert "DRA0013" in by_file["x.yaml"] and "DRA0013" in by_file["dangling.yaml"], by_file
    assert by_file["bad.yaml"] - {"DRA0013"}  # checked exactly once
    bad = [f for f in findings(run) if f["file"].endswith("bad.yaml")]
    assert len({(f["code"], f["message"]) for f in bad}) == len(bad), "a file was read twice"


def test_100000_files(tmp_path):
    tree = tmp_path / "many"
    tree.mkdir()
    n = 100_000
    for d in range(100):
        sub = tree / f"d{d:02d}"
        sub.mkdir()
        for i in range(n // 100):
            # every 1,000th file is a broken manifest; the rest are small valid Nodes or empty
            k = d * (n // 100) + i
            if k % 1000 == 999:
                data = BAD_NAME
            elif k % 10 == 0:
                data = b"apiVersion: v1\nkind: Node\nmetadata: {name: n%d}\n" % k
            else:
                data = b""
            with open(sub / f"f{i:04d}.yaml", "wb") as fh:
                fh.write(data)
    run = run_subprocess(["validate", tree, "-o", "json", "--ignore", "DRA0007"], timeout=120)
    assert_ok(run, "json")
    assert run.code == 1
    assert run.max_rss_kb < 2 * MEMORY_LIMIT_KB, f"peak memory {run.max_rss_kb} KB"
    doc = json.loads(run.out)
    assert doc["summary"]["files"] == n
    broken = {f["file"] for f in doc["findings"] if f["severity"] == "error"}
    assert len(broken) == n // 1000
