"""Options shared by every command, and turning them into pipeline settings."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from enum import Enum

import typer
from rich.console import Console

from dractl.api.versions import DEFAULT_KUBE_VERSION, KUBE_VERSIONS, FeatureGates, GateError, \
    parse_feature_gates


class KubeVersion(str, Enum):
    v1_34 = "1.34"
    v1_35 = "1.35"
    v1_36 = "1.36"
    v1_37 = "1.37"


assert tuple(v.value for v in KubeVersion) == KUBE_VERSIONS


class UsageError(Exception):
    """Bad options or unusable input paths: exit status 2."""


def make_gates(kube_version: str | KubeVersion | None, feature_gates: str | None) -> FeatureGates:
    version = kube_version.value if isinstance(kube_version, KubeVersion) else (
        kube_version or DEFAULT_KUBE_VERSION)
    try:
        return parse_feature_gates(feature_gates or "", version)
    except GateError as exc:
        raise UsageError(f"--feature-gates: {exc}") from None


def make_console(no_color: bool, stderr: bool = False) -> Console:
    no_color = no_color or "NO_COLOR" in os.environ
    stream = sys.stderr if stderr else sys.stdout
    # Piped output (CI logs, files, golden tests) is never wrapped or cut at 80 columns.
    width = None if _is_terminal(stream) else 10_000
    return Console(file=stream, no_color=no_color, highlight=False, markup=False, emoji=False,
                   soft_wrap=True, width=width, force_terminal=None if not no_color else False)


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def parse_size(text: str) -> int:
    units = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3, "": 1}
    t = text.strip().lower().removesuffix("b").removesuffix("i")
    unit = t[-1:] if t[-1:] in "kmg" else ""
    try:
        value = int(t[: len(t) - len(unit)]) * units[unit]
    except ValueError:
        raise UsageError(f"--max-file-size: cannot read {text!r} (use e.g. 64Mi)") from None
    if value <= 0:
        raise UsageError("--max-file-size must be positive")
    return value


OUTPUT_HELP = "Output format."
KUBE_VERSION_OPTION = typer.Option(None, "--kube-version", help="Kubernetes version whose schemas, "
                                   f"rules and default feature gates apply (default {DEFAULT_KUBE_VERSION}).")
FEATURE_GATES_OPTION = typer.Option(None, "--feature-gates", metavar="Name=true,Other=false",
                                    help="Override feature gates like a Kubernetes component.")
NO_COLOR_OPTION = typer.Option(False, "--no-color", help="Never colour the output.")
QUIET_OPTION = typer.Option(False, "--quiet", "-q", help="Print only errors and the result.")
IGNORE_OPTION = typer.Option(None, "--ignore", metavar="CODE",
                             help="Drop findings with this code (repeatable).")
MAX_FILE_SIZE_OPTION = typer.Option("64Mi", "--max-file-size",
                                    help="Skip (with an error) files larger than this.")
DEBUG_OPTION = typer.Option(False, "--debug", help="Show Python tracebacks of internal errors.",
                            hidden=True)
