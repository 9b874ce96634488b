"""`dractl allocate`: validate, then dry-run scheduling and allocation."""

from __future__ import annotations

import difflib
import os
import sys
import tempfile
from enum import Enum
from typing import List, Optional

import typer

from dractl.cli import common
from dractl.load.limits import Limits
from dractl.load.loader import load_paths
from dractl.report import findings_json, plan_json, plan_text, plan_yaml
from dractl.validate.pipeline import validate_documents


class AllocateFormat(str, Enum):
    text = "text"
    json = "json"
    yaml = "yaml"


class NodeOrder(str, Enum):
    first = "first"
    least_allocated = "least-allocated"
    most_allocated = "most-allocated"


def resolve_inventory(values: list[str]) -> list[str]:
    paths = []
    for value in values:
        if value.startswith("builtin:"):
            from dractl.inventories import inventory_path, list_inventories

            name = value[len("builtin:"):]
            try:
                paths.append(str(inventory_path(name)))
            except KeyError:
                names = ", ".join(n for n, _ in list_inventories())
                raise common.UsageError(f"--inventory: no built-in inventory {name!r} "
                                        f"(available: {names})") from None
        else:
            paths.append(value)
    return paths


def run_dry_run(paths, inventory, kube_version, feature_gates, ignore, max_file_size, node,
                node_order, timeout, simulate_controllers, lenient_env=False):
    from dractl.simulate.scheduler import Options, simulate

    gates = common.make_gates(kube_version, feature_gates)
    limits = Limits(max_file_bytes=common.parse_size(max_file_size))
    loaded = load_paths(resolve_inventory(inventory or []) + list(paths), limits)
    validated = validate_documents(loaded, gates, ignore=ignore or ())
    options = Options(only_node=node, node_order=node_order.value if node_order else "first",
                      timeout=timeout, simulate_controllers=simulate_controllers,
                      lenient_env=lenient_env)
    plan = simulate(validated.documents, gates, options, validated.invalid)
    if node and node not in plan.nodes:
        raise common.UsageError(f"--node {node}: no such node in the inputs (nodes: "
                                f"{', '.join(plan.nodes[:10]) or 'none'}{', ...' if len(plan.nodes) > 10 else ''})")
    return loaded, validated, plan


def allocate(
    paths: List[str] = typer.Argument(None, metavar="PATH...",
                                      help="Manifests: files, directories (recursive) or - for stdin."),
    inventory: Optional[List[str]] = typer.Option(
        None, "--inventory", "-i", metavar="PATH|builtin:NAME",
        help="Cluster state to schedule against (repeatable): files or a built-in sample "
             "inventory (see `dractl inventories`)."),
    output: AllocateFormat = typer.Option(AllocateFormat.text, "--output", "-o", help=common.OUTPUT_HELP),
    node: Optional[str] = typer.Option(None, "--node", help="Place everything on this node only."),
    node_order: NodeOrder = typer.Option(NodeOrder.first, "--node-order",
                                         help="Which feasible node wins: the first in inventory "
                                              "order, or the one with the fewest / most allocated devices."),
    explain: Optional[str] = typer.Option(None, "--explain", metavar="POD",
                                          help="Per-node, per-request reasoning for this pod "
                                               "(name, namespace/name, or * for all)."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds the allocator may search per pod "
                                  "and node (kube-scheduler's filterTimeout)."),
    no_controller_simulation: bool = typer.Option(
        False, "--no-controller-simulation",
        help="Do not create claims from templates (report 'ResourceClaim not created yet')."),
    golden: Optional[str] = typer.Option(None, "--golden", metavar="FILE",
                                         help="Compare the output with FILE; exit 1 on a difference."),
    update: bool = typer.Option(False, "--update", help="With --golden: write FILE instead."),
    kube_version: Optional[common.KubeVersion] = common.KUBE_VERSION_OPTION,
    feature_gates: Optional[str] = common.FEATURE_GATES_OPTION,
    ignore: Optional[List[str]] = common.IGNORE_OPTION,
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    no_color: bool = common.NO_COLOR_OPTION,
    quiet: bool = common.QUIET_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Dry-run kube-scheduler's DRA allocation: which node and which devices each pod gets.

    Pods (and pods of Deployments, Jobs, ...) are placed in input order on the first feasible
    node; claims from templates are created like the resourceclaim controller would. Exit
    status: 0 everything scheduled/allocated, 1 something unschedulable, unsatisfiable or
    invalid, 2 usage error or unreadable input.
    """
    if not paths and not inventory:
        raise common.UsageError("give manifests (PATH...) and/or --inventory")
    if update and not golden:
        raise common.UsageError("--update needs --golden FILE")
    if timeout <= 0:
        raise common.UsageError("--timeout must be positive")
    loaded, validated, plan = run_dry_run(paths or [], inventory, kube_version, feature_gates, ignore,
                                          max_file_size, node, node_order, timeout,
                                          not no_controller_simulation)
    findings = validated.findings
    if output is AllocateFormat.json:
        text = findings_json.dumps(plan_json.plan_document(plan, findings))
    elif output is AllocateFormat.yaml:
        text = plan_yaml.render(plan)
    else:
        text = None
    if golden:
        if text is None:
            console = common.make_console(True)
            with console.capture() as cap:
                plan_text.print_plan(console, plan, findings, explain=explain, quiet=quiet)
            text = cap.get()
        _golden(golden, text, update)
    elif text is not None:
        sys.stdout.write(text)
    else:
        console = common.make_console(no_color)
        plan_text.print_plan(console, plan, findings, explain=explain, quiet=quiet)
    for message in loaded.usage_errors:
        typer.echo(f"dractl: {message}", err=True)
    if loaded.usage_errors or loaded.io_errors:
        raise typer.Exit(2)
    failed = not plan.ok() or validated.errors() > 0
    raise typer.Exit(1 if failed else 0)


def _golden(path: str, text: str, update: bool) -> None:
    if update:
        directory = os.path.dirname(os.path.abspath(path))
        # Atomic: a crash or Ctrl-C never leaves a half-written golden file.
        fd, tmp = tempfile.mkstemp(prefix=".dractl-golden-", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        typer.echo(f"dractl: wrote {path}", err=True)
        return
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            expected = fh.read()
    except OSError as exc:
        raise common.UsageError(f"--golden {path}: {exc.strerror or exc}") from None
    if expected == text:
        return
    diff = difflib.unified_diff(expected.splitlines(keepends=True), text.splitlines(keepends=True),
                                fromfile=path, tofile="dractl output")
    sys.stdout.write("".join(diff))
    raise typer.Exit(1)
