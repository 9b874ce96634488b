"""`env -o json` and `env --metadata -o json`."""

from __future__ import annotations

from dractl.report.env_view import env_pods
from dractl.report.findings_json import dumps

METADATA_NOTE = "prediction: the actual content is produced by the DRA driver"


def report(result, view) -> str:
    return dumps(_document(result))


def _document(result) -> dict:
    return {"pods": env_pods(result.plan), "findings": [f.to_json() for f in result.findings]}


def report_yaml(result, view) -> str:
    """`env -o yaml`: the `-o json` document as YAML."""
    import yaml

    return yaml.safe_dump(_document(result), sort_keys=False, allow_unicode=False, width=1000)


def report_metadata(result, view) -> str:
    """KEP-5304 device metadata files per container, the content as JSON."""
    return dumps(_metadata_document(result))


def report_metadata_yaml(result, view) -> str:
    """`env --metadata -o yaml`: the `-o json` document as YAML."""
    import yaml

    return yaml.safe_dump(_metadata_document(result), sort_keys=False, allow_unicode=False,
                          width=1000)


def _metadata_document(result) -> dict:
    from dractl.metadata import plan_files, release_of
    from dractl.report.env_text import plan_versions

    release = release_of(result)
    doc = {"kubeVersion": release, "versions": list(plan_versions(result, release)),
           "pods": [{"namespace": p["namespace"], "name": p["name"], "node": p["node"],
                     "containers": [{"name": c, "files": [_file(f) for f in files]}
                                    for c, files in p["containers"].items()]}
                    for p in plan_files(result.plan, result.metadata_versions, release)],
           "note": METADATA_NOTE}
    return doc


def _file(f: dict) -> dict:
    # content: the file's JSON stream as a list, one DeviceMetadata per version, in file order.
    return {"path": f["path"], "claim": f["claim"], "request": f["request"],
            "driver": f["driver"], "content": f["objects"]}
