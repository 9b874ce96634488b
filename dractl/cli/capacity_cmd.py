"""`dractl capacity`: what is left per pool and node after the given workload, how many more
replicas of a pod fit, and what-if with more nodes."""

from __future__ import annotations

from typing import List, Optional

import typer

from dractl.cli import common, outputs

CapacityFormat, OUTPUT_OPTION = common.output_option("capacity")


def capacity(
    paths: List[str] = typer.Argument(None, metavar="PATH",
                                      help="Manifests placed first (files, directories or - for stdin)."),
    inventory: Optional[List[str]] = typer.Option(
        None, "--inventory", "-i", metavar="PATH|builtin:NAME", autocompletion=common.complete_inventory,
        help="Cluster state (repeatable): files or a built-in sample inventory."),
    output: CapacityFormat = OUTPUT_OPTION,
    driver: Optional[str] = typer.Option(None, "--driver", help="Only pools of this driver."),
    pool: Optional[str] = typer.Option(None, "--pool", help="Only the pool of this name."),
    node: Optional[str] = typer.Option(None, "--node", help="Only the pools of this node."),
    fit: Optional[str] = typer.Option(None, "--fit", metavar="POD|TEMPLATE|FILE",
                                      help="How many more replicas of this pod (a Pod or a controller's "
                                           "pod template, by name or as a file) fit beyond its own, placed one "
                                           "after another exactly as the dry run would."),
    max_replicas: int = typer.Option(10_000, "--max", metavar="N", help="Stop --fit after N replicas."),
    add_nodes: int = typer.Option(0, "--add-nodes", metavar="N",
                                  help="What-if: N more nodes copied from --like (its node-local slices too), "
                                       "as cluster-autoscaler builds node templates."),
    like: Optional[str] = typer.Option(None, "--like", metavar="NODE", help="The node --add-nodes and --need copy."),
    need: Optional[int] = typer.Option(None, "--need", metavar="M",
                                       help="How many nodes like --like are needed for M replicas of --fit."),
    what_if: Optional[str] = typer.Option(
        None, "--what-if", "--add-taint-rule", metavar="RULE.yaml",
        help="dractl's what-if: the devices the DeviceTaintRules of this file select, the claims and pods on "
             "them, the pods NoExecute would evict and the pending pods it would block, per node."),
    partition_attribute: Optional[str] = typer.Option(
        None, "--partition-type-attribute", metavar="DOMAIN/NAME",
        help="Group partitions by this attribute where a slice declares no partitionTypeAttribute "
             "(ResourcePoolStatusRequest's defaultPartitionTypeAttribute)."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds the allocator may search per pod and node."),
    golden: Optional[str] = common.GOLDEN_OPTION,
    golden_allow_outside: bool = common.GOLDEN_ALLOW_OUTSIDE_OPTION,
    deadline: float = common.DEADLINE_OPTION,
    update: bool = common.UPDATE_OPTION,
    kube_version: Optional[common.KubeVersion] = common.KUBE_VERSION_OPTION,
    upgrade_releases: Optional[str] = common.UPGRADE_RELEASES_OPTION,
    feature_gates: Optional[str] = common.FEATURE_GATES_OPTION,
    min_compat: Optional[str] = common.MIN_COMPAT_OPTION,
    extension: Optional[List[str]] = common.EXTENSION_OPTION,
    ignore: Optional[List[str]] = common.IGNORE_OPTION,
    config: Optional[str] = common.CONFIG_OPTION,
    no_config: bool = common.NO_CONFIG_OPTION,
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    no_color: bool = common.NO_COLOR_OPTION,
    quiet: bool = common.QUIET_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Availability per pool (KEP-5677's pool status) and per node after placing PATH..., and
    how many more of a pod fit (--fit), also with nodes added (--add-nodes/--like, --need), or
    what a DeviceTaintRule would do (--what-if).

    Exit status: 0 answered, 1 validation errors or --need cannot be met, 2 usage error.
    """
    from dractl.capacity.document import Filters
    from dractl.cli.allocate_cmd import dry_run_options
    from dractl.pipeline.capacity import CapacityOptions
    from dractl.pipeline.capacity import capacity as run_capacity

    common.no_upgrade_check(upgrade_releases, "capacity")
    if update and not golden:
        raise common.UsageError("--update needs --golden FILE")
    for name, value in (("--max", max_replicas), ("--add-nodes", add_nodes), ("--need", need)):
        if value is not None and value < 0:
            raise common.UsageError(f"{name} must not be negative")
    s = common.settings(config_path=config, no_config=no_config, kube_version=kube_version,
                        feature_gates=feature_gates, ignore=ignore, inventory=inventory,
                        max_file_size=max_file_size,
                        extensions=extension, min_compat=min_compat)
    if not paths and not s.inventory:
        raise common.UsageError("give --inventory and/or manifests (PATH...)")
    dry = dry_run_options(s, node=None, node_order=None, timeout=timeout)
    cap = CapacityOptions(filters=Filters(driver, pool, node), fit=fit, max_replicas=max_replicas,
                          add_nodes=add_nodes, like=like, need=need, partition_attribute=partition_attribute,
                          what_if=what_if)
    with common.deadline_scope(deadline):
        result = run_capacity(paths or [], s.check_options(progress=not quiet), dry, cap)
        outputs.emit(result, output.value, quiet=quiet, golden=golden, update=update, no_color=no_color,
                     golden_allow_outside=golden_allow_outside)
