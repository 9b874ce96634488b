"""Options shared by every command, and turning them into pipeline settings."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Callable

import typer

from dractl.api.versions import DEFAULT_KUBE_VERSION, KUBE_VERSIONS, FeatureGates, GateError, \
    parse_feature_gates
from dractl.pipeline.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from dractl.config import Config
    from dractl.load.limits import Limits
    from dractl.pipeline import CheckOptions


class KubeVersion(str, Enum):
    v1_34 = "1.34"
    v1_35 = "1.35"
    v1_36 = "1.36"
    v1_37 = "1.37"


assert tuple(v.value for v in KubeVersion) == KUBE_VERSIONS


def _complete_codes(incomplete: str):
    from dractl.cli.completion import complete_codes

    return complete_codes(incomplete)


def complete_inventory(incomplete: str):
    from dractl.cli.completion import complete_inventory as complete

    return complete(incomplete)


def output_option(command: str):
    """`--output/-o` with the choices and help the format registry gives this command."""
    from dractl.report.registry import help_for, names_for

    names = names_for(command)
    choices = Enum(f"{command.title()}Format", [(n, n) for n in names], type=str)
    return choices, typer.Option(choices(names[0]), "--output", "-o", help=help_for(command))


def release_version(text: str, allowed, option: str) -> str:
    """`1.37`, `v1.37`, `1.37.2`, `1.37.0-rc.1` -> `1.37` (the patch part is ignored); a usage
    error naming the releases dractl knows otherwise (allowed None: any well-formed version)."""
    from dractl.api.versions import normalize_kube_version

    version = normalize_kube_version(text)
    if version is None or (allowed is not None and version not in allowed):
        known = f" (known: {', '.join(allowed)})" if allowed is not None else " (expected MAJOR.MINOR)"
        raise UsageError(f"{option} {text}: not a Kubernetes version dractl knows{known}")
    return version


def make_gates(kube_version: str | KubeVersion | None, feature_gates: str | None,
               config: "Config | None" = None) -> FeatureGates:
    """Gates of the chosen version: config file gates, then --feature-gates (per gate, the
    command line wins)."""
    version = kube_version.value if isinstance(kube_version, KubeVersion) else kube_version
    config_gates = ""
    if config is not None:
        version = version or config.kube_version
        config_gates = config.feature_gates_text()
    version = version or DEFAULT_KUBE_VERSION
    if config_gates:
        try:
            parse_feature_gates(config_gates, version)
        except GateError as exc:
            raise UsageError(f"{_config_name(config)}: featureGates: {exc}") from None
    try:
        parse_feature_gates(feature_gates or "", version)
    except GateError as exc:
        raise UsageError(f"--feature-gates: {exc}") from None
    return parse_feature_gates(",".join(t for t in (config_gates, feature_gates or "") if t), version)


def _config_name(config) -> str:
    from dractl.config import display_path

    return display_path(config.path) if config is not None and config.path else "config"


@dataclass
class Settings:
    """The effective options of one run: defaults < config file < command line."""

    config: "Config"
    gates: FeatureGates
    ignore: frozenset
    strict: bool
    inventory: list[str]
    limits: "Limits"
    jobs: int | None
    exclude: Callable[[str], bool] | None
    force_exclude: bool
    extra_ignore: Callable[[str], frozenset] | None = None

    def check_options(self, *, progress: bool = False, apply_strict: bool = False,
                      strict_inventory: bool = False) -> "CheckOptions":
        """apply_strict: this command honours --strict / strict in .dractl.yaml (only validate
        does; a dry run's exit status does not depend on warnings)."""
        from dractl.pipeline import CheckOptions

        return CheckOptions(gates=self.gates, limits=self.limits, ignore=self.ignore,
                            strict=apply_strict and self.strict, jobs=self.jobs, exclude=self.exclude,
                            extra_ignore=self.extra_ignore, explicit_excluded=self.force_exclude,
                            progress=progress, strict_inventory=strict_inventory)


def load_config(config_path: str | None, no_config: bool) -> "Config":
    from dractl.config import ConfigError, discover

    if config_path and no_config:
        raise UsageError("--config and --no-config exclude each other")
    try:
        return discover(config_path, no_config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def settings(*, config_path: str | None = None, no_config: bool = False,
             kube_version: KubeVersion | None = None, feature_gates: str | None = None,
             ignore: list[str] | None = None, strict: bool | None = None,
             inventory: list[str] | None = None, exclude: list[str] | None = None,
             force_exclude: bool = False, max_file_size: str = "64Mi",
             jobs: int | None = None) -> Settings:
    from dractl.config import PathMatcher
    from dractl.load.limits import Limits

    config = load_config(config_path, no_config)
    gates = make_gates(kube_version, feature_gates, config)
    if jobs is not None and jobs < 0:
        raise UsageError("--jobs must be 0 (one per CPU) or more")
    matchers = []
    if config.exclude:
        matchers.append(PathMatcher(config.exclude, config.root))
    if exclude:
        matchers.append(PathMatcher(exclude, os.getcwd()))
    per_path = [(PathMatcher([pattern], config.root), frozenset(codes))
                for pattern, codes in config.per_path_ignore]
    cache: dict[str, frozenset] = {}

    def extra_ignore(name: str) -> frozenset:
        found = cache.get(name)
        if found is None:
            found = cache[name] = frozenset().union(*(codes for m, codes in per_path if m.matches(name)))
        return found

    return Settings(
        config=config, gates=gates,
        ignore=frozenset(config.ignore) | frozenset(ignore or ()),
        strict=strict if strict is not None else bool(config.strict),
        inventory=list(inventory) if inventory else config.inventory_args(),
        limits=Limits(max_file_bytes=parse_size(max_file_size)),
        jobs=jobs, exclude=(lambda name: any(m.matches(name) for m in matchers)) if matchers else None,
        force_exclude=force_exclude, extra_ignore=extra_ignore if per_path else None)


def all_codes():
    """The whole finding-code table (loaded lazily: it imports every checking module)."""
    from dractl.report.codes import load_all_codes

    return load_all_codes()


def is_terminal(stream) -> bool:
    return _is_terminal(stream)


def make_console(no_color: bool, stderr: bool = False) -> Console:
    from rich.console import Console  # rich costs ~25 ms to import: only for text output

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


KUBE_VERSION_OPTION = typer.Option(None, "--kube-version", help="Kubernetes version whose schemas, "
                                   f"rules and default feature gates apply (default {DEFAULT_KUBE_VERSION}, "
                                   "or kubeVersion in .dractl.yaml).")
FEATURE_GATES_OPTION = typer.Option(None, "--feature-gates", metavar="Name=true,Other=false",
                                    help="Override feature gates like a Kubernetes component.")
NO_COLOR_OPTION = typer.Option(False, "--no-color", help="Never colour the output.")
QUIET_OPTION = typer.Option(False, "--quiet", "-q", help="Print only errors and the result.")
IGNORE_OPTION = typer.Option(None, "--ignore", metavar="CODE", autocompletion=_complete_codes,
                             help="Drop findings with this code (repeatable; adds to the config "
                                  "file's ignore list).")
MAX_FILE_SIZE_OPTION = typer.Option("64Mi", "--max-file-size",
                                    help="Skip (with an error) files larger than this.")
DEBUG_OPTION = typer.Option(False, "--debug", help="Show Python tracebacks of internal errors.",
                            hidden=True)
JOBS_OPTION = typer.Option(None, "--jobs", "-j", min=0, metavar="N",
                           help="Check files in N processes (default: one per CPU; only for 200 "
                                "files or more; the output is the same for every N).")
CONFIG_OPTION = typer.Option(None, "--config", metavar="FILE",
                             help="Settings file to use instead of the nearest .dractl.yaml in the "
                                  "working directory or above.")
NO_CONFIG_OPTION = typer.Option(False, "--no-config", help="Ignore .dractl.yaml files.")
EXCLUDE_OPTION = typer.Option(None, "--exclude", metavar="GLOB",
                              help="Skip files matching GLOB when walking directories (repeatable; "
                                   "adds to exclude in .dractl.yaml).")
FORCE_EXCLUDE_OPTION = typer.Option(False, "--force-exclude",
                                    help="Apply excludes to files named on the command line too "
                                         "(for pre-commit, which passes file names).")
GOLDEN_OPTION = typer.Option(None, "--golden", metavar="FILE",
                             help="Compare the output with FILE: print a unified diff and exit 1 "
                                  "when they differ, 0 when they match.")
UPDATE_OPTION = typer.Option(False, "--update", help="With --golden: write FILE instead.")
STRICT_INVENTORY_OPTION = typer.Option(
    False, "--strict-inventory",
    help="Report errors on inventory objects (-i, or objects with a status) as errors; by "
         "default they are warnings, since the objects already exist in the cluster.")
