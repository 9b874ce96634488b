"""`capacity -o json|yaml`: the pools (KEP-5677 PoolStatus fields plus dractl's own, see the
README), nodes, the --fit answer, findings and a summary."""

from __future__ import annotations


def capacity_document(result) -> dict:
    doc = dict(result.capacity)
    doc["findings"] = [f.to_json() for f in result.findings]
    return doc


def report(result, view) -> str:
    from dractl.report.findings_json import dumps

    return dumps(capacity_document(result))


def report_yaml(result, view) -> str:
    import yaml

    return yaml.safe_dump(capacity_document(result), sort_keys=False, allow_unicode=False, width=1000)
