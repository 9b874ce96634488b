"""`dractl validate`: schema, API-server rules, CEL, references and lints."""

from __future__ import annotations

from typing import List, Optional

import typer

from dractl.cli import common, helpgroups, outputs

ValidateFormat, OUTPUT_OPTION = common.output_option("validate")


def validate(
    paths: List[str] = typer.Argument(..., metavar="PATH", rich_help_panel=helpgroups.INPUT,
                                      help="Files, directories (recursive) or - for stdin."),
    inventory: Optional[List[str]] = typer.Option(
        None, "--inventory", "-i", metavar="PATH|builtin:NAME", rich_help_panel=helpgroups.INPUT,
        autocompletion=common.complete_inventory,
        help="Cluster state to check the manifests against (repeatable): files or a built-in "
             "inventory. Adds dractl's inventory lints (DRA7xxx); without it, no inventory is "
             "read (inventory in .dractl.yaml is for allocate)."),
    strict_inventory: bool = common.STRICT_INVENTORY_OPTION,
    output: ValidateFormat = OUTPUT_OPTION,
    kube_version: Optional[common.KubeVersion] = common.KUBE_VERSION_OPTION,
    upgrade_releases: Optional[str] = common.UPGRADE_RELEASES_OPTION,
    feature_gates: Optional[str] = common.FEATURE_GATES_OPTION,
    min_compat: Optional[str] = common.MIN_COMPAT_OPTION,
    strict: Optional[bool] = typer.Option(None, "--strict/--no-strict",
                                          rich_help_panel=helpgroups.SELECTION,
                                          help="Count warnings as errors (default: strict in "
                                               ".dractl.yaml, else no)."),
    ignore: Optional[List[str]] = common.IGNORE_OPTION,
    select: Optional[List[str]] = common.SELECT_OPTION,
    skip_kinds: Optional[List[str]] = common.SKIP_KINDS_OPTION,
    reject_kinds: Optional[List[str]] = common.REJECT_KINDS_OPTION,
    exit_zero: bool = common.EXIT_ZERO_OPTION,
    statistics: bool = common.STATISTICS_OPTION,
    verbose: bool = common.VERBOSE_OPTION,
    exclude: Optional[List[str]] = common.EXCLUDE_OPTION,
    force_exclude: bool = common.FORCE_EXCLUDE_OPTION,
    no_default_exclude: bool = common.NO_DEFAULT_EXCLUDE_OPTION,
    list_files: bool = common.LIST_FILES_OPTION,
    jobs: Optional[int] = common.JOBS_OPTION,
    config: Optional[str] = common.CONFIG_OPTION,
    no_config: bool = common.NO_CONFIG_OPTION,
    golden: Optional[str] = common.GOLDEN_OPTION,
    update: bool = common.UPDATE_OPTION,
    golden_allow_outside: bool = common.GOLDEN_ALLOW_OUTSIDE_OPTION,
    deadline: float = common.DEADLINE_OPTION,
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    no_color: bool = common.NO_COLOR_OPTION,
    color: common.ColorMode = common.COLOR_OPTION,
    quiet: bool = common.QUIET_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Validate manifests like the API server would, plus references and dractl's lints.

    Exit status: 0 no errors, 1 errors found (warnings too with --strict) or, with --golden, the
    output differs from FILE; 2 usage error or unreadable input.
    """
    _validate(**locals())


def _validate(*, paths, inventory, strict_inventory, output, kube_version, upgrade_releases,
              feature_gates, min_compat, strict, ignore, select, skip_kinds, reject_kinds,
              exit_zero, statistics, verbose, exclude, force_exclude, no_default_exclude,
              list_files, jobs, config, no_config, golden, update, golden_allow_outside, deadline,
              max_file_size, no_color, color, quiet, debug) -> None:
    from dractl.pipeline import check_with_inventory

    if update and not golden:
        raise common.UsageError("--update needs --golden FILE")
    outputs.check_format(output.value, statistics, "validate")

    def settings(version):
        return common.settings(config_path=config, no_config=no_config, kube_version=version,
                               feature_gates=feature_gates, min_compat=min_compat, ignore=ignore, strict=strict,
                               exclude=exclude,
                               force_exclude=force_exclude, max_file_size=max_file_size, jobs=jobs,
                               select=select, skip_kinds=skip_kinds, reject_kinds=reject_kinds,
                               default_exclude=not no_default_exclude)

    if list_files:
        outputs.list_files(list(inventory or ()) + list(paths), settings(kube_version))

    def run_one(version):
        options = settings(version).check_options(progress=not quiet, apply_strict=True,
                                                  strict_inventory=strict_inventory)
        return check_with_inventory(paths, options, list(inventory or ()))

    with common.deadline_scope(deadline):
        if upgrade_releases:
            from dractl.cli.upgrade import run_releases

            result = run_releases(upgrade_releases, settings, run_one, "validate")
        else:
            result = run_one(kube_version)
        outputs.emit(result, output.value, quiet=quiet, golden=golden, update=update,
                     no_color=no_color, color=color, exit_zero=exit_zero, statistics=statistics,
                     golden_allow_outside=golden_allow_outside, verbose=verbose)
