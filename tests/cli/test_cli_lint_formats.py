"""Machine formats that mean what they say: --statistics in the format asked
for, JUnit skipped documents and inventory suites, causes before consequences, no duplicate
GitHub annotations, SARIF rules that fired, -o yaml / concise / gitlab. Each failed before."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
import yaml
from cli_helpers import REPO, run
from test_cli_formats import github_findings, json_findings, junit_findings, sarif_findings

BROKEN = str(REPO / "examples" / "broken.yaml")

BAD_CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: bad
spec:
  devices:
    requests:
    - name: GPU_0
      exactly:
        deviceClassName: gpu.example.com
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: x
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimName: bad
"""

# GitLab's code quality report, the fields its documentation lists as required
# (https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format).
GITLAB_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string"},
            "check_name": {"type": "string"},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {"type": "object", "required": ["path", "lines"],
                         "properties": {"path": {"type": "string", "minLength": 1},
                                        "lines": {"type": "object", "required": ["begin"],
                                                  "properties": {"begin": {"type": "integer",
                                                                           "minimum": 1}}}}},
        },
    },
}


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_statistics_in_json_and_yaml(fmt):
    result = run("validate", "--statistics", "-o", fmt, BROKEN, "--no-config")
    doc = json.loads(result.out) if fmt == "json" else yaml.safe_load(result.out)
    assert result.code == 1
    assert doc["total"] == 13 and doc["codes"] == 9
    assert doc["statistics"][0] == {"code": "DRA2003", "severity": "warning", "count": 5,
                                    "summary": doc["statistics"][0]["summary"]}


def test_statistics_with_a_findings_format_is_a_usage_error():
    result = run("validate", "--statistics", "-o", "junit", BROKEN, "--no-config")
    assert result.code == 2 and result.out == "" and "--statistics" in result.err


def test_validate_yaml_is_the_json_document():
    as_json = json.loads(run("validate", "-o", "json", BROKEN, "--no-config").out)
    as_yaml = yaml.safe_load(run("validate", "-o", "yaml", BROKEN, "--no-config").out)
    assert as_yaml == as_json


def test_env_yaml_is_the_json_document():
    args = ("env", "-i", "builtin:example-gpu", str(REPO / "examples" / "gpu-pod.yaml"), "--no-config")
    assert yaml.safe_load(run(*args, "-o", "yaml").out) == json.loads(run(*args, "-o", "json").out)


def test_concise_is_one_line_per_finding():
    result = run("validate", "-o", "concise", BROKEN, "--no-config")
    lines = result.out.splitlines()
    assert result.code == 1 and len(lines) == 13
    assert lines[0].startswith(f"{BROKEN}:17:7: DRA1002 spec.devices.requests[0].name: Invalid value")
    found = {(line.split(":")[1], line.split(": ")[1].split()[0]) for line in lines}
    expected = {(str(f[1]), f[3]) for f in json_findings(run("validate", "-o", "json", BROKEN,
                                                               "--no-config").out) if f[4] != "info"}
    assert found == expected


def test_gitlab_code_quality_report(tmp_path):
    (tmp_path / "c.yaml").write_text(BAD_CLAIM)
    result = run("allocate", "-i", "builtin:example-gpu", "-o", "gitlab", "c.yaml", "--no-config",
                 cwd=tmp_path)
    issues = json.loads(result.out)
    jsonschema.validate(issues, GITLAB_SCHEMA)
    assert result.code == 1
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    assert [(i["check_name"], i["severity"], i["location"]) for i in issues] == [
        ("DRA1002", "major", {"path": "c.yaml", "lines": {"begin": 8}}),
        ("DRA5016", "major", {"path": "c.yaml", "lines": {"begin": 16}})]


def test_gitlab_fingerprints_stay_when_lines_move(tmp_path):
    (tmp_path / "c.yaml").write_text(BAD_CLAIM)
    before = json.loads(run("validate", "-o", "gitlab", "c.yaml", "--no-config", cwd=tmp_path).out)
    (tmp_path / "c.yaml").write_text("# a comment\n" + BAD_CLAIM)
    after = json.loads(run("validate", "-o", "gitlab", "c.yaml", "--no-config", cwd=tmp_path).out)
    assert [i["fingerprint"] for i in before] == [i["fingerprint"] for i in after]


