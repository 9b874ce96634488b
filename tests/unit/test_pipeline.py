"""The library pipeline: check() and dry_run() return one Result; the env stage runs once
whatever the simulator does; the unusable-document decision is one function."""

from __future__ import annotations

from pathlib import Path

import pytest

from dractl.api.versions import parse_feature_gates
from dractl.downward import resolve_plan
from dractl.findings import ERROR, INFO, WARNING, Finding
from dractl.load.loader import load_paths
from dractl.pipeline import (
    ALLOCATE,
    ENV,
    METADATA,
    VALIDATE,
    CheckOptions,
    DryRunOptions,
    UsageError,
    check,
    dry_run,
)
from dractl.pipeline import run as pipeline_run
from dractl.validate.pipeline import NON_BLOCKING, makes_unusable, validate_documents

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GATES = parse_feature_gates("", "1.37")
GPU = DryRunOptions(inventory=("builtin:example-gpu",))


def _env_state(plan):
    return [(p.name, p.env, p.env_sources, [(c, [e.to_json() for e in es]) for c, es in p.env_errors.items()])
            for p in plan.pods]


def test_check_is_the_validate_stage_over_the_files():
    result = check([str(EXAMPLES)], CheckOptions(gates=GATES, jobs=1))
    plain = validate_documents(load_paths([str(EXAMPLES)]), GATES)
    assert result.command == VALIDATE and result.plan is None
    assert result.findings == plain.findings
    assert (result.files, result.documents_read) == (plain.files, plain.documents_read)
    assert len(result.docs) == result.documents_read
    assert result.failed() == (plain.errors() > 0)


def test_strict_makes_warnings_errors_in_the_result(tmp_path):
    (tmp_path / "w.yaml").write_text(  # one warning: DRA2003, the class is not among the inputs
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: w\nspec:\n  devices:\n"
        "    requests:\n    - name: r\n      exactly: {deviceClassName: missing}\n")
    lax = check([str(tmp_path)], CheckOptions(gates=GATES))
    strict = check([str(tmp_path)], CheckOptions(gates=GATES, strict=True))
    assert lax.warnings() == 1 and lax.errors() == 0 and not lax.failed()
    assert strict.warnings() == 0 and strict.errors() == 1 and strict.failed()


def test_dry_run_resolves_env_once():
    result = dry_run([str(EXAMPLES)], CheckOptions(gates=GATES), GPU, command=ENV)
    assert result.command == ENV and result.plan is not None
    once = _env_state(result.plan)
    assert any(p.env for p in result.plan.pods) and any(p.env_errors for p in result.plan.pods)
    # the simulator of today resolves env itself too: no error may appear twice
    for p in result.plan.pods:
        for errors in p.env_errors.values():
            assert len({(e.code, e.message) for e in errors}) == len(errors)
    resolve_plan(result.plan, result.plan.slices)
    assert _env_state(result.plan) == once


def test_dry_run_resolves_env_with_a_simulator_that_does_not(monkeypatch):
    expected = _env_state(dry_run([str(EXAMPLES)], CheckOptions(gates=GATES), GPU).plan)
    real_simulate, options = pipeline_run._simulator()

    def without_env(*args, **kwargs):
        plan = real_simulate(*args, **kwargs)
        for p in plan.pods:
            p.env, p.env_errors, p.env_sources = {}, {}, {}
        return plan

    monkeypatch.setattr(pipeline_run, "_simulator", lambda: (without_env, options))
    result = dry_run([str(EXAMPLES)], CheckOptions(gates=GATES), GPU)
    assert _env_state(result.plan) == expected


def test_what_counts_as_failure_follows_the_command():
    allocate = dry_run([str(EXAMPLES / "gpu-pod.yaml")], CheckOptions(gates=GATES), GPU)
    assert allocate.command == ALLOCATE and not allocate.failed() and allocate.plan.ok()
    broken = dry_run([str(EXAMPLES)], CheckOptions(gates=GATES), GPU, command=METADATA)
    assert not broken.failed()  # metadata is a prediction: nothing fails it
    broken.command = ENV
    assert broken.failed()      # some env references of examples/ cannot resolve
    broken.command = ALLOCATE
    assert broken.failed() == (not broken.plan.ok() or broken.errors() > 0)


def test_ci_findings_add_the_dry_run_outcomes():
    result = dry_run([str(EXAMPLES)], CheckOptions(gates=GATES), GPU)
    ci = result.ci_findings()
    assert set(result.findings) <= set(ci) and len(ci) > len(result.findings)
    assert ci == sorted(ci, key=Finding.sort_key)


def test_unknown_node_and_unknown_builtin_are_usage_errors():
    with pytest.raises(UsageError, match="--node nope: no such node"):
        dry_run([str(EXAMPLES / "gpu-pod.yaml")], CheckOptions(gates=GATES),
                DryRunOptions(inventory=("builtin:example-gpu",), node="nope"))
    with pytest.raises(UsageError, match="no built-in inventory 'nope'"):
        dry_run([], CheckOptions(gates=GATES), DryRunOptions(inventory=("builtin:nope",)))


def test_builtin_inventories_are_shown_by_name():
    result = dry_run([], CheckOptions(gates=GATES), GPU)
    assert result.docs and {d.file for d in result.docs} == {"builtin:example-gpu"}


def test_which_findings_make_a_document_unusable():
    assert makes_unusable(Finding(ERROR, "DRA0001", "x"))
    assert not makes_unusable(Finding(WARNING, "DRA0001", "x"))
    assert not makes_unusable(Finding(INFO, "DRA0001", "x"))
    for code in NON_BLOCKING:
        assert not makes_unusable(Finding(ERROR, code, "x"))
