"""`--kube-version 1.36,1.37,1.38` for validate and allocate: the upgrade check's command-line
side (the comparison itself is dractl.pipeline.upgrade)."""

from __future__ import annotations

from typing import Callable

from dractl.cli import common


def run_releases(releases_text: str, settings: Callable, run_one: Callable, command: str):
    """Every release's settings are checked before anything runs (a gate unknown to one of them
    is a usage error up front), then one run per release, compared."""
    from dractl.api.versions import PREVIEW_VERSIONS
    from dractl.pipeline.upgrade import upgrade_check

    releases = common.release_list(releases_text)
    for version in releases:
        settings(version)
    return upgrade_check(releases, run_one, command, PREVIEW_VERSIONS)
