"""Structure-aware fuzzing of `dractl validate`, `allocate` and `env`
(docs/decisions/0006-hostile-inputs.md).

Seeds are real manifests and the built-in inventories (fuzz_seeds.py); each case applies a few
structure-aware mutations (fuzz_mutate.py), serialises the documents as YAML, JSON or a List,
and runs the real console entry point in-process with the documents on standard input. Every
run must: exit 0, 1 or 2; print no traceback and no "internal error"; finish within a bound;
print well-formed output in the chosen format with no raw control characters.
"""

from __future__ import annotations

import copy
import os
import re

import pytest
from cli_harness import CASES, TIMED_OUT, assert_ok, run_inproc, run_subprocess
from fuzz_mutate import SHAPES, mutate, serialize
from fuzz_seeds import inventory_docs, scenarios
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

LONG = int(os.environ.get("DRACTL_FUZZ_EXAMPLES", "0") or 0)
SEED = os.environ.get("DRACTL_FUZZ_SEED")
# A single run of a few mutated documents takes ~20 ms; a mutation may grow a list to 5,000
# items. Far above anything legitimate, far below "hangs".
RUN_LIMIT = 30.0


def budget(default: int):
    kw = dict(max_examples=LONG or default, deadline=None, derandomize=not LONG and not SEED,
              print_blob=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much, HealthCheck.large_base_example])
    decorator = settings(**kw)
    if SEED:
        return lambda f: seed(int(SEED))(decorator(f))
    return decorator


def _formats(command: str) -> list[str]:
    """Output formats the command offers today (`-o <a|b|c>` in its --help)."""
    run = run_inproc([command, "--help"])
    m = re.search(r"--output\s*[<\[]([a-z|]+)[>\]]", run.out)
    return m.group(1).split("|") if m else ["text", "json"]


VALIDATE_FORMATS = _formats("validate")
ALLOCATE_FORMATS = _formats("allocate")
ENV_FORMATS = _formats("env")
KUBE_VERSIONS = ["1.34", "1.35", "1.36", "1.37"]


def _case(data, with_inventory: bool):
    scenario = data.draw(st.sampled_from(scenarios()), label="scenario")
    docs = [copy.deepcopy(d) for d in scenario.manifests]
    inline_inventory = with_inventory and data.draw(st.booleans(), label="inventory inline")
    if inline_inventory or not docs:
        docs = [copy.deepcopy(d) for d in inventory_docs(scenario.inventory)] + docs
    changes = [mutate(docs, data) for _ in range(data.draw(st.integers(1, 4), label="mutations"))]
    shape = data.draw(st.sampled_from(SHAPES), label="shape")
    stdin = serialize(docs, shape)
    extra = []
    if with_inventory and not inline_inventory:
        extra = ["-i", f"builtin:{scenario.inventory}"]
    if data.draw(st.booleans(), label="kube version"):
        extra += ["--kube-version", data.draw(st.sampled_from(KUBE_VERSIONS))]
    note = f"{scenario.name} [{shape}] " + "; ".join(changes)
    return stdin, extra, note


# Bugs outside tests/fuzz that fuzzing found and that are reported, each with a strict xfail
# regression test in test_fuzz_regressions.py. A case that hits one is counted, not failed, so
# the fuzzer keeps looking for new bugs; when a bug is fixed its xfail test turns XPASS (an
# error under strict), and its line here goes too.
KNOWN_BUGS: dict[str, re.Pattern] = {
    # (none open)
}


def _known_bug(run) -> str | None:
    text = "\n".join(run.problems())
    for name, pattern in KNOWN_BUGS.items():
        if pattern.search(text):
            return name
    return None


def _run(command, fmt, stdin, extra, note, counter):
    args = [command, "-", "-o", fmt, *extra]
    run = run_inproc(args, stdin=stdin, time_limit=RUN_LIMIT)
    CASES[counter] += 1
    if run.code == TIMED_OUT:
        # dractl runs once per process; a long in-process session (thousands of runs, a loaded
        # machine) can overrun where a fresh process does not. The fresh process decides.
        run = run_subprocess(args, stdin=stdin, timeout=RUN_LIMIT)
        CASES["in-process overruns re-run as a subprocess"] += 1
    known = _known_bug(run)
    if known:
        CASES[f"known bug {known}"] += 1
        return
    try:
        assert_ok(run, fmt)
    except AssertionError as exc:
        raise AssertionError(f"{note}\n{exc}") from None


@pytest.fixture(autouse=True)
def _no_config_file(tmp_path, monkeypatch):
    # validate looks for .dractl.yaml in the working directory: fuzz in an empty one.
    monkeypatch.chdir(tmp_path)


@budget(200)
@given(data=st.data())
def test_fuzz_validate(data):
    stdin, extra, note = _case(data, with_inventory=False)
    fmt = data.draw(st.sampled_from(VALIDATE_FORMATS), label="format")
    if data.draw(st.booleans(), label="strict"):
        extra.append("--strict")
    _run("validate", fmt, stdin, extra, note, "validate")


@budget(150)
@given(data=st.data())
def test_fuzz_allocate(data):
    stdin, extra, note = _case(data, with_inventory=True)
    fmt = data.draw(st.sampled_from(ALLOCATE_FORMATS), label="format")
    extra += ["--timeout", "2"]
    if data.draw(st.booleans(), label="explain"):
        extra += ["--explain", "*"]
    _run("allocate", fmt, stdin, extra, note, "allocate")


@budget(100)
@given(data=st.data())
def test_fuzz_env(data):
    stdin, extra, note = _case(data, with_inventory=True)
    fmt = data.draw(st.sampled_from(ENV_FORMATS), label="format")
    if data.draw(st.booleans(), label="lenient"):
        extra.append("--lenient")
    _run("env", fmt, stdin, extra, note, "env")
