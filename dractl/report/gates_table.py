"""`dractl gates`: every feature gate dractl knows for one Kubernetes release, with stage,
default and lock, as a table (text) or data (json)."""

from __future__ import annotations

from dractl.api.versions import GateSpec, gate_specs, previous_minor

_STAGES = {"alpha": "Alpha", "beta": "Beta", "ga": "GA", "deprecated": "Deprecated"}


def gates_document(version: str, min_compat: str | None, preview: bool) -> dict:
    specs = gate_specs(version, min_compat)
    return {
        "kubernetesVersion": version,
        "minCompatibilityVersion": min_compat or previous_minor(version),
        "preview": preview,
        "gates": [_row(spec) for spec in specs.values()],
    }


def _row(spec: GateSpec) -> dict:
    row = {"name": spec.name, "stage": _STAGES.get(spec.stage, spec.stage), "default": spec.default,
           "locked": spec.locked, "source": spec.source}
    if spec.min_compat:
        row["minCompatibilityVersion"] = spec.min_compat
    return row


def report_text(result, view) -> str:
    """`gates`: `result` carries `document` (gates_document)."""
    return gates_text(result.document)


def report_json(result, view) -> str:
    from dractl.report.findings_json import dumps

    return dumps(result.document)


def gates_text(document: dict) -> str:
    rows = document["gates"]
    width = max([len(r["name"]) for r in rows] + [4])
    head = f"Kubernetes {document['kubernetesVersion']}"
    if document["preview"]:
        head += " (preview: from the release's alpha changelogs)"
    head += f", --min-compatibility-version {document['minCompatibilityVersion']}"
    lines = [head, f"{'GATE'.ljust(width)}  STAGE       DEFAULT  LOCKED"]
    for r in rows:
        default = "true" if r["default"] else "false"
        if r.get("minCompatibilityVersion"):
            default += f" (min-compatibility-version >= {r['minCompatibilityVersion']})"
        lines.append(f"{r['name'].ljust(width)}  {r['stage'].ljust(10)}  {default.ljust(7)}  "
                     f"{'yes' if r['locked'] else 'no'}")
    lines.append(f"{len(rows)} gate(s)")
    return "\n".join(lines) + "\n"
