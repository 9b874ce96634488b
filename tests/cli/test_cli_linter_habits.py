"""Habits users bring from ruff, yamllint and kubeconform (docs/decisions/0009-linter-habits.md):
each test failed before its fix."""

from __future__ import annotations

import json

import pytest
from cli_helpers import REPO, run

BAD = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n  devices:\n"
       "    requests:\n    - name: GPU_0\n      exactly: {deviceClassName: gpu.example.com, count: -1}\n")


@pytest.fixture
def bad(tmp_path):
    (tmp_path / "bad.yaml").write_text(BAD)
    return tmp_path


def codes(result) -> list[str]:
    return [f["code"] for f in json.loads(result.out)["findings"]]


def test_ignore_is_comma_separated_and_case_insensitive(bad):
    everything = codes(run("validate", "bad.yaml", "-o", "json", "--no-config", cwd=bad))
    assert {"DRA1002", "DRA1009", "DRA2003"} <= set(everything)
    left = codes(run("validate", "bad.yaml", "-o", "json", "--no-config", "--ignore", "dra1002,DRA2003", cwd=bad))
    assert "DRA1002" not in left and "DRA2003" not in left and "DRA1009" in left


def test_select_and_prefixes(bad):
    only = codes(run("validate", "bad.yaml", "-o", "json", "--no-config", "--select", "DRA2", cwd=bad))
    assert only and all(c.startswith("DRA2") for c in only)
    assert "DRA2003" not in codes(run("validate", "bad.yaml", "-o", "json", "--no-config", "--ignore",
                                      "DRA20", cwd=bad))


@pytest.mark.parametrize("option,value", [("--ignore", "DRA9999"), ("--ignore", "DRA1002,XYZ"),
                                          ("--select", "DRA99")])
def test_unknown_codes_are_usage_errors(bad, option, value):
    result = run("validate", "bad.yaml", "--no-config", option, value, cwd=bad)
    assert result.code == 2 and "not a finding code" in result.err, result.err


def test_unknown_code_in_the_config_file_is_a_usage_error(bad):
    (bad / ".dractl.yaml").write_text("ignore: [DRA9999]\n")
    result = run("validate", "bad.yaml", cwd=bad)
    assert result.code == 2 and ".dractl.yaml: ignore:" in result.err


def test_exit_zero(bad):
    assert run("validate", "bad.yaml", "--no-config", cwd=bad).code == 1
    assert run("validate", "bad.yaml", "--no-config", "--exit-zero", cwd=bad).code == 0
    assert run("validate", "nope.yaml", "--no-config", "--exit-zero", cwd=bad).code == 2


def test_statistics_counts_per_code(bad):
    result = run("validate", "bad.yaml", "--no-config", "--statistics", cwd=bad)
    lines = result.out.splitlines()
    assert result.code == 1
    assert [line.split()[:3] for line in lines[:-1]] == [
        ["1", "DRA1002", "error"], ["1", "DRA1009", "error"], ["1", "DRA2003", "warning"]]
    assert lines[-1] == "3 findings in 3 codes"


def test_color_always_colours_a_pipe_and_no_color_wins(bad):
    coloured = run("validate", "bad.yaml", "--no-config", "--color", "always", cwd=bad)
    assert "\x1b[" in coloured.out
    plain = run("validate", "bad.yaml", "--no-config", cwd=bad)
    assert "\x1b[" not in plain.out
    forced = run("validate", "bad.yaml", "--no-config", cwd=bad, env={"FORCE_COLOR": "1"})
    assert "\x1b[" in forced.out
    assert "\x1b[" not in run("validate", "bad.yaml", "--no-config", "--color", "never", cwd=bad,
                              env={"FORCE_COLOR": "1"}).out


def test_allocate_strict_from_the_option_and_the_config(tmp_path):
    text = (REPO / "examples" / "gpu-pod.yaml").read_text()  # a clean run, plus one warning:
    (tmp_path / "pod.yaml").write_text(text + "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
                                       "metadata: {name: unused}\nspec: {spec: {devices: {requests: [{name: r,"
                                       " exactly: {deviceClassName: no-such-class}}]}}}\n")  # DRA2003
    args = ("allocate", "-i", "builtin:example-gpu", "pod.yaml")
    assert run(*args, "--no-config", cwd=tmp_path).code == 0
    assert run(*args, "--no-config", "--strict", cwd=tmp_path).code == 1
    (tmp_path / ".dractl.yaml").write_text("strict: true\n")
    assert run(*args, cwd=tmp_path).code == 1
    assert run(*args, "--no-strict", cwd=tmp_path).code == 0


def test_inventory_name_without_builtin_prefix(tmp_path):
    result = run("allocate", "-i", "example-gpu", str(REPO / "examples" / "gpu-pod.yaml"), cwd=tmp_path)
    assert result.code == 2 and "did you mean builtin:example-gpu?" in result.err


