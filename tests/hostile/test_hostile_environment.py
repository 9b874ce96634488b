"""Golden files from strangers, signals, closed and full
streams, special files as --config, terminal width, terminal control in stderr.

Everything runs the installed entry point as a real process. Nothing here asserts a wall-clock
time: a run "ends" when it is reaped within a generous limit, and the process table is read
from /proc.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest
from cli_harness import UNSAFE_CHARS, dractl_command, run_subprocess

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c%d, namespace: default}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]}}
"""


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(CLAIM % 0)
    return tmp_path


def _clean(run, *codes):
    assert run.code in codes, (run.code, run.out[-500:], run.err[-500:])
    assert "Traceback" not in run.out + run.err and "internal error" not in run.err


# -- item 4: --golden / --update ----------------------------------------------------------------

SECRET = "DRACTL_TEST_SECRET=hunter2"


@pytest.mark.parametrize("target", ["/proc/self/environ", "../outside.txt", "fifo", "/etc/passwd"])
def test_golden_symlink_is_refused_and_nothing_is_printed(work, target):
    (work.parent / "outside.txt").write_text("outside content\n")
    if target == "fifo":
        os.mkfifo(work / "fifo")
    os.symlink(target, work / "golden.txt")
    for update in ([], ["--update"]):
        run = run_subprocess(["validate", "c.yaml", "--golden", "golden.txt", *update],
                             cwd=work, env={"DRACTL_TEST_SECRET": "hunter2"}, timeout=60)
        _clean(run, 2)
        assert "symlink" in run.err and "refused" in run.err
        for leak in ("hunter2", "outside content", "root:"):
            assert leak not in run.out + run.err
    assert os.path.islink(work / "golden.txt")  # --update did not replace the link


def test_golden_outside_the_working_tree_needs_the_option(work):
    outside = work.parent / "golden-outside.txt"
    first = run_subprocess(["validate", "c.yaml", "--golden", str(outside), "--update",
                            "--golden-allow-outside"], cwd=work, timeout=60)
    _clean(first, 0)
    refused = run_subprocess(["validate", "c.yaml", "--golden", str(outside)], cwd=work, timeout=60)
    _clean(refused, 2)
    assert "outside the working directory" in refused.err and refused.out == ""
    allowed = run_subprocess(["validate", "c.yaml", "--golden", str(outside),
                              "--golden-allow-outside"], cwd=work, timeout=60)
    _clean(allowed, 0)


@pytest.mark.parametrize("special", ["fifo", "dir", "/dev/zero"])
def test_golden_special_files_are_never_read(work, special):
    if special == "fifo":
        os.mkfifo(work / "g")
    elif special == "dir":
        (work / "g").mkdir()
    args = ["validate", "c.yaml", "--golden", "g" if special != "/dev/zero" else special]
    if special == "/dev/zero":
        args.append("--golden-allow-outside")
    run = run_subprocess(args, cwd=work, timeout=60)
    _clean(run, 2)
    assert run.out == ""


def test_update_keeps_the_mode_and_leaves_no_temporary_file(work):
    golden = work / "golden.txt"
    golden.write_text("old\n")
    golden.chmod(0o600)
    run = run_subprocess(["validate", "c.yaml", "--golden", "golden.txt", "--update"], cwd=work,
                         timeout=60)
    _clean(run, 0)
    assert (golden.stat().st_mode & 0o777) == 0o600 and golden.read_text() != "old\n"
    assert sorted(p.name for p in work.iterdir()) == ["c.yaml", "golden.txt"]


