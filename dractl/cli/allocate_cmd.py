"""`dractl allocate`: validate, then dry-run scheduling and allocation."""

from __future__ import annotations

from enum import Enum
from typing import List, Optional

import typer

from dractl.cli import common, helpgroups, outputs

AllocateFormat, OUTPUT_OPTION = common.output_option("allocate")


class NodeOrder(str, Enum):
    first = "first"
    least_allocated = "least-allocated"
    most_allocated = "most-allocated"


def dry_run_options(s: common.Settings, *, node: str | None, node_order: NodeOrder | None,
                    timeout: float, simulate_controllers: bool = True, lenient_env: bool = False):
    from dractl.pipeline import DryRunOptions

    if timeout <= 0:
        raise common.UsageError("--timeout must be positive")
    return DryRunOptions(inventory=tuple(s.inventory), node=node,
                         node_order=node_order.value if node_order else "first", timeout=timeout,
                         simulate_controllers=simulate_controllers, lenient_env=lenient_env)


def allocate(
    paths: List[str] = typer.Argument(None, metavar="PATH", rich_help_panel=helpgroups.INPUT,
                                      help="Manifests: files, directories (recursive) or - for stdin."),
    inventory: Optional[List[str]] = typer.Option(
        None, "--inventory", "-i", metavar="PATH|builtin:NAME", autocompletion=common.complete_inventory,
        rich_help_panel=helpgroups.INPUT,
        help="Cluster state to schedule against (repeatable): files or a built-in sample "
             "inventory (see `dractl inventories`). Replaces inventory in .dractl.yaml."),
    output: AllocateFormat = OUTPUT_OPTION,
    strict: Optional[bool] = typer.Option(None, "--strict/--no-strict",
                                          rich_help_panel=helpgroups.SELECTION,
                                          help="Count warnings as errors, so they fail the run "
                                               "(default: strict in .dractl.yaml, else no)."),
    node: Optional[str] = typer.Option(None, "--node", metavar="NODE", rich_help_panel=helpgroups.DRY_RUN,
                                       help="Place everything on this node only."),
    node_order: NodeOrder = typer.Option(NodeOrder.first, "--node-order", rich_help_panel=helpgroups.DRY_RUN,
                                         help="Which feasible node wins: the first in inventory "
                                              "order, or the one with the fewest / most allocated devices."),
    explain: Optional[str] = typer.Option(None, "--explain", metavar="POD|CLAIM",
                                          rich_help_panel=helpgroups.OUTPUT,
                                          help="Per-node, per-request, per-device reasoning for "
                                               "this pod, or for the pods using this claim (name, "
                                               "namespace/name, or * for all)."),
    timeout: float = typer.Option(10.0, "--timeout", metavar="SECONDS", rich_help_panel=helpgroups.DRY_RUN,
                                  help="Seconds the allocator may search per pod "
                                  "and node (kube-scheduler's filterTimeout)."),
    no_controller_simulation: bool = typer.Option(
        False, "--no-controller-simulation", rich_help_panel=helpgroups.DRY_RUN,
        help="Do not create claims from templates (report 'ResourceClaim not created yet')."),
    strict_inventory: bool = common.STRICT_INVENTORY_OPTION,
    golden: Optional[str] = common.GOLDEN_OPTION,
    update: bool = common.UPDATE_OPTION,
    golden_allow_outside: bool = common.GOLDEN_ALLOW_OUTSIDE_OPTION,
    deadline: float = common.DEADLINE_OPTION,
    kube_version: Optional[common.KubeVersion] = common.KUBE_VERSION_OPTION,
    upgrade_releases: Optional[str] = common.UPGRADE_RELEASES_OPTION,
    feature_gates: Optional[str] = common.FEATURE_GATES_OPTION,
    min_compat: Optional[str] = common.MIN_COMPAT_OPTION,
    extension: Optional[List[str]] = common.EXTENSION_OPTION,
    ignore: Optional[List[str]] = common.IGNORE_OPTION,
    select: Optional[List[str]] = common.SELECT_OPTION,
    skip_kinds: Optional[List[str]] = common.SKIP_KINDS_OPTION,
    reject_kinds: Optional[List[str]] = common.REJECT_KINDS_OPTION,
    exit_zero: bool = common.EXIT_ZERO_OPTION,
    statistics: bool = common.STATISTICS_OPTION,
    exclude: Optional[List[str]] = common.EXCLUDE_OPTION,
    force_exclude: bool = common.FORCE_EXCLUDE_OPTION,
    no_default_exclude: bool = common.NO_DEFAULT_EXCLUDE_OPTION,
    list_files: bool = common.LIST_FILES_OPTION,
    jobs: Optional[int] = common.JOBS_OPTION,
    config: Optional[str] = common.CONFIG_OPTION,
    no_config: bool = common.NO_CONFIG_OPTION,
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    no_color: bool = common.NO_COLOR_OPTION,
    color: common.ColorMode = common.COLOR_OPTION,
    quiet: bool = common.QUIET_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Dry-run kube-scheduler's DRA allocation: which node and which devices each pod gets.

    Pods (and pods of Deployments, Jobs, ...) are placed in input order on the first feasible
    node; claims from templates are created like the resourceclaim controller would. Exit
    status: 0 everything scheduled/allocated, 1 something unschedulable, unsatisfiable or
    invalid (with --golden: the output differs from FILE), 2 usage error or unreadable input.
    """
    _allocate(**locals())


def _allocate(*, paths, inventory, output, strict, node, node_order, explain, timeout,
              no_controller_simulation, strict_inventory, golden, update, golden_allow_outside,
              deadline, kube_version, upgrade_releases, feature_gates, min_compat, extension,
              ignore, select, skip_kinds, reject_kinds, exit_zero, statistics, exclude,
              force_exclude, no_default_exclude, list_files, jobs, config, no_config,
              max_file_size, no_color, color, quiet, debug) -> None:
    if update and not golden:
        raise common.UsageError("--update needs --golden FILE")
    outputs.check_format(output.value, statistics, "allocate")

    def settings(version):
        return common.settings(config_path=config, no_config=no_config, kube_version=version,
                               feature_gates=feature_gates, ignore=ignore, inventory=inventory,
                               exclude=exclude, force_exclude=force_exclude, max_file_size=max_file_size,
                               jobs=jobs, select=select, strict=strict, skip_kinds=skip_kinds,
                               reject_kinds=reject_kinds, extensions=extension, min_compat=min_compat,
                               default_exclude=not no_default_exclude)

    s = settings(kube_version)
    if list_files:
        outputs.list_files(list(s.inventory) + list(paths or ()), s)
    if not paths and not s.inventory:
        raise common.UsageError("give manifests (PATH...) and/or --inventory")
    dry = dry_run_options(s, node=node, node_order=node_order, timeout=timeout,
                          simulate_controllers=not no_controller_simulation)
    with common.deadline_scope(deadline):
        result = _run(paths or [], settings, dry, kube_version, upgrade_releases,
                      progress=not quiet, strict_inventory=strict_inventory, explain=explain)
        outputs.emit(result, output.value, quiet=quiet, explain=explain, golden=golden,
                     update=update, no_color=no_color, color=color, exit_zero=exit_zero,
                     statistics=statistics, golden_allow_outside=golden_allow_outside)


def _run(paths, settings, dry, kube_version, upgrade_releases, *, progress: bool,
         strict_inventory: bool, explain: str | None):
    """One dry run, or one per release of an upgrade check."""
    from dractl.pipeline import ALLOCATE, dry_run

    def run_one(version):
        options = settings(version).check_options(progress=progress, apply_strict=True,
                                                  strict_inventory=strict_inventory)
        return dry_run(paths, options, dry, command=ALLOCATE)

    if upgrade_releases:
        from dractl.cli.upgrade import run_releases

        return run_releases(upgrade_releases, settings, run_one, "allocate")
    result = run_one(kube_version)
    check_explain(explain, result.plan)
    return result


def check_explain(explain: str | None, plan) -> None:
    """--explain names a pod or claim of the dry run (or `*`); anything else is a usage error
    with the closest name, not a run that silently explains nothing."""
    if explain is None or explain == "*":
        return
    names: set[str] = set()
    for p in plan.pods:
        names.update((p.name, f"{p.namespace}/{p.name}"))
        for ref in p.claims:
            if ref.claim is not None:
                names.update((ref.claim.name, ref.claim.ref))
    for c in plan.claims:
        names.update((c.name, f"{c.namespace}/{c.name}"))
    if explain in names:
        return
    from dractl.suggest import closest_match

    guess = closest_match(explain, sorted(names))
    hint = f"; did you mean {guess}?" if guess else ""
    raise common.UsageError(f"--explain {explain}: no pod or claim of that name in the dry run{hint}")