def test_sarif_lists_only_the_rules_that_fired():
    result = run("validate", "-o", "sarif", BROKEN, "--no-config")
    run_ = json.loads(result.out)["runs"][0]
    assert [r["id"] for r in run_["tool"]["driver"]["rules"]] == sorted(
        {"DRA1002", "DRA1005", "DRA1009", "DRA1010", "DRA1022", "DRA1407", "DRA1901", "DRA2002",
         "DRA2003"})
    assert all("markdown" in r["help"] for r in run_["tool"]["driver"]["rules"])
    assert len(result.out) < 100_000  # was 550 KB: the help of every code
    sarif_findings(result.out)


def test_junit_skipped_documents_are_skipped(tmp_path):
    (tmp_path / "m.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
    result = run("validate", "-o", "junit", "m.yaml", "--no-config", "--skip-kinds", "ConfigMap",
                 cwd=tmp_path)
    _, root = junit_findings(result.out, tmp_path)  # XSD-valid
    suite = root.find("testsuite")
    assert suite.get("skipped") == "2" and suite.get("tests") == "3"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["Service web"].find("skipped").get("message") == "dractl does not read Service (v1)"
    assert cases["ConfigMap cm"].find("skipped").get("message") == "--skip-kinds"
    assert cases["DeviceClass gpu.example.com"].find("skipped") is None


def test_junit_inventory_objects_are_left_out_unless_they_have_findings(tmp_path):
    (tmp_path / "pods.yaml").write_text((REPO / "examples" / "gpu-pod.yaml").read_text())
    (tmp_path / "inv.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: other}\nspec:\n"
        "  selectors:\n  - cel: {expression: 'device.driver =='}\n")
    result = run("validate", "-o", "junit", "-i", "inv.yaml", "pods.yaml", "--no-config",
                 cwd=tmp_path)
    _, root = junit_findings(result.out, tmp_path)
    suites = {s.get("name"): [c.get("name") for c in s.iter("testcase")] for s in root.iter("testsuite")}
    assert suites == {"inventory inv.yaml": ["DeviceClass other"],
                      "pods.yaml": ["ResourceClaimTemplate single-gpu", "Deployment inference"]}


def test_junit_root_cause_before_its_consequence(tmp_path):
    (tmp_path / "c.yaml").write_text(BAD_CLAIM)
    result = run("allocate", "-i", "builtin:example-gpu", "-o", "junit", "c.yaml", "--no-config",
                 cwd=tmp_path)
    _, root = junit_findings(result.out, tmp_path)
    cases = {c.get("name"): c for c in root.iter("testcase")}
    failure = cases["ResourceClaim bad"].find("failure")
    assert failure.get("type") == "DRA1002" and "DRA5016" not in failure.text


def test_github_annotates_a_root_error_once(tmp_path):
    (tmp_path / "c.yaml").write_text(BAD_CLAIM)
    result = run("allocate", "-i", "builtin:example-gpu", "-o", "github", "c.yaml", "--no-config",
                 cwd=tmp_path)
    lines = result.out.splitlines()
    assert len(lines) == len(set(lines)) == 2
    assert {f[3] for f in github_findings(result.out)} == {"DRA1002", "DRA5016"}
    assert "claim default/bad: the claim has validation errors" not in result.out


def test_upgrade_check_formats(tmp_path):
    args = ("allocate", "-i", "builtin:example-gpu", str(REPO / "examples" / "gpu-pod.yaml"),
            "--kube-version", "1.36,1.37", "--no-config")
    html = run(*args, "-o", "html")
    assert html.code == 2 and "not available for the upgrade check" in html.err  # was a traceback
    doc = yaml.safe_load(run(*args, "-o", "yaml").out)
    assert doc == json.loads(run(*args, "-o", "json").out)
    assert ET.fromstring(run(*args, "-o", "junit").out).tag == "testsuites"