def test_concurrent_updates_leave_one_complete_file(work):
    """Eight processes rewrite the same golden file with different outputs at once: the file is
    always one of them, complete, and no temporary file stays."""
    outputs = {}
    for i in range(8):
        (work / f"in{i}.yaml").write_text("".join(CLAIM % (i * 100 + k) for k in range(i + 1)).replace(
            "\napiVersion", "\n---\napiVersion"))
    for i in range(8):
        run = run_subprocess(["validate", f"in{i}.yaml"], cwd=work, timeout=60)
        outputs[i] = run.out
    procs = [subprocess.Popen(dractl_command() + ["validate", f"in{i}.yaml", "--golden", "g.txt",
                                                  "--update"], cwd=work, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for i in range(8)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert (work / "g.txt").read_text() in outputs.values()
    assert not [p.name for p in work.iterdir() if p.name.startswith(".dractl-golden-")]


# -- item 5: signals in a parallel run ------------------------------------------------------------

def _descendants(pgid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


@pytest.fixture(scope="module")
def many_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("many")
    for i in range(400):
        (root / f"f{i:03}.yaml").write_text(CLAIM % i)
    return root


def _as_a_foreground_command() -> None:
    """SIGINT as a command typed at a terminal gets it: when the tests themselves run in the
    background of a non-interactive shell (`.ci/run &`), SIGINT is inherited ignored, and dractl
    keeps it ignored as every program should."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_at_random_moments_of_a_parallel_run_leaves_nothing(many_files, signum, code):
    """A parallel `validate -j2` over 400 files, the signal sent at a random moment, six times:
    dractl exits with 130/143 (or finished first: 1), and no process of its group remains."""
    rng = random.Random(20)
    for _ in range(6):
        proc = subprocess.Popen(dractl_command() + ["validate", str(many_files), "-j2", "-o", "json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, preexec_fn=_as_a_foreground_command)
        time.sleep(rng.uniform(0.2, 3.0))
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)  # EOF on both pipes: no worker holds them
        assert proc.returncode in (code, 1), (proc.returncode, err[-500:])
        assert b"Traceback" not in err and b"internal error" not in err
        # A leftover worker would stay for good; a dying one may need seconds on a loaded runner.
        for _ in range(300):
            if not _descendants(proc.pid):
                break
            time.sleep(0.1)
        assert _descendants(proc.pid) == []
        if proc.returncode == code:
            assert err.strip().splitlines()[-1] in (b"dractl: interrupted", b"dractl: terminated")


def test_a_worker_crash_ends_every_worker(many_files, tmp_path):
    """A worker hitting an internal error: dractl reports it, exits 2, and its workers are gone
    (a CI step waiting for end of file on dractl's output does not hang)."""
    script = tmp_path / "crash.py"
    script.write_text(
        "import os, sys\n"
        "import dractl.pipeline.executor as ex\n"
        "real = ex._check_chunk\n"
        "def broken(items, *a):\n"
        # Any chunk a worker gets (which ones do depends on timing: dractl's own process
        # checks chunks from the back of the list while the workers take them from the front).
        "    if os.getpid() != int(os.environ['PARENT']):\n"
        "        raise ValueError('worker bug')\n"
        "    return real(items, *a)\n"
        "ex._check_chunk = broken\n"
        "os.environ['PARENT'] = str(os.getpid())\n"
        "from dractl.cli.entry import entry\n"
        "sys.argv = ['dractl'] + sys.argv[1:]\n"
        "entry()\n")
    proc = subprocess.Popen([sys.executable, str(script), "validate", str(many_files), "-j2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, "PARENT": "0"})
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and b"worker bug" in err and b"Traceback" not in err
    assert _descendants(proc.pid) == []


def test_sigpipe_is_quiet(many_files):
    proc = subprocess.run(f"{' '.join(dractl_command())} validate {many_files} | head -1",
                          shell=True, capture_output=True, timeout=120)
    assert proc.stderr == b"" and len(proc.stdout.splitlines()) == 1


# -- item 6: streams, special files, terminal width ---------------------------------------------

@pytest.mark.parametrize("args", [["--version"], ["validate", "c.yaml"], ["validate", "c.yaml", "-o", "json"],
                                  ["allocate", "-i", "builtin:example-gpu", "c.yaml"]])
@pytest.mark.parametrize("redirect", [">&-", "2>&-", ">/dev/full"])
def test_closed_or_full_streams_are_a_clean_exit_2(work, args, redirect):
    command = " ".join(dractl_command() + args) + " " + redirect
    proc = subprocess.run(command, shell=True, cwd=work, capture_output=redirect != ">&-",
                          stderr=subprocess.PIPE if redirect == ">&-" else None, timeout=120)
    assert proc.returncode == 2, (command, proc.returncode, proc.stderr)
    err = proc.stderr or b""
    assert b"Traceback" not in err and len(err.splitlines()) <= 1


def test_closed_stdin_is_a_usage_error(work):
    proc = subprocess.run(" ".join(dractl_command()) + " validate - <&-", shell=True, cwd=work,
                          capture_output=True, timeout=60)
    # a finding of the text output, not repeated on standard error
    assert proc.returncode == 2 and (proc.stdout + proc.stderr).count(b"standard input is closed") == 1
    assert b"internal error" not in proc.stderr


@pytest.mark.parametrize("special", ["fifo", "/dev/null", "/dev/zero"])
def test_special_files_as_config_are_refused(work, special):
    if special == "fifo":
        os.mkfifo(work / "fifo")
    run = run_subprocess(["validate", "c.yaml", "--config", special], cwd=work, timeout=30)
    _clean(run, 2)
    assert "not a regular file" in run.err


@pytest.mark.parametrize("columns", ["0", "garbage", "-3", ""])
def test_columns_nonsense_falls_back_to_a_real_width(work, columns):
    """On a terminal (a pty), COLUMNS=0 or garbage still prints the whole report."""
    import pty

    env = {**os.environ, "COLUMNS": columns}
    env.pop("DRACTL_DEBUG", None)
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(work)
        os.execvpe(dractl_command()[0], dractl_command() + ["allocate", "-i", "builtin:example-gpu",
                                                            "c.yaml"], env)
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert "claim default/c0" in text and "1 claim(s)" in text


# -- terminal control in stderr; --node --------------------------------------------------------

HOSTILE = ["x\x1b]0;OWNED\x07.yaml", "y\u202e.yaml", "z\x85\u2066.yaml", "w\x9b31m\u200b.yaml"]


@pytest.mark.parametrize("command", ["validate", "allocate", "env"])
def test_hostile_file_names_are_escaped_on_every_stream(work, command):
    for name in HOSTILE:
        os.symlink("/nonexistent", work / name)
    extra = ["-i", "builtin:example-gpu"] if command != "validate" else []
    for fmt in ("text", "json"):
        run = run_subprocess([command, *HOSTILE, "-o", fmt, *extra], cwd=work, timeout=60)
        _clean(run, 2)
        for text in (run.out, run.err):
            assert not UNSAFE_CHARS.search(text), repr(text[:300])
        # text shows the unreadable paths as findings on stdout, json (a machine format) on stderr
        shown = run.out if fmt == "text" else run.err
        assert "OWNED" in shown and "\\x1b" in shown


def test_node_value_and_node_names_are_escaped(work):
    (work / "n.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata:\n  name: \"evil\\e]0;X\\a\\u202e\"\n")
    for fmt in ("text", "json", "yaml", "github"):
        run = run_subprocess(["allocate", "n.yaml", "c.yaml", "--node", "a\u202eb\x85", "-o", fmt],
                             cwd=work, timeout=60)
        _clean(run, 2)
        assert not UNSAFE_CHARS.search(run.err) and not UNSAFE_CHARS.search(run.out)
        assert "\\u202e" in run.err


# -- the whole-run deadline ----------------------------------------------------------------------

def test_deadline_stops_a_long_run(work):
    """20,000 claims take seconds to check; a deadline far below that stops the run with one
    line and exit status 2 (a 10 KiB CEL expression at 65 ms per device is the real-world case)."""
    (work / "many.yaml").write_text("---\n".join(CLAIM % i for i in range(20_000)))
    run = run_subprocess(["validate", "many.yaml", "--deadline", "0.3"], cwd=work, timeout=120)
    _clean(run, 2)
    assert "--deadline" in run.err and run.out == ""
    bad = run_subprocess(["validate", "c.yaml", "--deadline", "0"], cwd=work, timeout=60)
    _clean(bad, 2)
