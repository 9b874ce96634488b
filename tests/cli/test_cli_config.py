""".dractl.yaml: discovery, every setting, and command-line precedence."""

from __future__ import annotations

import json

import pytest
from cli_helpers import CLAIM_BAD, CLAIM_OK

WORKLOAD_1_35 = """apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata:
  name: w
  namespace: default
spec:
  podGroups:
  - name: g
    policy:
      basic: {}
"""

ADMIN_CLAIM = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: x
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: a
  namespace: default
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: x
        adminAccess: true
"""


def codes(result) -> list[str]:
    return [f["code"] for f in json.loads(result.out)["findings"]]


def files(result) -> set[str]:
    return {f["file"] for f in json.loads(result.out)["findings"]}


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "deploy" / "team").mkdir(parents=True)
    (tmp_path / "vendor").mkdir()
    (tmp_path / "deploy" / "bad.yaml").write_text(CLAIM_BAD)
    (tmp_path / "deploy" / "team" / "bad.yaml").write_text(CLAIM_BAD)
    (tmp_path / "deploy" / "ok.yaml").write_text(CLAIM_OK)
    (tmp_path / "vendor" / "bad.yaml").write_text(CLAIM_BAD)
    (tmp_path / "deploy" / "workload.yaml").write_text(WORKLOAD_1_35)
    return tmp_path


def write_config(root, text: str, name: str = ".dractl.yaml"):
    (root / name).write_text(text)


def test_found_by_walking_up_and_paths_relative_to_it(dractl, repo):
    write_config(repo, "exclude: [vendor/]\nperPathIgnore:\n  deploy/team/**: [DRA1009]\n")
    result = dractl("validate", "..", "-o", "json", cwd=repo / "deploy")  # from a sub-directory
    assert result.code == 1, result.err
    found = {(f["file"], f["code"]) for f in json.loads(result.out)["findings"]}
    assert ("../deploy/bad.yaml", "DRA1009") in found          # not under deploy/team
    assert ("../deploy/team/bad.yaml", "DRA1009") not in found  # perPathIgnore
    assert ("../deploy/team/bad.yaml", "DRA1002") in found      # other codes stay
    assert not any(f.startswith("../vendor") for f, _ in found)  # exclude
    assert not any(".dractl.yaml" in f for f, _ in found)       # the config is no manifest


def test_kube_version_from_config_and_command_line_wins(dractl, repo):
    write_config(repo, 'kubeVersion: "1.35"\n')
    assert "DRA0105" not in codes(dractl("validate", "deploy/workload.yaml", "-o", "json", cwd=repo))
    assert "DRA0105" in codes(dractl("validate", "deploy/workload.yaml", "-o", "json",
                                     "--kube-version", "1.37", cwd=repo))
    assert "DRA0105" in codes(dractl("validate", "deploy/workload.yaml", "-o", "json", "--no-config",
                                     cwd=repo))


def test_feature_gates_merge_per_gate_command_line_wins(dractl, tmp_path):
    (tmp_path / "claim.yaml").write_text(ADMIN_CLAIM)
    write_config(tmp_path, 'kubeVersion: "1.34"\nfeatureGates:\n  DRAAdminAccess: false\n')
    assert "DRA1910" in codes(dractl("validate", "claim.yaml", "-o", "json", cwd=tmp_path))
    assert "DRA1910" not in codes(dractl("validate", "claim.yaml", "-o", "json", "--feature-gates",
                                         "DRAAdminAccess=true", cwd=tmp_path))
    write_config(tmp_path, 'kubeVersion: "1.34"\nfeatureGates: DRAAdminAccess=false\n')
    assert "DRA1910" in codes(dractl("validate", "claim.yaml", "-o", "json", cwd=tmp_path))


def test_ignore_adds_to_the_config_and_strict_can_be_turned_off(dractl, repo):
    write_config(repo, "ignore: [DRA1009]\nstrict: true\nexclude: [vendor]\n")
    result = dractl("validate", "deploy", "-o", "json", cwd=repo)
    assert "DRA1009" not in codes(result) and "DRA1002" in codes(result)
    both = dractl("validate", "deploy", "-o", "json", "--ignore", "DRA1002", cwd=repo)
    assert not {"DRA1009", "DRA1002"} & set(codes(both))
    # strict from the config: the DRA2003 warning counts as an error ...
    only_warning = dractl("validate", "deploy/ok.yaml", "deploy/bad.yaml", "-o", "json", "--ignore",
                          "DRA1002", cwd=repo)
    found = {(f["code"], f["severity"]) for f in json.loads(only_warning.out)["findings"]}
    assert found == {("DRA2003", "error")} and only_warning.code == 1
    # ... unless the command line says --no-strict
    lax = dractl("validate", "deploy/ok.yaml", "deploy/bad.yaml", "-o", "json", "--ignore", "DRA1002",
                 "--no-strict", cwd=repo)
    assert {f["severity"] for f in json.loads(lax.out)["findings"]} == {"warning"}
    assert lax.code == 0


def test_exclude_on_the_command_line_and_force_exclude(dractl, repo):
    result = dractl("validate", ".", "-o", "json", "--exclude", "vendor", "--exclude", "*/team/*",
                    "--no-config", cwd=repo)
    assert files(result) == {"deploy/bad.yaml", "deploy/workload.yaml"}  # no "./": as SARIF names them
    # files named on the command line are read unless --force-exclude (pre-commit passes names)
    named = dractl("validate", "vendor/bad.yaml", "-o", "json", "--exclude", "vendor/", cwd=repo)
    assert files(named) == {"vendor/bad.yaml"}
    forced = dractl("validate", "vendor/bad.yaml", "deploy/ok.yaml", "-o", "json", "--exclude", "vendor/",
                    "--force-exclude", cwd=repo)
    assert forced.code == 0 and files(forced) == set()


def test_inventory_from_config_command_line_replaces_it(dractl, tmp_path):
    (tmp_path / "claim.yaml").write_text(CLAIM_OK.split("---\n")[1])
    write_config(tmp_path, "inventory: [builtin:example-gpu]\n")
    result = dractl("allocate", "claim.yaml", "-o", "json", cwd=tmp_path)
    assert result.code == 0, result.out + result.err
    claims = json.loads(result.out)["claims"]
    assert claims[0]["allocation"]["devices"]["results"][0]["driver"] == "gpu.example.com"
    other = dractl("allocate", "claim.yaml", "-o", "json", "-i", "builtin:tpu", cwd=tmp_path)
    assert other.code == 1
    # relative inventory paths are relative to the config file, wherever dractl runs
    (tmp_path / "cluster").mkdir()
    from dractl.inventories import inventory_path

    (tmp_path / "cluster" / "gpus.yaml").write_text(inventory_path("example-gpu").read_text())
    write_config(tmp_path, "inventory: [cluster/gpus.yaml]\n")
    (tmp_path / "sub").mkdir()
    inside = dractl("allocate", "../claim.yaml", "-o", "json", cwd=tmp_path / "sub")
    assert inside.code == 0, inside.err


def test_explicit_config_and_no_config(dractl, repo):
    write_config(repo, "ignore: [DRA1002]\n")
    (repo / "other.yaml").write_text("ignore: [DRA1009]\n")
    assert "DRA1002" not in codes(dractl("validate", "deploy/bad.yaml", "-o", "json", cwd=repo))
    explicit = dractl("validate", "deploy/bad.yaml", "-o", "json", "--config", "other.yaml", cwd=repo)
    assert "DRA1002" in codes(explicit) and "DRA1009" not in codes(explicit)
    none = dractl("validate", "deploy/bad.yaml", "-o", "json", "--no-config", cwd=repo)
    assert {"DRA1002", "DRA1009"} <= set(codes(none))
    both = dractl("validate", "deploy/bad.yaml", "--config", "other.yaml", "--no-config", cwd=repo)
    assert both.code == 2


@pytest.mark.parametrize("text,message", [
    ("kubeVersion: 1.40\n", "unsupported version"),
    ("kubeversion: '1.35'\n", "did you mean 'kubeVersion'"),
    ("featureGates: {Nope: true}\n", "unrecognized feature gate"),
    ("featureGates: {DRAAdminAccess: maybe}\n", "featureGates"),
    ("ignore: [not-a-code]\n", "not a finding code"),
    ("ignore: DRA1002\nstrict: yes-please\n", "strict"),
    ("perPathIgnore: [a, b]\n", "perPathIgnore"),
    ("exclude: {a: b}\n", "exclude"),
    ("- just\n- a list\n", "expected a mapping"),
    ("kubeVersion: [unclosed\n", ".dractl.yaml:2:1: expected ','"),
    ("\xff\xfe bad bytes", "UTF-8"),
])
def test_bad_config_is_a_usage_error(dractl, repo, text, message):
    (repo / ".dractl.yaml").write_bytes(text.encode("latin-1") if "\xff" in text else text.encode())
    result = dractl("validate", "deploy/ok.yaml", cwd=repo)
    assert result.code == 2, result.out
    assert message in result.err and "Traceback" not in result.err
    assert ".dractl.yaml" in result.err


def test_missing_explicit_config(dractl, repo):
    result = dractl("validate", "deploy/ok.yaml", "--config", "nope.yaml", cwd=repo)
    assert result.code == 2 and "nope.yaml" in result.err


def test_glob_semantics():
    from dractl.config import PathMatcher

    m = PathMatcher(["vendor/", "*.gen.yaml", "deploy/**/old/*", "/top.yaml", "a?c.yaml"], "/r")
    assert m.matches("/r/vendor/x.yaml") and m.matches("/r/deploy/vendor/x.yaml")
    assert m.matches("/r/x/y.gen.yaml") and not m.matches("/r/x/y.yaml")
    assert m.matches("/r/deploy/old/a.yaml") and m.matches("/r/deploy/a/b/old/a.yaml")
    assert m.matches("/r/top.yaml") and not m.matches("/r/sub/top.yaml")
    assert m.matches("/r/abc.yaml") and not m.matches("/r/abbc.yaml")
    assert not m.matches("/elsewhere/vendor/x.yaml") and not m.matches("<stdin>")
