"""The upgrade check (`--kube-version 1.36,1.37,1.38`) in text and JSON: per release the counts,
then per step what appears, what disappears and which outcomes differ (dractl's own report)."""

from __future__ import annotations

from dractl.report.sanitize import safe_line


def _where(f) -> str:
    return f"{f.file}:{f.line}:{f.column}" if f.file else "(run)"


def _outcome(o: dict | None) -> str:
    if o is None:
        return "absent"
    text = o["status"]
    if o.get("node"):
        text += f" on {o['node']}"
    if o.get("devices"):
        text += f" ({', '.join(o['devices'])})"
    if o.get("reason"):
        text += f": {o['reason']}"
    return text


def report_text(result, view) -> str:
    releases = " -> ".join(f"{r.version}{' (preview)' if r.preview else ''}" for r in result.runs)
    lines = [f"upgrade check ({result.base_command}): Kubernetes {releases}"]
    for run in result.runs:
        r = run.result
        counts = f"{r.errors()} error(s), {r.warnings()} warning(s)"
        if r.plan is not None:
            scheduled = sum(1 for p in r.plan.pods if p.status == "Scheduled")
            counts += f", {scheduled}/{len(r.plan.pods)} pod(s) scheduled"
        lines.append(f"  {run.version}: {counts}")
    for change in result.changes:
        lines.append("")
        items = change["appeared"] or change["disappeared"] or change["outcomes"]
        lines.append(f"{change['from']} -> {change['to']}:" + ("" if items else " no changes"))
        for f in change["appeared"]:
            lines.append(safe_line(f"  + {_where(f)}  {f.code}  {f.severity}  {f.text}"))
        for f in change["disappeared"]:
            lines.append(safe_line(f"  - {_where(f)}  {f.code}  {f.severity}  {f.text}"))
        for o in change["outcomes"]:
            what = f"pod {o['pod']}" if "pod" in o else f"claim {o['claim']}"
            lines.append(safe_line(f"  ~ {what}: {_outcome(o['from'])} -> {_outcome(o['to'])}"))
    return "\n".join(lines) + "\n"


def upgrade_document(result) -> dict:
    return {
        "command": result.base_command,
        "kubernetesVersions": [r.version for r in result.runs],
        "runs": [_run(r) for r in result.runs],
        "changes": [{"from": c["from"], "to": c["to"],
                     "appeared": [f.to_json() for f in c["appeared"]],
                     "disappeared": [f.to_json() for f in c["disappeared"]],
                     "outcomes": c["outcomes"]} for c in result.changes],
    }


def _run(run) -> dict:
    r = run.result
    out = {"kubernetesVersion": run.version, "preview": run.preview, "errors": r.errors(),
           "warnings": r.warnings()}
    if r.plan is not None:
        from dractl.report.plan_json import summary

        out["summary"] = summary(r.plan, r.findings)
    return out


def report_json(result, view) -> str:
    from dractl.report.findings_json import dumps

    return dumps(upgrade_document(result))


def report_yaml(result, view) -> str:
    """The upgrade check's `-o json` document as YAML."""
    import yaml

    return yaml.safe_dump(upgrade_document(result), sort_keys=False, allow_unicode=False, width=1000)
