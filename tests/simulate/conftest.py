"""Run the dry run in-process on manifests given as text (plus a built-in inventory)."""

from __future__ import annotations

import pytest

from dractl.api.versions import parse_feature_gates
from dractl.downward import resolve_plan
from dractl.inventories import inventory_path
from dractl.load.loader import load_paths
from dractl.simulate.scheduler import Options, simulate
from dractl.validate.pipeline import validate_documents


@pytest.fixture
def dry_run(tmp_path):
    def run(text: str, inventory: str | None = "example-gpu", version: str = "1.37",
            gates: str = "", **options):
        path = tmp_path / "input.yaml"
        path.write_text(text)
        paths = ([str(inventory_path(inventory))] if inventory else []) + [str(path)]
        fg = parse_feature_gates(gates, version)
        loaded = load_paths(paths)
        validated = validate_documents(loaded, fg)
        errors = [f for f in validated.findings if f.severity == "error"]
        plan_options = Options(**options)
        plan = simulate(validated.documents, fg, plan_options, validated.invalid)
        resolve_plan(plan, plan.slices, lenient=plan_options.lenient_env)
        plan.validation_errors = errors
        return plan
    return run
