"""Help text, suggestions for typos, empty runs, names across formats, quiet output: each failed
before its fix."""

from __future__ import annotations

import json

from cli_helpers import REPO, run


def test_command_list_is_not_cut():
    out = run("--help").out
    commands = out[out.index("Commands:"):]
    assert "..." not in commands


def test_no_type_placeholders_in_help():
    for command in ("validate", "allocate", "env", "codes", "inventories", "version"):
        text = run(command, "--help").out
        assert "<str>" not in text and "<float>" not in text and "<int>" not in text, command


def test_gate_typo_gets_a_suggestion():
    result = run("validate", "examples/gpu-pod.yaml", "--feature-gates", "DRAPartitionableDevice=true", cwd=REPO)
    assert result.code == 2
    assert "did you mean DRAPartitionableDevices?" in result.err and "known:" not in result.err


def test_unknown_field_gets_a_suggestion(tmp_path):
    (tmp_path / "c.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n  devices:\n"
        "    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu.example.com, allocatonMode: All}\n")
    found = json.loads(run("validate", "c.yaml", "-o", "json", "--no-config", cwd=tmp_path).out)["findings"]
    message = next(f["message"] for f in found if f["code"] == "DRA0101")
    assert message.endswith('; did you mean "allocationMode"?')


def test_yaml_tab_error_names_the_tab(tmp_path):
    (tmp_path / "t.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata:\n\tname: x\n")
    found = json.loads(run("validate", "t.yaml", "-o", "json", "--no-config", cwd=tmp_path).out)["findings"]
    assert found[0]["code"] == "DRA0001" and "a tab" in found[0]["message"]


def test_empty_run_says_so(tmp_path):
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    result = run("validate", ".", "--exclude", "*.yaml", "--no-config", cwd=tmp_path)
    assert result.code == 0 and "no files were checked" in result.err


def test_walked_names_agree_across_formats(tmp_path):
    (tmp_path / "bad1.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: Bad_1}\n")
    as_json = json.loads(run("validate", ".", "-o", "json", "--no-config", cwd=tmp_path).out)
    as_sarif = json.loads(run("validate", ".", "-o", "sarif", "--no-config", cwd=tmp_path).out)
    uri = as_sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert as_json["findings"][0]["file"] == uri == "bad1.yaml"


def test_quiet_allocate_has_no_stray_blank_lines():
    result = run("allocate", "-q", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml", cwd=REPO)
    assert result.out == "2 pod(s): 2 scheduled, 0 not scheduled; 2 claim(s) allocated; 3 node(s)\n"
