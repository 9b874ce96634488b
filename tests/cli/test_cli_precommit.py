"""The pre-commit hooks' default scope (.pre-commit-hooks.yaml) selects the files of a GitOps
repository that can be Kubernetes manifests, and the hook passes on such a repository even with
--strict: Helm charts and package files are not read, other kinds are counted as skipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from cli_helpers import REPO, run

HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
# identify's tags for the extensions pre-commit's types_or [yaml, json] matches
TYPES = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}

MANIFESTS = ["deploy/claim.yaml", "deploy/app/service.yml", "clusters/prod/ingress.yaml",
             "apps/gpu/deployment.json", "infra/certificate.yaml", "k8s/values-ns.yaml.d/pod.yaml"]
NOT_MANIFESTS = ["charts/web/values.yaml", "charts/web/values-prod.yaml", "charts/web/Chart.yaml",
                 "charts/web/templates/deployment.yaml", "values.yaml", "package.json",
                 "web/package-lock.json", "tsconfig.json", "tsconfig.build.json", "pnpm-lock.yaml",
                 "docker-compose.yml", "compose.yaml", "mkdocs.yml", ".github/workflows/ci.yaml",
                 ".gitlab-ci.yml", ".pre-commit-config.yaml", ".dractl.yaml", "overlays/kustomization.yaml",
                 "api/openapi.yaml", "schemas/claim.schema.json", "renovate.json", "README.md"]


def selected(hook: dict, path: str) -> bool:
    """pre-commit's file selection: files/exclude regexes (re.search) and types_or."""
    if not re.search(hook.get("files", ""), path):
        return False
    if re.search(hook.get("exclude", "^$"), path):
        return False
    return TYPES.get(Path(path).suffix) in hook["types_or"]


@pytest.mark.parametrize("hook", HOOKS, ids=lambda h: h["id"])
def test_default_scope_is_manifests(hook):
    assert [p for p in MANIFESTS if not selected(hook, p)] == []
    assert [p for p in NOT_MANIFESTS if selected(hook, p)] == []


def test_both_hooks_share_the_scope_and_run_once_over_all_files():
    assert len({h["exclude"] for h in HOOKS}) == 1
    assert all(h["require_serial"] and "--force-exclude" in h["entry"] for h in HOOKS)


def test_hook_passes_on_a_gitops_repository_with_strict(tmp_path):
    files = {
        "deploy/claim.yaml": "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n",
        "deploy/app/service.yml": "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n",
        "clusters/prod/ingress.yaml": "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\n",
        "infra/certificate.yaml": "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: tls}\n",
        "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
        "charts/web/values.yaml": "replicas: 2\nimage: {tag: latest}\n",
        "charts/web/templates/deployment.yaml": "replicas: {{ .Values.replicas }}\n",
        "package.json": '{"name": "site", "version": "1.0.0"}\n',
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    hook = HOOKS[0]
    staged = sorted(name for name in files if selected(hook, name))
    assert staged == ["clusters/prod/ingress.yaml", "deploy/app/service.yml", "deploy/claim.yaml",
                      "infra/certificate.yaml"]
    args = hook["entry"].split()[1:] + ["--strict", "--no-config"] + staged
    result = run(*args, cwd=tmp_path)
    assert result.code == 0, result.out + result.err
    assert "0 errors, 0 warnings" in result.out