def test_explain_of_an_unknown_name_is_an_error():
    result = run("allocate", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml", "--explain", "nosuch", cwd=REPO)
    assert result.code == 2 and "--explain nosuch" in result.err


@pytest.mark.parametrize("spelling", ["1.35.0", "v1.35", "v1.35.2"])
def test_kube_version_spellings(bad, spelling):
    same = run("validate", "bad.yaml", "--no-config", "-o", "json", "--kube-version", "1.35", cwd=bad)
    result = run("validate", "bad.yaml", "--no-config", "-o", "json", "--kube-version", spelling, cwd=bad)
    assert result.code == 1 and result.out == same.out


def test_short_option_with_equals(bad):
    result = run("validate", "bad.yaml", "--no-config", "-o=json", cwd=bad)
    assert json.loads(result.out)["summary"]["errors"] == 2


def test_bare_dractl_prints_help_on_stdout():
    result = run()
    assert result.code == 0 and "Usage: dractl" in result.out and result.err == ""


def test_codes_explains_one_code():
    text = run("codes", "DRA1009")
    assert text.code == 0
    assert text.out.startswith("DRA1009 (error, apiserver): count must be greater than zero")
    for part in ("What it checks", "Why", "Example", "Fix", "validateDeviceAllocationMode"):
        assert part in text.out
    md = run("codes", "dra1009", "-o", "markdown")
    assert md.out.startswith("## DRA1009: ") and "```yaml" in md.out
    doc = json.loads(run("codes", "DRA1009", "-o", "json").out)
    assert doc["source"] == "dractl/validate/rules/claims.codes.md" and "**Fix.**" in doc["explanation"]
    unknown = run("codes", "DRA1099")
    assert unknown.code == 2 and "did you mean" in unknown.err


def test_inventories_show_opens_builtin_locations():
    mig = run("inventories", "show", "nvidia-mig")
    assert mig.code == 0
    from dractl.inventories import inventory_path

    assert mig.out == inventory_path("nvidia-mig").read_text()
    assert run("inventories", "show", "builtin:nvidia-mig").out == mig.out
    missing = run("inventories", "show", "nvida-mig")
    assert missing.code == 2 and "did you mean 'nvidia-mig'" in missing.err
    listed = json.loads(run("inventories", "-o", "json").out)
    example = next(i for i in listed if i["name"] == "example-gpu")
    assert example["inventory"] == "builtin:example-gpu" and example["devices"] == 16
    assert example["drivers"] == ["gpu.example.com"] and example["nodes"] == 3


def test_version_json():
    doc = json.loads(run("version", "-o", "json").out)
    from dractl import __version__

    assert doc["dractl"] == __version__
    assert doc["kubernetesVersions"] == ["1.34", "1.35", "1.36", "1.37", "1.38"] and doc["defaultKubernetesVersion"] == "1.37"
    assert doc["schemas"]["1.37"]["upstream"].startswith("kubernetes/kubernetes v1.37.0")
    assert "resource.k8s.io/v1" in doc["schemas"]["1.37"]["apiVersions"]
    assert doc["featureGates"]["1.35"]["DRAPartitionableDevices"] is False


def test_github_step_summary(bad, tmp_path):
    summary = tmp_path / "summary.md"
    result = run("validate", "bad.yaml", "--no-config", "-o", "github", cwd=bad,
                 env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.code == 1 and result.out.startswith("::error ")
    text = summary.read_text()
    assert text.startswith("### dractl validate\n") and "| ` bad.yaml:7:7 ` | DRA1002 | error |" in text
    plan = tmp_path / "plan.md"
    run("allocate", "-i", "builtin:example-gpu", "examples/nine-gpus.yaml", "-o", "github", cwd=REPO,
        env={"GITHUB_STEP_SUMMARY": str(plan)})
    assert "| 1 | 0 | 1 | 0 | 3 |" in plan.read_text() and "DRA5001" in plan.read_text()
    no_env = run("validate", "bad.yaml", "--no-config", "-o", "github", cwd=bad)
    assert no_env.out == result.out


def test_env_takes_golden_quiet_and_force_exclude(tmp_path):
    golden = tmp_path / "env.txt"
    args = ("env", "-i", "builtin:example-gpu", "examples/gpu-pod.yaml", "--no-config")
    # The golden file is outside the working directory (tmp_path), which needs the flag
    # (docs/decisions/0006-hostile-inputs.md).
    outside = ("--golden-allow-outside",)
    assert run(*args, "--golden", str(golden), "--update", *outside, cwd=REPO).code == 0
    assert run(*args, "--golden", str(golden), *outside, cwd=REPO).code == 0
    assert "GPU_UUID" in golden.read_text()
    assert run(*args, "--quiet", cwd=REPO).out.strip() == ""
    excluded = run(*args, "--exclude", "examples/gpu-pod.yaml", "--force-exclude", cwd=REPO)
    assert "GPU_UUID" not in excluded.out


def test_skip_and_reject_kinds(tmp_path):
    (tmp_path / "k.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n"
                                     "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: Bad_1}\n")
    plain = run("validate", "k.yaml", "--no-config", cwd=tmp_path)
    assert plain.code == 1 and "1 skipped (Service 1)" in plain.out
    skipped = run("validate", "k.yaml", "--no-config", "--skip-kinds", "DeviceClass", cwd=tmp_path)
    assert skipped.code == 0 and "2 skipped (DeviceClass 1, Service 1)" in skipped.out
    rejected = run("validate", "k.yaml", "--no-config", "-o", "json", "--reject-kinds",
                   "Service,resource.k8s.io/v1/DeviceClass", cwd=tmp_path)
    assert rejected.code == 1 and codes(rejected) == ["DRA0015", "DRA0015"]
    both = run("validate", "k.yaml", "--no-config", "--skip-kinds", "Service", "--reject-kinds", "Service",
               cwd=tmp_path)
    assert both.code == 2
