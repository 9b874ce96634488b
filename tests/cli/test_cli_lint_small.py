"""The linter's smaller habits (docs/decisions/0009-linter-habits.md): --verbose, --list-files, grouped
--help, one usage style, /dev/null, a missing file reported once, `codes DRA10`, plurals. Each
failed before."""

from __future__ import annotations

import json

import pytest
from cli_helpers import REPO, run

from dractl.findings import Finding
from dractl.report.findings_text import skipped_text

MIXED = ("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\n"
         "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n---\n"
         "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n  devices:\n"
         "    requests:\n    - name: GPU\n      exactly: {deviceClassName: gpu.example.com}\n")


def test_verbose_lists_every_object_and_its_result(tmp_path):
    (tmp_path / "m.yaml").write_text(MIXED)
    result = run("validate", "-v", "m.yaml", "--no-config", cwd=tmp_path)
    lines = result.out.splitlines()
    assert ["m.yaml:1:1  Service web  skipped (dractl does not read Service (v1))",
            "m.yaml:5:1  DeviceClass gpu.example.com  valid",
            "m.yaml:9:1  ResourceClaim c  invalid (1 error)"] == lines[-5:-2]
    plain = run("validate", "m.yaml", "--no-config", cwd=tmp_path).out
    assert "DeviceClass gpu.example.com  valid" not in plain


def test_verbose_json_has_the_objects(tmp_path):
    (tmp_path / "m.yaml").write_text(MIXED)
    doc = json.loads(run("validate", "-v", "-o", "json", "m.yaml", "--no-config", cwd=tmp_path).out)
    assert [(o["kind"], o["result"]) for o in doc["objects"]] == [
        ("Service", "skipped (dractl does not read Service (v1))"), ("DeviceClass", "valid"),
        ("ResourceClaim", "invalid (1 error)")]
    assert "objects" not in json.loads(run("validate", "-o", "json", "m.yaml", "--no-config",
                                           cwd=tmp_path).out)


def test_list_files_after_excludes_and_config(tmp_path):
    for name in ("deploy/a.yaml", "deploy/old/b.yaml", "deploy/c.json", "chart/Chart.yaml",
                 "deploy/notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("kind: x\n")
    (tmp_path / ".dractl.yaml").write_text("exclude: [deploy/old]\n")
    result = run("validate", "--list-files", ".", "--exclude", "*.json", cwd=tmp_path)
    assert (result.code, result.out) == (0, "deploy/a.yaml\n")
    inventory = run("allocate", "--list-files", "-i", "builtin:example-gpu", "deploy", "--no-config",
                    cwd=tmp_path)
    assert inventory.out.splitlines() == ["builtin:example-gpu", "deploy/a.yaml", "deploy/c.json",
                                          "deploy/old/b.yaml"]
    missing = run("validate", "--list-files", "nope.yaml", cwd=tmp_path)
    assert missing.code == 2 and "nope.yaml: no such file" in missing.err


def test_help_groups_the_options():
    shown = run("validate", "--help").out
    sections = [line for line in shown.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert sections == ["Arguments:", "Options:", "Input options:", "Selection options:",
                        "Output options:", "Run options:"]
    allocate = run("allocate", "--help").out
    dry_run = allocate.split("Dry run options:")[1].split("\n\n")[0]
    assert "--node-order" in dry_run and "--timeout" in dry_run and "--ignore" not in dry_run


@pytest.mark.parametrize("command,usage", [("validate", "PATH..."), ("allocate", "[PATH]..."),
                                           ("env", "[PATH]..."), ("capacity", "[PATH]...")])
def test_usage_lines_read_alike(command, usage):
    first = run(command, "--help").out.splitlines()[0]
    assert first == f"Usage: dractl {command} [OPTIONS] {usage}"  # was {PATH} against [PATH]


def test_dev_null_is_an_unreadable_path_like_the_code_table_says():
    result = run("validate", "/dev/null", "-o", "json", "--no-config")
    found = json.loads(result.out)["findings"]
    # was DRA0013 "error" (the table says warning) with exit 2
    assert result.code == 2 and [(f["code"], f["severity"]) for f in found] == [("DRA0012", "error")]


def test_a_missing_file_is_reported_once(tmp_path):
    result = run("validate", "nope.yaml", cwd=tmp_path)
    assert result.code == 2
    assert (result.out + result.err).count("nope.yaml") == 1


def test_codes_with_a_prefix_lists_the_codes_it_begins():
    result = run("codes", "DRA10")
    codes = [line.split()[0] for line in result.out.splitlines()]
    assert result.code == 0 and codes and all(c.startswith("DRA10") for c in codes)  # was DRA8010
    assert "DRA1009" in codes
    assert json.loads(run("codes", "dra100", "-o", "json").out)[0]["code"] == "DRA1001"


def test_plurals():
    assert skipped_text({f"K{i}": 1 for i in range(6)}).endswith(", 1 more kind)")
    assert skipped_text({f"K{i}": 1 for i in range(7)}).endswith(", 2 more kinds)")


def test_explanation_counts_devices_in_plural():
    scenario = str(REPO / "tests" / "golden" / "scenarios" / "13-device-taint-noschedule.yaml")
    text = run("allocate", scenario, "--no-config").out
    assert "0 of 1 usable; 1 device: tainted, not tolerated" in text  # was "1 tainted, not tolerated"


def test_unknown_field_message_names_the_path_once():
    f = Finding("error", "DRA0101", 'unknown field "spec.x"', ("spec", "x"))
    assert f.text == 'unknown field "spec.x"'
    assert Finding("error", "DRA1009", "Invalid value: -1", ("spec", "count")).text == \
        "spec.count: Invalid value: -1"
