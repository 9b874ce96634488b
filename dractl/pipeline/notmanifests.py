"""YAML and JSON files of a repository that are not Kubernetes manifests: the one default
exclude list of the CLI (files found by walking directories) and of the pre-commit hooks
(`exclude:` of .pre-commit-hooks.yaml, the same regular expression: HOOK_REGEX;
tests/cli/test_cli_precommit.py keeps them equal).

Reading them would only fail: Helm templates are Go templates (`{{ .Release.Name }}` is a YAML
syntax error), `values.yaml`, `Chart.yaml`, `kustomization.yaml` and `package.json` have no
apiVersion or kind. Each is counted by what it is, and Helm charts and Kustomize directories get
one hint: render them and validate the output.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

HELM, KUSTOMIZE, OTHER = "Helm chart", "Kustomize", "not a manifest"

# (what it is, pattern matched with re.search on the `/`-separated path, comment in the hook).
PATTERNS: tuple[tuple[str, str, str], ...] = (
    (OTHER, r"(^|/)\.", "dot-files and dot-directories: .github/, .gitlab-ci.yml, .dractl.yaml"),
    (HELM, r"(^|/)values([-._][^/]*)?\.ya?ml$", "Helm values: values.yaml, values-prod.yaml"),
    (HELM, r"(^|/)Chart\.(yaml|lock)$", "Helm chart metadata"),
    (HELM, r"(^|/)(templates|charts)/", "Helm templates (Go templates) and sub-charts"),
    (KUSTOMIZE, r"(^|/)[Kk]ustomization\.ya?ml$", "Kustomize configuration, not an object"),
    (OTHER, r"(^|/)(package|package-lock|composer|bower|lerna|nx|turbo|renovate|deno)\.json$", ""),
    (OTHER, r"(^|/)(ts|js)config([-.][^/]*)?\.json$", ""),
    (OTHER, r"\.schema\.json$", "JSON Schemas"),
    (OTHER, r"(^|/)(pnpm-lock|mkdocs|codecov|dependabot|action|environment|pubspec|serverless)"
            r"\.ya?ml$", ""),
    (OTHER, r"(^|/)(docker-)?compose([-.][^/]*)?\.ya?ml$", "Docker Compose"),
    (OTHER, r"(^|/)(openapi|swagger)([-.][^/]*)?\.(ya?ml|json)$", ""),
)


def _hook_regex() -> str:
    lines = ["(?x)("]
    for n, (_, pattern, comment) in enumerate(PATTERNS):
        line = ("  " if n == 0 else " |") + pattern
        lines.append(f"{line:<46}# {comment}" if comment else line)
    return "\n".join(lines) + "\n)\n"


HOOK_REGEX = _hook_regex()
_COMPILED = tuple((what, re.compile(pattern)) for what, pattern, _ in PATTERNS)


def classify(path: str) -> str | None:
    """What a path (relative to the directory walked, `/`-separated) is when it is not a
    manifest (HELM, KUSTOMIZE, OTHER); None for a file that may be one."""
    for what, pattern in _COMPILED:
        if pattern.search(path):
            return what
    return None


def relative_to_root(name: str, roots: list[str]) -> tuple[str, str]:
    """(root prefix, rest): `name` split at the command-line directory it was found under, the
    rest `/`-separated (so that a checkout under a dot-directory, `~/.src/repo`, does not match
    the dot-directory rule)."""
    best = None
    for root in roots:
        prefix = "" if root in (".", "./") else root.rstrip("/" + os.sep) + os.sep
        if name.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    best = best or ""
    return best, name[len(best):].replace(os.sep, "/")


def _chart_root(path: str) -> str:
    """The directory of the chart (or Kustomize configuration) a path belongs to: a chart's
    Chart.yaml and values files sit in it, its templates below `templates/`."""
    parts = path.split("/")
    if "templates" in parts[:-1] and not parts[-1].startswith(("Chart.", "values")):
        return "/".join(parts[:len(parts) - 1 - parts[::-1].index("templates", 1)])
    return "/".join(parts[:-1])


@dataclass
class NotRead:
    """Files left out by the default excludes: how many of each sort, and where the charts and
    Kustomize directories are (for the hint)."""

    counts: dict[str, int] = field(default_factory=dict)
    places: dict[str, set[str]] = field(default_factory=dict)

    def add(self, what: str, prefix: str, rest: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1
        if what in (HELM, KUSTOMIZE):
            directory = (prefix + _chart_root(rest)).rstrip("/" + os.sep)
            self.places.setdefault(what, set()).add(directory or ".")

    def hint(self) -> str | None:
        """The one hint for charts and Kustomize directories: how to render them for dractl."""
        commands = [f"helm template {d} | dractl validate -" for d in sorted(self.places.get(HELM, ()))]
        commands += [f"kubectl kustomize {d} | dractl validate -"
                     for d in sorted(self.places.get(KUSTOMIZE, ()))]
        if not commands:
            return None
        shown = "; ".join(f"`{c}`" for c in commands[:3])
        more = f" (and {len(commands) - 3} more)" if len(commands) > 3 else ""
        return ("Helm charts and Kustomize files are templates, not manifests, and were not read: "
                f"render them and validate the output: {shown}{more}")
