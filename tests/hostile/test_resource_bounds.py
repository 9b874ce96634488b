"""Time and memory stay linear in the input wherever the input is user-sized (the loader's
scans, quoted scalars, JSON strings): each reproduction runs the installed entry point as a real
process and bounds its peak memory by the start-up floor plus 20 times the input, or its time."""

from __future__ import annotations

import functools
import time

import pytest
from cli_harness import assert_ok, run_inproc, run_subprocess

MB = 1024 * 1024
HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  k: "


@functools.lru_cache(maxsize=None)
def startup_floor_kb(command: tuple = ("validate",)) -> int:
    """Peak memory of the same command on a one-document input: what it costs before its input
    (allocate also loads the built-in inventory and the dry run)."""
    run = run_subprocess([*command, "-", "--no-config"], stdin=(HEAD + "x\n").encode())
    assert run.code == 0 and run.max_rss_kb > 0, run.err
    return run.max_rss_kb


def assert_linear_memory(run, input_bytes: int) -> None:
    bound = startup_floor_kb() + 20 * input_bytes // 1024
    assert run.max_rss_kb < bound, (f"peak {run.max_rss_kb} KB for {input_bytes} bytes of input "
                                    f"(bound {bound} KB: floor {startup_floor_kb()} KB + 20x)")


@pytest.mark.parametrize("quote", ['"', "'"], ids=["double", "single"])
def test_twenty_megabyte_quoted_scalar_costs_linear_memory(quote, tmp_path):
    data = (HEAD + quote + "a" * (20 * MB) + quote + "\n").encode()
    (tmp_path / "big.yaml").write_bytes(data)
    run = run_subprocess(["validate", "big.yaml", "--no-config"], cwd=tmp_path, timeout=120)
    assert_ok(run)
    assert run.code == 0, run.err
    assert_linear_memory(run, len(data))


def test_json_string_before_nan_costs_linear_memory(tmp_path):
    data = ('{"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "' + "a" * (10 * MB) +
            '"}, "x": NaN}').encode()
    (tmp_path / "big.json").write_bytes(data)
    run = run_subprocess(["validate", "big.json", "--no-config", "-o", "json"], cwd=tmp_path,
                         timeout=120)
    assert_ok(run, "json")
    assert run.code == 1 and "NaN is not a JSON number" in run.out
    assert_linear_memory(run, len(data))


@pytest.mark.parametrize("size", [80_000, 160_000])
def test_unclosed_line_of_escaped_quotes_reads_in_well_under_a_second(size, tmp_path, monkeypatch):
    """`"` then `\\"` repeated and never closed on the line: 80 KB took 45 s, 160 KB 207 s."""
    monkeypatch.chdir(tmp_path)
    data = (HEAD + '"' + '\\"' * (size // 2) + "\n---\n" + HEAD + "ok\n").encode()
    start = time.process_time()
    run = run_inproc(["validate", "-", "-o", "json", "--no-config"], stdin=data, time_limit=60)
    assert time.process_time() - start < 1.0
    assert_ok(run, "json")
    assert run.code == 1 and '"DRA0001"' in run.out


# -- output and memory linear in the input for every finding and every reason ------------------

def _claims(n: int, class_name: str = "none.example.com") -> bytes:
    """n ResourceClaims no pod uses, asking a class no device satisfies (allocation fails at
    once on every node: what stays is the reporting), and that DeviceClass."""
    import json

    docs = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": class_name},
             "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{class_name}"'}}]}}]
    docs += [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
              "metadata": {"name": f"c{i}", "namespace": "default"},
              "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": class_name}}]}}}
             for i in range(n)]
    return "".join("---\n" + json.dumps(d) + "\n" for d in docs).encode()


