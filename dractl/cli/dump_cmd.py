"""`dractl dump`: print the kubectl command that captures a cluster's DRA state, or trim its
output (read from a file or stdin) into an inventory file for `-i`. No network access."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from dractl.cli import common


def dump(
    source: Optional[str] = typer.Argument(
        None, metavar="[KUBECTL_OUTPUT]",
        help="The output of the printed kubectl command: a file, or - for stdin. Without it, "
             "print the command."),
    write: Optional[str] = typer.Option(None, "--write", "-w", metavar="FILE",
                                        help="Write the trimmed inventory to FILE (default: stdout)."),
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Capture an inventory for `dractl allocate -i` or a bug report.

    Without an argument, print the kubectl command line that dumps Nodes, DeviceClasses,
    DeviceTaintRules, ResourceSlices, ResourceClaims, Workloads and PodGroups, those of them the
    cluster serves. With its output (a file or - for stdin), write a trimmed inventory: slices,
    classes, taint rules, Workloads and PodGroups without server bookkeeping, allocated claims
    only, nodes with only labels, taints and allocatable. dractl never talks to a cluster.
    Exit status: 0 done, 2 unreadable or unparsable input.
    """
    from dractl.pipeline.dump import kubectl_command

    if source is None:
        typer.echo(kubectl_command())
        typer.echo("# For a POSIX shell (sh, bash, zsh): kinds the cluster does not serve (DeviceTaintRules, "
                   "PodGroups and Workloads on most 1.34-1.37 clusters) are left out of the list, not fatal.")
        typer.echo("# Then: dractl dump cluster.yaml -w inventory.yaml")
        return
    text = _trimmed_text(source, common.parse_size(max_file_size))
    if write:
        try:
            with open(write, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise common.UsageError(f"--write {write}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)


def _trimmed_text(source: str, max_bytes: int) -> str:
    import yaml

    from dractl.load.limits import Limits
    from dractl.load.loader import load_paths
    from dractl.pipeline.dump import trim

    load = load_paths([source], Limits(max_file_bytes=max_bytes))
    problems = [f for f in load.findings if f.severity == "error"]
    if load.usage_errors or problems:
        shown = load.usage_errors[0] if load.usage_errors else \
            f"{problems[0].file}:{problems[0].line}: {problems[0].message}"
        raise common.UsageError(f"cannot read the kubectl output: {shown}")
    trimmed = trim([d.data for d in load.documents])
    kept = ", ".join(f"{n} {k}" for k, n in sorted(trimmed.kept.items())) or "nothing"
    shown = "stdin" if source == "-" else source
    header = [f"# Inventory written by `dractl dump` from {shown}: {kept}."]
    if trimmed.skipped:
        header.append("# Left out: " + ", ".join(f"{n} {why}" for why, n in
                                                sorted(trimmed.skipped.items())) + ".")
    body = "---\n".join(yaml.safe_dump(o, sort_keys=False, default_flow_style=False,
                                       allow_unicode=True) for o in trimmed.objects)
    return "\n".join(header) + "\n" + body
