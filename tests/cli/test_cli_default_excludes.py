"""`dractl validate .` over a repository with a Helm chart and Kustomize files (docs/decisions/0009-linter-habits.md):
they are not read but counted, with one hint to render them; the CLI and the pre-commit hooks
share one default exclude list (dractl.pipeline.notmanifests). Each failed before."""

from __future__ import annotations

import json

import pytest
import yaml
from cli_helpers import REPO, run

from dractl.pipeline.notmanifests import HELM, HOOK_REGEX, KUSTOMIZE, OTHER, classify

CLAIM = ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n")
REPOSITORY = {
    "deploy/class.yaml": CLAIM,
    "deploy/kustomization.yaml": "resources:\n- class.yaml\n",
    "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "charts/web/values.yaml": "replicas: 2\n",
    "charts/web/values-prod.yaml": "replicas: 3\n",
    "charts/web/templates/claim.yaml": ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
                                        "metadata:\n  name: {{ .Release.Name }}-claim\n"),
    "site/package.json": '{"name": "site"}\n',
}


@pytest.fixture
def repository(tmp_path):
    for name, text in REPOSITORY.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_cli_and_the_hooks_share_one_exclude_list():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert {h["exclude"] for h in hooks} == {HOOK_REGEX}


def test_walking_a_repository_skips_charts_and_kustomize_and_counts_them(repository):
    result = run("validate", ".", "--strict", "--no-config", cwd=repository)
    assert result.code == 0, result.out + result.err  # was 4 errors: DRA0001, DRA0003 ...
    assert result.out.rstrip().endswith(
        "1 file, 1 document: 0 errors, 0 warnings; 6 files not read (Helm chart 4, Kustomize 1, "
        "not a manifest 1)")
    notes = [line for line in result.err.splitlines() if line.startswith("dractl: note:")]
    assert notes == ["dractl: note: Helm charts and Kustomize files are templates, not manifests, "
                     "and were not read: render them and validate the output: "
                     "`helm template charts/web | dractl validate -`; "
                     "`kubectl kustomize deploy | dractl validate -`"]


def test_the_count_is_in_the_json_summary(repository):
    summary = json.loads(run("validate", ".", "-o", "json", "--no-config", cwd=repository).out)["summary"]
    assert summary["notRead"] == {HELM: 4, KUSTOMIZE: 1, OTHER: 1}


def test_files_named_on_the_command_line_are_read_unless_force_exclude(repository):
    named = run("validate", "charts/web/values.yaml", "--no-config", cwd=repository)
    assert named.code == 1 and "DRA0003" in named.out
    hook = run("validate", "--force-exclude", "charts/web/values.yaml", "deploy/class.yaml",
               "--no-config", cwd=repository)
    assert hook.code == 0 and "1 file not read (Helm chart 1)" in hook.out


def test_no_default_exclude_reads_everything(repository):
    result = run("validate", ".", "--no-default-exclude", "--no-config", cwd=repository)
    assert result.code == 1 and "DRA0001" in result.out and "not read" not in result.out


def test_a_checkout_below_a_dot_directory_is_still_read(tmp_path):
    root = tmp_path / ".src" / "repo"
    root.mkdir(parents=True)
    (root / "class.yaml").write_text(CLAIM)
    result = run("validate", str(root), "--no-config", cwd=tmp_path)
    assert result.code == 0 and result.out.startswith("1 file, 1 document")


@pytest.mark.parametrize("path,what", [
    ("charts/web/values.yaml", HELM), ("values-prod.yml", HELM), ("a/Chart.lock", HELM),
    ("x/templates/deployment.yaml", HELM), ("overlays/Kustomization.yml", KUSTOMIZE),
    ("web/tsconfig.build.json", OTHER), ("deploy/claim.yaml", None), ("values-ns.yaml.d/pod.yaml", None),
])
def test_classify(path, what):
    assert classify(path) == what