def test_unreferenced_claims_reasons_name_a_bounded_number_of_others(tmp_path):
    """Each claim's DRA5015 named every other unreferenced claim: 2,000 claims gave 595 MB of
    JSON, 20,000 were killed at 24 GB. Now each names at most three others and counts the rest:
    output linear in the claims."""
    sizes = {}
    for n in (2_000, 20_000):
        data = _claims(n)
        (tmp_path / f"c{n}.yaml").write_bytes(data)
        run = run_subprocess(["allocate", f"c{n}.yaml", "-i", "builtin:example-gpu", "-o", "json",
                              "--no-config"], cwd=tmp_path, timeout=240)
        assert_ok(run, "json")
        assert run.code == 1
        claims = __import__("json").loads(run.out)["claims"]
        assert len(claims) == n
        details = [r["details"] for c in claims for r in c["reasons"] if r["code"] == "DRA5015"]
        assert len(details) == n and max(map(len, details)) <= 5
        assert details[-1][-1].startswith(f"... and {n - 4:,} more unreferenced claim(s)")
        assert sum(f"claim default/c{n - 1}," in line for line in details[-1]) == 1  # its own
        sizes[n] = (len(run.out), run.max_rss_kb)
        if n == 20_000:
            # dractl's measured cost at 20,000 claims (4 MB): validated documents ~14x the input,
            # the dry run's claim state ~12x, the JSON text ~11x (held as bytes and as text once
            # while encoded): under 40x the input over the floor, not 20x.
            floor = startup_floor_kb(("allocate", "-i", "builtin:example-gpu"))
            assert run.max_rss_kb < floor + 40 * len(data) // 1024, (sizes, floor)
            assert len(run.out) < 8 * len(data)
    assert sizes[20_000][0] < 12 * sizes[2_000][0]  # linear, not quadratic (x100)


def test_repeated_keys_are_folded_and_memory_stays_linear(tmp_path):
    """300,000 repeated keys (2.7 MB) gave 300,000 findings: 90 MB of JSON, 198 MB of SARIF,
    1.86 GB of memory. Now the first 100 and one finding counting the rest."""
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata: {name: x}", "data:"]
    lines += [f"  key{i % 150_000}: value" for i in range(300_000)]
    data = ("\n".join(lines) + "\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n").encode()
    (tmp_path / "dups.yaml").write_bytes(data)
    for fmt in ("json", "sarif"):
        run = run_subprocess(["validate", "dups.yaml", "-o", fmt, "--no-config"], cwd=tmp_path,
                             timeout=240)
        assert_ok(run, fmt)
        assert run.code == 1
        assert len(run.out) < 1_500_000, len(run.out)  # SARIF: the code table is 0.6 MB
        assert "... and 149,900 more duplicate fields in this document" in run.out
        assert_linear_memory(run, len(data))
        if fmt == "json":
            report = __import__("json").loads(run.out)
            assert [f["code"] for f in report["findings"]].count("DRA0005") == 101
            assert report["summary"]["documents"] == 2


def test_repeated_keys_in_json_are_folded_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {'
            + ", ".join('"k": "v"' for _ in range(50_000)) + "}}").encode()
    run = run_inproc(["validate", "-", "-o", "json", "--no-config"], stdin=data, time_limit=120)
    assert_ok(run, "json")
    codes = [f["code"] for f in __import__("json").loads(run.out)["findings"]]
    assert codes.count("DRA0005") == 101


# -- memory exhausted: an I/O-class error on the file, the others' findings kept --------------

def _address_space(megabytes: int):
    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))
    return limit


def test_out_of_memory_is_an_io_error_on_the_file_and_the_others_are_kept(tmp_path):
    """Memory exhausted by one file was "internal error" (exit 2, nothing on stdout): every other
    file's findings lost. Now DRA0012 on that file, exit 2, the other files checked. The process
    gets 200 MB of address space; dractl starts in well under that, the big file needs more."""
    (tmp_path / "big.yaml").write_text(HEAD + "[" + ", ".join(["{a: 1}"] * 600_000) + "]\n")
    (tmp_path / "bad.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                                       "metadata: {name: Not_A_Name}\n")
    run = run_subprocess(["validate", "big.yaml", "bad.yaml", "-j", "1", "-o", "json", "--no-config"],
                         cwd=tmp_path, timeout=120, preexec_fn=_address_space(200))
    assert_ok(run, "json")
    assert run.code == 2, run.err
    findings = __import__("json").loads(run.out)["findings"]
    assert [(f["file"], f["code"]) for f in findings] == [("bad.yaml", "DRA1900"), ("big.yaml", "DRA0012")]
    assert "out of memory while reading or checking this file" in findings[1]["message"]


def test_cel_string_of_backslashes_never_closed_is_linear(tmp_path, monkeypatch):
    """A selector holding `"` and a run of backslashes that never closes made the CEL lexer's
    expression backtrack exponentially (36 backslashes 1.8 s, 44 about two minutes)."""
    monkeypatch.chdir(tmp_path)
    expression = '"' + "\\\\" * 60 + "x"
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                 "deviceClassName": "gpu.example.com", "selectors": [{"cel": {"expression": expression}}]}}]}}}
    start = time.process_time()
    run = run_inproc(["validate", "-", "-o", "json", "--no-config"],
                     stdin=__import__("json").dumps(claim).encode(), time_limit=60)
    assert time.process_time() - start < 2.0
    assert_ok(run, "json")
    assert run.code == 1 and "DRA1901" in run.out
