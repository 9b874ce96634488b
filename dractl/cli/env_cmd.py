"""`dractl env`: the values containers would see from resourceSliceAttributeRef env vars."""

from __future__ import annotations

from typing import List, Optional

import typer

from dractl.cli import common, outputs
from dractl.cli.allocate_cmd import NodeOrder, dry_run_options

EnvFormat, OUTPUT_OPTION = common.output_option("env")


def env(
    paths: List[str] = typer.Argument(None, metavar="PATH",
                                      help="Manifests: files, directories (recursive) or - for stdin."),
    inventory: Optional[List[str]] = typer.Option(None, "--inventory", "-i", metavar="PATH|builtin:NAME",
                                                  autocompletion=common.complete_inventory,
                                                  help="Cluster state (repeatable)."),
    output: EnvFormat = OUTPUT_OPTION,
    lenient: bool = typer.Option(False, "--lenient",
                                 help="Skip devices that lack the attribute instead of failing "
                                      "(the first revision of the design; the default follows the "
                                      "kubelet-faithful later revision)."),
    metadata: bool = typer.Option(False, "--metadata",
                                  help="Instead of env vars, print the KEP-5304 device metadata "
                                       "files each container would see (path and predicted JSON "
                                       "content; the real content comes from the driver). "
                                       "Kubernetes 1.36 and later."),
    metadata_versions: Optional[str] = typer.Option(
        None, "--metadata-versions", metavar="VERSIONS",
        help="With --metadata: the metadata API versions the driver writes, in its order "
             "(comma-separated, e.g. v1beta1,v1alpha1). Default: what the release's drivers "
             "write (1.37: v1beta1,v1alpha1; 1.36: v1alpha1). 1.37 requires v1beta1."),
    node: Optional[str] = typer.Option(None, "--node", metavar="NODE", help="Place everything on this node only."),
    timeout: float = typer.Option(10.0, "--timeout", metavar="SECONDS", help="Seconds the allocator may search per pod "
                                  "and node (kube-scheduler's filterTimeout)."),
    kube_version: Optional[common.KubeVersion] = common.KUBE_VERSION_OPTION,
    upgrade_releases: Optional[str] = common.UPGRADE_RELEASES_OPTION,
    feature_gates: Optional[str] = common.FEATURE_GATES_OPTION,
    min_compat: Optional[str] = common.MIN_COMPAT_OPTION,
    ignore: Optional[List[str]] = common.IGNORE_OPTION,
    select: Optional[List[str]] = common.SELECT_OPTION,
    skip_kinds: Optional[List[str]] = common.SKIP_KINDS_OPTION,
    reject_kinds: Optional[List[str]] = common.REJECT_KINDS_OPTION,
    exit_zero: bool = common.EXIT_ZERO_OPTION,
    force_exclude: bool = common.FORCE_EXCLUDE_OPTION,
    golden: Optional[str] = common.GOLDEN_OPTION,
    golden_allow_outside: bool = common.GOLDEN_ALLOW_OUTSIDE_OPTION,
    update: bool = common.UPDATE_OPTION,
    quiet: bool = common.QUIET_OPTION,
    exclude: Optional[List[str]] = common.EXCLUDE_OPTION,
    jobs: Optional[int] = common.JOBS_OPTION,
    config: Optional[str] = common.CONFIG_OPTION,
    no_config: bool = common.NO_CONFIG_OPTION,
    config_allow_outside: bool = common.CONFIG_ALLOW_OUTSIDE_OPTION,
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    no_color: bool = common.NO_COLOR_OPTION,
    color: common.ColorMode = common.COLOR_OPTION,
    deadline: float = common.DEADLINE_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Resolve device attributes into container env after a dry run (dractl's extension
    `env[].valueFrom.resourceSliceAttributeRef`; not a Kubernetes feature).

    Exit status: 0 no error findings and every reference resolved, 1 error findings (as
    validate and allocate), a reference fails (the container would not start) or a pod with
    references is not scheduled, 2 usage error. --metadata (a prediction) exits 0.
    """
    from dractl.pipeline import ENV, METADATA, dry_run

    common.no_upgrade_check(upgrade_releases, "env")
    if update and not golden:
        raise common.UsageError("--update needs --golden FILE")
    s = common.settings(config_path=config, no_config=no_config,
                        config_allow_outside=config_allow_outside, kube_version=kube_version,
                        feature_gates=feature_gates, ignore=ignore, inventory=inventory,
                        exclude=exclude, force_exclude=force_exclude, max_file_size=max_file_size,
                        jobs=jobs, select=select, skip_kinds=skip_kinds,
                        reject_kinds=reject_kinds, min_compat=min_compat)
    if not paths and not s.inventory:
        raise common.UsageError("give manifests (PATH...) and/or --inventory")
    versions = _metadata_versions(metadata, metadata_versions, s.gates.version)
    dry = dry_run_options(s, node=node, node_order=NodeOrder.first, timeout=timeout,
                          lenient_env=lenient)
    with common.deadline_scope(deadline):
        result = dry_run(paths or [], s.check_options(progress=not quiet), dry,
                         command=METADATA if metadata else ENV)
        result.metadata_versions = versions
        outputs.emit(result, output.value, quiet=quiet, golden=golden, update=update,
                     no_color=no_color, color=color, exit_zero=exit_zero,
                     golden_allow_outside=golden_allow_outside)


def _metadata_versions(metadata: bool, text: str | None, release: str):
    """The metadata file's versions for --metadata (None without it); the helper's start-up
    errors, and a release without metadata files, are usage errors."""
    from dractl.metadata import MetadataVersionError, parse_versions

    if not metadata:
        if text is not None:
            raise common.UsageError("--metadata-versions needs --metadata")
        return None
    try:
        return parse_versions(text, release)
    except MetadataVersionError as exc:
        option = "--metadata-versions" if text is not None else "--metadata"
        raise common.UsageError(f"{option}: {exc}") from None
