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
def startup_floor_kb() -> int:
    """Peak memory of a run on a one-document file: what any run costs before its input."""
    run = run_subprocess(["validate", "-", "--no-config"], stdin=(HEAD + "x\n").encode())
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
