"""`dractl allocate`: validate, then dry-run scheduling and allocation."""

from __future__ import annotations

import sys
from enum import Enum
from typing import List, Optional

import typer

from dractl.cli import common, outputs


class AllocateFormat(str, Enum):
    text = "text"
    json = "json"
    yaml = "yaml"
    junit = "junit"
    sarif = "sarif"
    github = "github"


class NodeOrder(str, Enum):
    first = "first"
    least_allocated = "least-allocated"
    most_allocated = "most-allocated"


def resolve_inventory(values: list[str], aliases: dict[str, str] | None = None) -> list[str]:
    """Inventory paths; built-in inventories are shown as builtin:NAME (filled into aliases)."""
    paths = []
    for value in values:
        if value.startswith("builtin:"):
            from dractl.inventories import inventory_path, list_inventories

            name = value[len("builtin:"):]
            try:
                path = str(inventory_path(name))
            except (KeyError, OSError, ValueError):
                names = ", ".join(n for n, _ in list_inventories())
                raise common.UsageError(f"--inventory: no built-in inventory {name!r} "
                                        f"(available: {names})") from None
            paths.append(path)
            if aliases is not None:
                aliases[path] = value
        else:
            paths.append(value)
    return paths


def run_dry_run(paths, s: common.Settings, node, node_order, timeout, simulate_controllers,
                lenient_env=False, progress=False):
    """Load + validate (in parallel when it pays) the inventory and the manifests, then simulate."""
    from dractl.cli.parallel import validate_paths

    from dractl.simulate.scheduler import Options, simulate

    aliases: dict[str, str] = {}
    inventory = resolve_inventory(s.inventory, aliases)
    run = validate_paths(inventory + list(paths), limits=s.limits, gates=s.gates, ignore=s.ignore,
                         jobs=s.jobs, exclude=s.exclude, extra_ignore=s.extra_ignore,
                         explicit_excluded=s.force_exclude, progress=progress, aliases=aliases)
    validated = run.validated
    options = Options(only_node=node, node_order=node_order.value if node_order else "first",
                      timeout=timeout, simulate_controllers=simulate_controllers,
                      lenient_env=lenient_env)
    plan = simulate(validated.documents, s.gates, options, validated.invalid)
    if node and node not in plan.nodes:
        raise common.UsageError(f"--node {node}: no such node in the inputs (nodes: "
                                f"{', '.join(plan.nodes[:10]) or 'none'}{', ...' if len(plan.nodes) > 10 else ''})")
    return run, validated, plan


def allocate(
    paths: List[str] = typer.Argument(None, metavar="PATH",
                                      help="Manifests: files, directories (recursive) or - for stdin."),
    inventory: Optional[List[str]] = typer.Option(
        None, "--inventory", "-i", metavar="PATH|builtin:NAME", autocompletion=common.complete_inventory,
        help="Cluster state to schedule against (repeatable): files or a built-in sample "
             "inventory (see `dractl inventories`). Replaces inventory in .dractl.yaml."),
    output: AllocateFormat = typer.Option(AllocateFormat.text, "--output", "-o",
                                          help="Output format: text, json, yaml (the objects after "
                                               "scheduling), junit, sarif or github."),
    node: Optional[str] = typer.Option(None, "--node", help="Place everything on this node only."),
    node_order: NodeOrder = typer.Option(NodeOrder.first, "--node-order",
                                         help="Which feasible node wins: the first in inventory "
                                              "order, or the one with the fewest / most allocated devices."),
    explain: Optional[str] = typer.Option(None, "--explain", metavar="POD|CLAIM",
                                          help="Per-node, per-request, per-device reasoning for "
                                               "this pod, or for the pods using this claim (name, "
                                               "namespace/name, or * for all)."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds the allocator may search per pod "
                                  "and node (kube-scheduler's filterTimeout)."),
    no_controller_simulation: bool = typer.Option(
        False, "--no-controller-simulation",
        help="Do not create claims from templates (report 'ResourceClaim not created yet')."),
    golden: Optional[str] = common.GOLDEN_OPTION,
    update: bool = common.UPDATE_OPTION,
    kube_version: Optional[common.KubeVersion] = common.KUBE_VERSION_OPTION,
    feature_gates: Optional[str] = common.FEATURE_GATES_OPTION,
    ignore: Optional[List[str]] = common.IGNORE_OPTION,
    exclude: Optional[List[str]] = common.EXCLUDE_OPTION,
    force_exclude: bool = common.FORCE_EXCLUDE_OPTION,
    jobs: Optional[int] = common.JOBS_OPTION,
    config: Optional[str] = common.CONFIG_OPTION,
    no_config: bool = common.NO_CONFIG_OPTION,
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    no_color: bool = common.NO_COLOR_OPTION,
    quiet: bool = common.QUIET_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Dry-run kube-scheduler's DRA allocation: which node and which devices each pod gets.

    Pods (and pods of Deployments, Jobs, ...) are placed in input order on the first feasible
    node; claims from templates are created like the resourceclaim controller would. Exit
    status: 0 everything scheduled/allocated, 1 something unschedulable, unsatisfiable or
    invalid (with --golden: the output differs from FILE), 2 usage error or unreadable input.
    """
    from dractl.report import plan_text
    from dractl.findings import Finding

    if update and not golden:
        raise common.UsageError("--update needs --golden FILE")
    if timeout <= 0:
        raise common.UsageError("--timeout must be positive")
    s = common.settings(config_path=config, no_config=no_config, kube_version=kube_version,
                        feature_gates=feature_gates, ignore=ignore, inventory=inventory,
                        exclude=exclude, force_exclude=force_exclude, max_file_size=max_file_size,
                        jobs=jobs)
    if not paths and not s.inventory:
        raise common.UsageError("give manifests (PATH...) and/or --inventory")
    run, validated, plan = run_dry_run(paths or [], s, node, node_order, timeout,
                                       not no_controller_simulation, progress=not quiet)
    findings = validated.findings
    usage_failed = bool(run.usage_errors or run.io_errors)

    def render_text(console) -> None:
        plan_text.print_plan(console, plan, findings, explain=explain, quiet=quiet)

    text: str | None
    if output is AllocateFormat.json:
        from dractl.report import findings_json, plan_json

        text = findings_json.dumps(plan_json.plan_document(plan, findings))
    elif output is AllocateFormat.yaml:
        from dractl.report import plan_yaml

        text = plan_yaml.render(plan)
    elif output.value in outputs.CI_FORMATS:
        everything = sorted(findings + outputs.plan_findings(plan), key=Finding.sort_key)
        text = outputs.ci_output(output.value, everything, run.docs, suite="dractl allocate",
                                 successful=not usage_failed)
    elif golden or not common.is_terminal(sys.stdout):
        text = outputs.stable_text(render_text, plain=True)  # Styled lines and trees only
    else:
        text = None

    outputs.finish(text, render_text, golden=golden, update=update, no_color=no_color,
                   usage_errors=run.usage_errors, usage_failed=usage_failed,
                   failed=not plan.ok() or validated.errors() > 0)
