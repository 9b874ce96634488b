"""`dractl env`: the values containers would see from resourceSliceAttributeRef env vars."""

from __future__ import annotations

import sys
from enum import Enum
from typing import List, Optional

import typer

from dractl.cli import common, outputs
from dractl.cli.allocate_cmd import NodeOrder, run_dry_run
from dractl.report.sanitize import safe_line


class EnvFormat(str, Enum):
    text = "text"
    json = "json"


def env(
    paths: List[str] = typer.Argument(None, metavar="PATH",
                                      help="Manifests: files, directories (recursive) or - for stdin."),
    inventory: Optional[List[str]] = typer.Option(None, "--inventory", "-i", metavar="PATH|builtin:NAME",
                                                  autocompletion=common.complete_inventory,
                                                  help="Cluster state (repeatable)."),
    output: EnvFormat = typer.Option(EnvFormat.text, "--output", "-o", help=common.OUTPUT_HELP),
    lenient: bool = typer.Option(False, "--lenient",
                                 help="Skip devices that lack the attribute instead of failing "
                                      "(the first revision of the design; the default follows the "
                                      "kubelet-faithful later revision)."),
    metadata: bool = typer.Option(False, "--metadata",
                                  help="Instead of env vars, print the KEP-5304 device metadata "
                                       "files each container would see (path and predicted JSON "
                                       "content; the real content comes from the driver)."),
    node: Optional[str] = typer.Option(None, "--node", help="Place everything on this node only."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds the allocator may search per pod "
                                  "and node (kube-scheduler's filterTimeout)."),
    kube_version: Optional[common.KubeVersion] = common.KUBE_VERSION_OPTION,
    feature_gates: Optional[str] = common.FEATURE_GATES_OPTION,
    ignore: Optional[List[str]] = common.IGNORE_OPTION,
    exclude: Optional[List[str]] = common.EXCLUDE_OPTION,
    jobs: Optional[int] = common.JOBS_OPTION,
    config: Optional[str] = common.CONFIG_OPTION,
    no_config: bool = common.NO_CONFIG_OPTION,
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    no_color: bool = common.NO_COLOR_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Resolve device attributes into container env after a dry run (dractl's extension
    `env[].valueFrom.resourceSliceAttributeRef`; not a Kubernetes feature).

    Exit status: 0 every reference resolved, 1 a reference fails (the container would not
    start) or a pod with references is not scheduled, 2 usage error.
    """
    from dractl.downward import env_refs
    from dractl.report import findings_json

    s = common.settings(config_path=config, no_config=no_config, kube_version=kube_version,
                        feature_gates=feature_gates, ignore=ignore, inventory=inventory,
                        exclude=exclude, max_file_size=max_file_size, jobs=jobs)
    if not paths and not s.inventory:
        raise common.UsageError("give manifests (PATH...) and/or --inventory")
    if timeout <= 0:
        raise common.UsageError("--timeout must be positive")
    loaded, validated, plan = run_dry_run(paths or [], s, node, NodeOrder.first, timeout, True, lenient)
    if metadata:
        _metadata_view(plan, validated, output)
        for message in loaded.usage_errors:
            typer.echo(f"dractl: {message}", err=True)
        raise typer.Exit(2 if loaded.usage_errors or loaded.io_errors else 0)
    pods = []
    failed = False
    for p in plan.pods:
        refs = env_refs(p.pod.spec)
        if not refs:
            continue
        containers = []
        for name in dict.fromkeys(r.container for r in refs):
            errors = p.env_errors.get(name, [])
            failed = failed or bool(errors)
            containers.append({
                "name": name,
                "env": p.env.get(name, {}),
                "sources": {k: list(v) for k, v in p.env_sources.get(name, {}).items()},
                "errors": [e.to_json() for e in errors],
            })
        pods.append({"namespace": p.namespace, "name": p.name, "node": p.node or None,
                     "status": p.status, "containers": containers})
    if output is EnvFormat.json:
        sys.stdout.write(findings_json.dumps({"pods": pods,
                                              "findings": [f.to_json() for f in validated.findings]}))
    else:
        if common.is_terminal(sys.stdout):
            _print_text(common.make_console(no_color), validated, pods)
        else:
            sys.stdout.write(outputs.stable_text(lambda console: _print_text(console, validated, pods)))
    for message in loaded.usage_errors:
        typer.echo(f"dractl: {message}", err=True)
    if loaded.usage_errors or loaded.io_errors:
        raise typer.Exit(2)
    raise typer.Exit(1 if failed else 0)


def _metadata_view(plan, validated, output) -> None:
    """KEP-5304 device metadata files per container (what upstream chose instead of env vars)."""
    import json

    from dractl.metadata import plan_files
    from dractl.report import findings_json

    pods = plan_files(plan)
    if output is EnvFormat.json:
        doc = {"pods": [{"namespace": p["namespace"], "name": p["name"], "node": p["node"],
                         "containers": [{"name": c, "files": [
                             {"path": f["path"], "claim": f["claim"], "request": f["request"],
                              "driver": f["driver"], "content": json.loads(f["content"])}
                             for f in files]} for c, files in p["containers"].items()]}
                        for p in pods],
               "note": "prediction: the actual content is produced by the DRA driver"}
        sys.stdout.write(findings_json.dumps(doc))
        return

    def render(console) -> None:
        from rich.text import Text

        console.print("device metadata files (KEP-5304; predicted content: the actual content is "
                      "produced by the DRA driver)")
        if not pods:
            console.print("no scheduled pod receives devices")
        for p in pods:
            console.print(Text(safe_line(f"pod {p['namespace']}/{p['name']} on {p['node']}"), style="bold"))
            for container, files in p["containers"].items():
                for f in files:
                    console.print(Text(safe_line(f"  {container}: {f['path']}"), style="cyan"))
                    console.print(Text(safe_line("    " + f["content"].rstrip("\n")), style="dim"))

    if common.is_terminal(sys.stdout):
        render(common.make_console(False))
    else:
        sys.stdout.write(outputs.stable_text(render))


def _print_text(console, validated, pods) -> None:
    from rich.text import Text

    from dractl.report.findings_text import print_findings

    shown = [f for f in validated.findings if f.severity != "info"]  # info: machine formats only
    if shown:
        print_findings(console, shown)
        console.print()
    if not pods:
        console.print("no env var uses resourceSliceAttributeRef")
    for pod in pods:
        head = Text(safe_line(f"pod {pod['namespace']}/{pod['name']}"), style="bold")
        head.append(safe_line(f"  {pod['status']}" + (f" on {pod['node']}" if pod["node"] else "")))
        console.print(head)
        for c in pod["containers"]:
            for key, value in c["env"].items():
                line = Text(safe_line(f"  {c['name']}: {key}={value}"), style="cyan")
                line.append(safe_line(f"   from {', '.join(c['sources'].get(key, []))}"), style="dim")
                console.print(line)
            for e in c["errors"]:
                console.print(Text(safe_line(f"  {c['name']}: {e['code']} {e['message']}"), style="red"))
