"""`dractl version -o json`: what this dractl carries: its version, the Kubernetes versions it
validates and schedules for (with the default), where each version's schemas come from, and
which feature gates each version has (with their defaults)."""

from __future__ import annotations

import json
import platform
from importlib import resources

from dractl import __version__
from dractl.api.versions import DEFAULT_KUBE_VERSION, KUBE_VERSIONS, PREVIEW_VERSIONS


def _schema_index() -> dict:
    with resources.files("dractl.schemas").joinpath("index.json").open("r", encoding="utf-8") as fh:
        return json.load(fh)


def version_document() -> dict:
    from dractl.api.versions import FeatureGates

    index = _schema_index()
    schemas = {}
    for version in KUBE_VERSIONS:
        source = index["sources"][version]
        if source.get("preview"):  # derived from a released version (scripts/gen_schemas.py PREVIEWS)
            entry = {"preview": True, "base": source["base"], "withdrawn": source["withdrawn"],
                     "changes": source["changes"]}
        else:
            entry = {"upstream": source["upstream"], "package": f"{source['package']}=={source['version']}",
                     "file": source["file"], "sha256": source["sha256"]}
        entry["schema"] = f"dractl/schemas/{index['files'][version]}"
        entry["apiVersions"] = {api: sorted(kinds) for api, kinds in sorted(index["served"][version].items())}
        schemas[version] = entry
    gates = {version: FeatureGates(version).as_dict() for version in KUBE_VERSIONS}
    return {
        "dractl": __version__,
        "python": platform.python_version(),
        "kubernetesVersions": list(KUBE_VERSIONS),
        "defaultKubernetesVersion": DEFAULT_KUBE_VERSION,
        "previewKubernetesVersions": list(PREVIEW_VERSIONS),
        "schemas": schemas,
        "schemaExtensions": index.get("extensions", {}),
        "featureGates": gates,
    }


def version_text() -> str:
    return f"dractl {__version__}\n"
