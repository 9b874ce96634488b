"""--jobs: parallel processes give byte-identical, deterministically ordered output; progress
bar only on a terminal."""

from __future__ import annotations

import io

import pytest
from cli_helpers import CLAIM_BAD, CLAIM_OK, HOSTILE, SYNTAX_ERROR

from dractl.pipeline import executor as parallel

POD = """apiVersion: v1
kind: Pod
metadata:
  name: p{i}
  namespace: ns{ns}
spec:
  resourceClaims:
  - name: gpu
    resourceClaimName: claim-{ref}
  containers:
  - name: main
    image: busybox
    resources:
      claims:
      - name: gpu
"""

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim-{i}
  namespace: ns{ns}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: {cls}
"""

N_FILES = 240  # over parallel.PARALLEL_MIN_FILES


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("big")
    for i in range(N_FILES):
        d = root / f"team-{i % 7}" / ("nested" if i % 3 else "")
        d.mkdir(parents=True, exist_ok=True)
        kind = i % 6
        if kind == 0:
            text = CLAIM_OK.replace("name: good", f"name: good-{i}")
        elif kind == 1:
            text = CLAIM_BAD
        elif kind == 2:  # cross-file references, some dangling
            text = POD.format(i=i, ns=i % 3, ref=i + 1 if i % 4 else 99999)
        elif kind == 3:
            text = CLAIM.format(i=i, ns=i % 3, cls="gpu.example.com" if i % 2 else "nope.example.com")
        elif kind == 4:
            text = HOSTILE if i % 5 else SYNTAX_ERROR
        else:
            text = CLAIM.format(i=i, ns=i % 3, cls="gpu.example.com") + "---\n" + \
                POD.format(i=i, ns=i % 3, ref=i)
        (d / f"m{i:04d}.yaml").write_text(text)
    return root


def test_more_files_than_the_threshold(big_tree):
    assert len(list(big_tree.rglob("*.yaml"))) >= parallel.PARALLEL_MIN_FILES


@pytest.mark.parametrize("fmt", ["json", "text", "junit", "sarif", "github"])
def test_jobs_1_and_4_print_the_same_bytes(dractl, big_tree, fmt, monkeypatch):
    calls = []
    real = parallel._run_parallel

    def spy(chunks, *args):
        calls.append(len(chunks))
        return real(chunks, *args)

    monkeypatch.setattr(parallel, "_run_parallel", spy)
    one = dractl("validate", ".", "-o", fmt, "--jobs", "1", "--no-config", cwd=big_tree)
    assert not calls
    four = dractl("validate", ".", "-o", fmt, "--jobs", "4", "--no-config", cwd=big_tree)
    assert calls and calls[0] > 4  # really ran in worker processes, in several chunks
    assert one.code == four.code == 1
    assert one.out == four.out
    assert one.err == four.err == ""


def test_parallel_equals_the_plain_pipeline(big_tree, monkeypatch):
    """The chunked run is the library pipeline: same findings, same order, same documents."""
    from dractl.api.versions import parse_feature_gates
    from dractl.load.limits import Limits
    from dractl.load.loader import load_paths
    from dractl.validate.pipeline import validate_documents

    monkeypatch.chdir(big_tree)
    gates = parse_feature_gates("", "1.37")
    plain = validate_documents(load_paths(["."]), gates)
    for jobs in (1, 3):
        run = parallel.validate_paths(["."], limits=Limits(), gates=gates, jobs=jobs)
        assert run.validated.findings == plain.findings
        assert [d.data for d in run.validated.documents] == [d.data for d in plain.documents]
        assert [id(d) in run.validated.invalid for d in run.validated.documents] == \
            [id(d) in plain.invalid for d in plain.documents]
        assert (run.files, run.documents_read) == (plain.files, plain.documents_read)


def test_allocate_with_jobs(dractl, big_tree):
    args = ("allocate", ".", "-i", "builtin:example-gpu", "-o", "json", "--no-config")
    one = dractl(*args, "--jobs", "1", cwd=big_tree)
    two = dractl(*args, "--jobs", "2", cwd=big_tree)
    assert one.code == two.code == 1
    assert one.out == two.out


def test_default_jobs_and_bad_values(dractl, big_tree):
    assert parallel.default_jobs() >= 1
    assert dractl("validate", ".", "-o", "json", "--no-config", cwd=big_tree).code == 1
    bad = dractl("validate", ".", "--jobs", "-1", cwd=big_tree)
    assert bad.code == 2 and "Traceback" not in bad.err


def test_a_worker_failure_falls_back_to_this_process(big_tree, monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    from dractl.api.versions import parse_feature_gates
    from dractl.load.limits import Limits

    monkeypatch.chdir(big_tree)
    gates = parse_feature_gates("", "1.37")
    expected = parallel.validate_paths(["."], limits=Limits(), gates=gates, jobs=1)

    class Broken:
        def __init__(self, *a, **k):
            pass

        def submit(self, *a, **k):
            raise BrokenProcessPool("no workers here")

        def shutdown(self, *a, **k):
            pass

    monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor", Broken)
    run = parallel.validate_paths(["."], limits=Limits(), gates=gates, jobs=4)
    assert run.validated.findings == expected.validated.findings


class _FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal_and_only_for_slow_runs(big_tree, monkeypatch):
    from dractl.api.versions import parse_feature_gates
    from dractl.load.limits import Limits

    monkeypatch.chdir(big_tree)
    gates = parse_feature_gates("", "1.37")
    # piped stderr: nothing, however slow
    piped = io.StringIO()
    monkeypatch.setattr("sys.stderr", piped)
    monkeypatch.setattr(parallel, "PROGRESS_AFTER", 0.0)
    parallel.validate_paths(["."], limits=Limits(), gates=gates, jobs=1, progress=True)
    assert piped.getvalue() == ""
    # a terminal and a slow run: a bar that cleans up after itself
    tty = _FakeTTY()
    monkeypatch.setattr("sys.stderr", tty)
    monkeypatch.delenv("TERM", raising=False)
    parallel.validate_paths(["."], limits=Limits(), gates=gates, jobs=1, progress=True)
    assert "validating" in tty.getvalue() and "files" in tty.getvalue()
    # a terminal, but a fast run: nothing
    quick = _FakeTTY()
    monkeypatch.setattr("sys.stderr", quick)
    monkeypatch.setattr(parallel, "PROGRESS_AFTER", 3600.0)
    parallel.validate_paths(["."], limits=Limits(), gates=gates, jobs=1, progress=True)
    assert quick.getvalue() == ""


def test_worker_results_carry_no_yaml_nodes(big_tree, monkeypatch):
    """Results come back from workers without composed YAML nodes (they would dominate the
    transfer); positions are composed again, on demand, where needed."""
    import pickle
    import pickletools

    from dractl.api.versions import parse_feature_gates
    from dractl.load.limits import Limits
    from dractl.load.reader import iter_sources

    monkeypatch.chdir(big_tree)
    items = list(iter_sources(["team-1"], Limits()))
    result = parallel._check_chunk_in_worker(items, Limits(), parse_feature_gates("", "1.37"),
                                             frozenset())
    assert result.findings  # positions were composed for them in the worker
    data = pickle.dumps(result)
    modules = {arg for op, arg, _ in pickletools.genops(data)
               if op.name in ("GLOBAL", "STACK_GLOBAL", "SHORT_BINUNICODE", "BINUNICODE")
               and isinstance(arg, str) and arg.startswith("yaml")}
    assert not modules, modules
    # and locating still works after the round trip
    back = pickle.loads(data)
    doc = back.documents[0]
    assert doc.locate(("metadata",))[0] >= doc.line


def test_processes_only_when_splitting_files_shortens_the_longest_share():
    mb = 1024 * 1024
    saved = parallel._bytes_saved
    assert saved([4 * mb, 3000], 2) == 3000                 # one big inventory: nothing to split
    assert saved([mb, mb, mb, mb], 2) == 2 * mb              # four even files over two workers
    assert saved([], 2) == 0
    assert saved([3 * mb, mb, mb], 2) < parallel.PARALLEL_MIN_SAVED_BYTES * 3


def test_chunks_give_every_worker_something():
    size = parallel._parallel_chunk_size
    assert size(2, 2) == 1            # two big files: one per worker
    assert size(3, 2) == 2
    assert size(100, 2) == 7          # ~8 chunks per worker
    assert size(240, 4) == 8
    assert size(10, 2) == 4           # at least 4 files a chunk when there are plenty


def test_gc_policy_of_the_dractl_process_and_of_library_callers(big_tree, monkeypatch):
    """Library callers get their collector back after loading; the dractl process itself
    (SHORT_LIVED, set by the console script) keeps it off and freezes what was loaded."""
    import gc

    import dractl.cli
    from dractl.api.versions import parse_feature_gates
    from dractl.load.limits import Limits

    monkeypatch.chdir(big_tree)
    gates = parse_feature_gates("", "1.37")
    assert gc.isenabled()
    parallel.validate_paths(["team-1"], limits=Limits(), gates=gates, jobs=1)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    monkeypatch.setattr(dractl.cli, "SHORT_LIVED", True)
    try:
        parallel.validate_paths(["team-1"], limits=Limits(), gates=gates, jobs=1)
        assert not gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()



def test_default_jobs_use_workers_only_while_cores_are_free(monkeypatch, tmp_path):
    """The default --jobs runs in this process when other work keeps the cores busy (the
    output is the same either way); an explicit --jobs N is always obeyed. Busy means the
    tasks runnable right now besides dractl (/proc/loadavg's 4th field), else the load average."""
    loadavg = tmp_path / "loadavg"
    monkeypatch.setattr(parallel, "LOADAVG_FILE", str(loadavg))
    # A minute of dractl's own earlier runs in the load average, nothing else running now.
    loadavg.write_text("1.95 1.40 0.80 1/180 4242\n")
    assert parallel.cores_are_free(2)
    loadavg.write_text("0.10 0.10 0.10 3/180 4242\n")   # two others runnable right now
    assert not parallel.cores_are_free(2)
    assert parallel.cores_are_free(4)

    loadavg.unlink()  # no /proc: the one-minute load average decides
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    assert parallel.cores_are_free(2)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (1.6, 1.0, 1.0))
    assert not parallel.cores_are_free(2)
    assert parallel.cores_are_free(4)

    def no_loadavg():
        raise OSError("no load average here")
    monkeypatch.setattr(parallel.os, "getloadavg", no_loadavg)
    assert parallel.cores_are_free(2)
    loadavg.write_text("garbage\n")
    assert parallel.cores_are_free(2)


def test_busy_machine_default_jobs_stays_in_this_process(big_tree, monkeypatch):
    from dractl.api.versions import parse_feature_gates
    from dractl.load.limits import Limits

    monkeypatch.chdir(big_tree)
    busy_now = big_tree.parent / "loadavg-busy"
    busy_now.write_text("64.00 64.00 64.00 65/300 4242\n")
    monkeypatch.setattr(parallel, "LOADAVG_FILE", str(busy_now))
    made = []
    monkeypatch.setattr(parallel, "_make_pool", lambda workers: made.append(workers))
    gates = parse_feature_gates("", "1.37")
    busy = parallel.validate_paths(["."], limits=Limits(), gates=gates, jobs=None)
    assert made == []
    explicit = parallel.validate_paths(["."], limits=Limits(), gates=gates, jobs=2)
    assert made == [1]  # --jobs 2: this process and one worker
    assert [f.sort_key() for f in busy.validated.findings] == \
        [f.sort_key() for f in explicit.validated.findings]
