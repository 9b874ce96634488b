"""`dractl gates`: the feature gates of one Kubernetes release (stage, default, lock)."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from dractl.cli import common

GatesFormat, OUTPUT_OPTION = common.output_option("gates")


class _GatesResult:
    command = "gates"

    def __init__(self, document: dict) -> None:
        self.document = document


def gates(
    kube_version: Optional[str] = typer.Option(None, "--kube-version", metavar="VERSION",
                                               help="The release (1.34 to 1.37, or 1.38 as a preview; "
                                                    "1.37.2 and v1.37 mean 1.37)."),
    min_compat: Optional[str] = typer.Option(None, "--min-compatibility-version", metavar="VERSION",
                                             help="Like the components' flag: gates whose default depends on it "
                                                  "(default: the release's previous minor)."),
    output: GatesFormat = OUTPUT_OPTION,
) -> None:
    """Print every feature gate dractl knows for a release, with stage, default and lock."""
    from dractl.api.versions import DEFAULT_KUBE_VERSION, GATE_RELEASES, PREVIEW_VERSIONS, version_tuple
    from dractl.report.gates_table import gates_document
    from dractl.report.registry import render

    version = common.release_version(kube_version or DEFAULT_KUBE_VERSION, GATE_RELEASES, "--kube-version")
    compat = None
    if min_compat is not None:
        compat = common.release_version(min_compat, None, "--min-compatibility-version")
        if version_tuple(compat) > version_tuple(version):
            raise common.UsageError(f"--min-compatibility-version {min_compat} is not between "
                                    f"[{version}, {version}]: it must be less than or equal to the release")
    document = gates_document(version, compat, preview=version in PREVIEW_VERSIONS)
    sys.stdout.write(render(output.value, _GatesResult(document)))
