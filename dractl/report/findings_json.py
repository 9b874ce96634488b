"""`validate -o json`, exactly the shape documented in the README (stable)."""

from __future__ import annotations

import json

from dractl.validate.findings import Finding


def findings_document(findings: list[Finding], files: int, documents: int) -> dict:
    return {
        "findings": [f.to_json() for f in findings],
        "summary": {
            "files": files,
            "documents": documents,
            "errors": sum(1 for f in findings if f.severity == "error"),
            "warnings": sum(1 for f in findings if f.severity == "warning"),
        },
    }


def dumps(obj: object) -> str:
    # ensure_ascii keeps control characters from manifests escaped (\u001b), never raw.
    return json.dumps(obj, indent=2, ensure_ascii=True, sort_keys=False) + "\n"
