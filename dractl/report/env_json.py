"""`env -o json` and `env --metadata -o json`."""

from __future__ import annotations

import json

from dractl.report.env_view import env_pods
from dractl.report.findings_json import dumps

METADATA_NOTE = "prediction: the actual content is produced by the DRA driver"


def report(result, view) -> str:
    return dumps({"pods": env_pods(result.plan),
                  "findings": [f.to_json() for f in result.findings]})


def report_metadata(result, view) -> str:
    """KEP-5304 device metadata files per container, the content as JSON."""
    from dractl.metadata import plan_files

    doc = {"pods": [{"namespace": p["namespace"], "name": p["name"], "node": p["node"],
                     "containers": [{"name": c, "files": [_file(f) for f in files]}
                                    for c, files in p["containers"].items()]}
                    for p in plan_files(result.plan)],
           "note": METADATA_NOTE}
    return dumps(doc)


def _file(f: dict) -> dict:
    return {"path": f["path"], "claim": f["claim"], "request": f["request"],
            "driver": f["driver"], "content": json.loads(f["content"])}
