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
    from dractl.api.versions import DEFAULT_KUBE_VERSION, GATE_RELEASES, PREVIEW_VERSIONS
    from dractl.report.gates_table import gates_document
    from dractl.report.registry import render

    version = common.release_version(kube_version or DEFAULT_KUBE_VERSION, GATE_RELEASES, "--kube-version")
    compat = common.min_compatibility_version(min_compat, version)
    document = gates_document(version, compat, preview=version in PREVIEW_VERSIONS)
    sys.stdout.write(render(output.value, _GatesResult(document)))
