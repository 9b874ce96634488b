"""Options shared by every command, and turning them into pipeline settings."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Callable

import typer

from dractl import deadline as deadline_defaults
from dractl.api.versions import (
    DEFAULT_KUBE_VERSION,
    KUBE_VERSIONS,
    FeatureGates,
    GateError,
    parse_feature_gates,
)
from dractl.cli import helpgroups
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
    v1_38 = "1.38"  # a preview (PREVIEW_VERSIONS)


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
    return choices, typer.Option(choices(names[0]), "--output", "-o", help=help_for(command),
                                 rich_help_panel=helpgroups.OUTPUT)


def release_version(text: str, allowed, option: str) -> str:
    """`1.37`, `v1.37`, `1.37.2`, `1.37.0-rc.1` -> `1.37` (the patch part is ignored); a usage
    error naming the releases dractl knows otherwise (allowed None: any well-formed version)."""
    from dractl.api.versions import normalize_kube_version

    version = normalize_kube_version(text)
    if version is None or (allowed is not None and version not in allowed):
        known = f" (known: {', '.join(allowed)})" if allowed is not None else " (expected MAJOR.MINOR)"
        raise UsageError(f"{option} {text}: not a Kubernetes version dractl knows{known}")
    return version


def min_compatibility_version(text: str | None, release: str) -> str | None:
    """--min-compatibility-version for one release, checked as component-base checks it: between
    the kube floor (the release minus three minors, `kubeEffectiveVersionFloors`) and the
    emulated version, which for dractl is the release itself. None: the components' default,
    the previous minor (dractl.api.versions resolves it)."""
    from dractl.api.versions import version_tuple

    if text is None:
        return None
    compat = release_version(text, None, "--min-compatibility-version")
    major, minor = version_tuple(release)
    floor = f"{major}.{max(minor - 3, 0)}"
    if not version_tuple(floor) <= version_tuple(compat) <= (major, minor):
        # component-base's message (effectiveVersion.Validate): the floor prints with its
        # patch part (WithPatch(0)), the emulated version without.
        raise UsageError(f"--min-compatibility-version {text}: minCompatibilityVersion version "
                         f"{compat} is not between [{floor}.0, {release}]")
    return compat


def make_gates(kube_version: str | KubeVersion | None, feature_gates: str | None,
               config: "Config | None" = None, min_compat: str | None = None) -> FeatureGates:
    """Gates of the chosen version: config file gates, then --feature-gates (per gate, the
    command line wins). min_compat: --min-compatibility-version as given (gate defaults that
    depend on it, e.g. DRAFractionalCapacityRange in 1.37, and gate dependencies follow it)."""
    version = kube_version.value if isinstance(kube_version, KubeVersion) else kube_version
    config_gates = ""
    if config is not None:
        version = version or config.kube_version
        config_gates = config.feature_gates_text()
    version = version or DEFAULT_KUBE_VERSION
    compat = min_compatibility_version(min_compat, version)
    if config_gates:
        try:
            parse_feature_gates(config_gates, version, min_compat=compat)
        except GateError as exc:
            raise UsageError(f"{_config_name(config)}: featureGates: {exc}") from None
    try:
        parse_feature_gates(feature_gates or "", version, min_compat=compat)
    except GateError as exc:
        raise UsageError(f"--feature-gates: {exc}") from None
    return parse_feature_gates(",".join(t for t in (config_gates, feature_gates or "") if t), version,
                               min_compat=compat)


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
    kinds: object = None  # dractl.validate.pipeline.KindFilter, or None
    default_exclude: bool = True  # leave out Helm charts, Kustomize and package files

    def check_options(self, *, progress: bool = False, apply_strict: bool = False,
                      strict_inventory: bool = False) -> "CheckOptions":
        """apply_strict: this command honours --strict / strict in .dractl.yaml (validate and
        allocate do; env and capacity report values, not findings)."""
        from dractl.pipeline import CheckOptions

        return CheckOptions(gates=self.gates, limits=self.limits, ignore=self.ignore,
                            strict=apply_strict and self.strict, jobs=self.jobs, exclude=self.exclude,
                            extra_ignore=self.extra_ignore, explicit_excluded=self.force_exclude,
                            progress=progress, kinds=self.kinds, strict_inventory=strict_inventory,
                            default_exclude=self.default_exclude)


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
             jobs: int | None = None, select: list[str] | None = None,
             skip_kinds: list[str] | None = None, reject_kinds: list[str] | None = None,
             extensions: list[str] | None = None, min_compat: str | None = None,
             default_exclude: bool = True) -> Settings:
    from dractl.config import PathMatcher
    from dractl.load.limits import Limits

    config = load_config(config_path, no_config)
    gates = make_gates(kube_version, feature_gates, config, min_compat)
    gates = _with_extensions(gates, extensions, config)
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
        ignore=_ignored(ignore, select, config),
        strict=strict if strict is not None else bool(config.strict),
        inventory=list(inventory) if inventory else config.inventory_args(),
        limits=Limits(max_file_bytes=parse_size(max_file_size)),
        jobs=jobs, exclude=(lambda name: any(m.matches(name) for m in matchers)) if matchers else None,
        force_exclude=force_exclude, extra_ignore=extra_ignore if per_path else None,
        kinds=_kind_filter(skip_kinds, reject_kinds), default_exclude=default_exclude)


def _with_extensions(gates: FeatureGates, extensions, config) -> FeatureGates:
    """--extension (repeatable, or comma-separated) replaces `extensions:` of .dractl.yaml."""
    from dractl.extensions import UnknownExtension, parse_extensions

    try:
        names = parse_extensions(extensions if extensions else config.extensions)
    except UnknownExtension as exc:
        raise UsageError(f"--extension: {exc}") from None
    return gates.with_extensions(names) if names else gates


def complete_extension(incomplete: str) -> list[tuple[str, str]]:
    from dractl.extensions import KNOWN

    return [(name, help_text) for name, help_text in sorted(KNOWN.items()) if name.startswith(incomplete)]


EXTENSION_OPTION = typer.Option(
    None, "--extension", metavar="NAME", autocompletion=complete_extension,
    help="Switch on one of dractl's own extensions (repeatable; not Kubernetes features): "
         "podgroup-constraints (device constraints across a PodGroup's pods, the KEP-5729 "
         "review's alternative). Replaces extensions in .dractl.yaml.")


def _kind_filter(skip: list[str] | None, reject: list[str] | None):
    """kubeconform's -skip/-reject: comma-separated, repeatable kinds or apiVersion/kind."""
    def names(values) -> frozenset:
        return frozenset(p.strip() for v in values or () for p in v.split(",") if p.strip())

    if not (names(skip) or names(reject)):
        return None
    from dractl.validate.pipeline import KindFilter

    both = names(skip) & names(reject)
    if both:
        raise UsageError(f"--skip-kinds and --reject-kinds both name {', '.join(sorted(both))}")
    return KindFilter(skip=names(skip), reject=names(reject))


def _ignored(ignore, select, config) -> frozenset:
    """Codes not to report (config ignore, --ignore, everything outside --select); loading the
    code table only when one of them is given."""
    if not (ignore or select or config.ignore):
        return frozenset()
    from dractl.cli.selection import ignored_codes

    return ignored_codes(ignore, select, config.ignore, _config_name(config))


def all_codes():
    """The whole finding-code table (loaded lazily: it imports every checking module)."""
    from dractl.report.codes import load_all_codes

    return load_all_codes()


def is_terminal(stream) -> bool:
    return _is_terminal(stream)


def color_mode(no_color: bool, color: str = "auto") -> str:
    """always | never | auto: --no-color and --color win, then NO_COLOR and FORCE_COLOR (set and
    not empty, as no-color.org and force-color.org define them)."""
    if no_color or color == "never":
        return "never"
    if color == "always":
        return "always"
    if os.environ.get("NO_COLOR"):
        return "never"
    if os.environ.get("FORCE_COLOR"):
        return "always"
    return "auto"


def make_console(no_color: bool, stderr: bool = False, color: str = "auto") -> Console:
    from rich.console import Console  # rich costs ~25 ms to import: only for text output

    mode = color_mode(no_color, color)
    stream = sys.stderr if stderr else sys.stdout
    # Piped output (CI logs, files, golden tests) is never wrapped or cut at 80 columns.
    width = terminal_width(stream) if _is_terminal(stream) else 10_000
    force = {"always": True, "never": False}.get(mode)
    return Console(file=stream, no_color=mode == "never", highlight=False, markup=False,
                   emoji=False, soft_wrap=True, width=width, force_terminal=force)


def terminal_width(stream) -> int:
    """COLUMNS when it is a sensible number, else the terminal's own width, else 80. rich would
    take COLUMNS=0 at its word and print an empty report."""
    text = os.environ.get("COLUMNS", "").strip()
    if text.isdigit() and 0 < int(text) <= 10_000:
        return int(text)
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = 0
    return columns if 0 < columns <= 10_000 else 80


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


# Set by dractl.cli.argv from `--kube-version 1.36,1.37,1.38` (the upgrade check); never typed.
UPGRADE_RELEASES_OPTION = typer.Option(None, "--upgrade-releases", hidden=True)


def release_list(text: str) -> list[str]:
    """The releases of an upgrade check, in the order given, each known to dractl."""
    from dractl.api.versions import KUBE_VERSIONS

    versions = [release_version(v, KUBE_VERSIONS, "--kube-version") for v in text.split(",") if v.strip()]
    if len(set(versions)) != len(versions) or len(versions) < 2:
        raise UsageError(f"--kube-version {text}: an upgrade check names two or more different releases")
    return versions


def no_upgrade_check(releases: str | None, command: str) -> None:
    if releases:
        raise UsageError(f"--kube-version {releases}: several releases (the upgrade check) are for "
                         f"validate and allocate, not {command}")


KUBE_VERSION_OPTION = typer.Option(None, "--kube-version", help="Kubernetes version whose schemas, "
                                   f"rules and default feature gates apply (default {DEFAULT_KUBE_VERSION}, "
                                   "or kubeVersion in .dractl.yaml; 1.38 is a preview from its alpha "
                                   "changelogs; v1.37 and 1.37.2 mean 1.37). validate and allocate "
                                   "take a list, 1.36,1.37,1.38: the upgrade check.")
FEATURE_GATES_OPTION = typer.Option(None, "--feature-gates", metavar="Name=true,Other=false",
                                    help="Override feature gates like a Kubernetes component.")
MIN_COMPAT_OPTION = typer.Option(None, "--min-compatibility-version", metavar="VERSION",
                                 help="Like the components' flag: the oldest control-plane release "
                                      "to stay compatible with (default: the release's previous "
                                      "minor). Gate defaults that depend on it follow it, e.g. "
                                      "DRAFractionalCapacityRange in 1.37 is on only from 1.37.")
NO_COLOR_OPTION = typer.Option(False, "--no-color", help="Never colour the output (= --color never).")


class ColorMode(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


COLOR_OPTION = typer.Option(ColorMode.auto, "--color",
                            help="Colour text output: auto (on terminals, unless NO_COLOR is set; "
                                 "FORCE_COLOR forces it), always or never.")
SELECT_OPTION = typer.Option(None, "--select", metavar="CODES", autocompletion=_complete_codes,
                             help="Report only these codes or prefixes (comma-separated, "
                                  "repeatable; e.g. DRA1,DRA2003).")
EXIT_ZERO_OPTION = typer.Option(False, "--exit-zero",
                                help="Exit 0 even when there are findings or failures (2 still "
                                     "means a usage or I/O error).")
SKIP_KINDS_OPTION = typer.Option(None, "--skip-kinds", metavar="KINDS",
                                 help="Skip documents of these kinds (comma-separated Kind or "
                                      "apiVersion/Kind, repeatable): counted as skipped.")
REJECT_KINDS_OPTION = typer.Option(None, "--reject-kinds", metavar="KINDS",
                                   help="Report documents of these kinds as errors (DRA0015).")
STATISTICS_OPTION = typer.Option(False, "--statistics",
                                 help="Print how often each code occurs instead of the findings.")
QUIET_OPTION = typer.Option(False, "--quiet", "-q", help="Print only errors and the result.")
IGNORE_OPTION = typer.Option(None, "--ignore", metavar="CODES", autocompletion=_complete_codes,
                             help="Drop findings with these codes or prefixes (comma-separated, "
                                  "repeatable, e.g. DRA2003,DRA6; adds to the config file's "
                                  "ignore list).")
MAX_FILE_SIZE_OPTION = typer.Option("64Mi", "--max-file-size", metavar="SIZE",
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
GOLDEN_ALLOW_OUTSIDE_OPTION = typer.Option(
    False, "--golden-allow-outside",
    help="Allow a --golden FILE outside the working directory's tree (refused by default, as is "
         "a FILE that is a symlink: a golden file from a pull request must not make dractl "
         "print /proc/self/environ or any other file of the machine).")
DEADLINE_OPTION = typer.Option(
    deadline_defaults.DEFAULT_SECONDS, "--deadline", metavar="SECONDS",
    help="Stop the whole run after this many seconds (exit status 2); --timeout bounds each "
         "pod on each node, this bounds everything.")


def deadline_scope(seconds: float):
    """The whole-run deadline (dractl.deadline) for one command."""
    from dractl.deadline import Deadline

    if not seconds > 0:
        raise UsageError("--deadline must be positive")
    return Deadline(seconds)
STRICT_INVENTORY_OPTION = typer.Option(
    False, "--strict-inventory",
    help="Report errors on inventory objects (-i, or objects with a status) as errors; by "
         "default they are warnings, since the objects already exist in the cluster.")
VERBOSE_OPTION = typer.Option(False, "--verbose", "-v",
                              help="List every object checked and its result (valid, invalid, "
                                   "skipped and why), like kubeconform's -verbose.")
LIST_FILES_OPTION = typer.Option(False, "--list-files",
                                 help="Print the files that would be checked (after excludes and "
                                      ".dractl.yaml) and exit.")
NO_DEFAULT_EXCLUDE_OPTION = typer.Option(
    False, "--no-default-exclude",
    help="Read Helm charts (Chart.yaml, values*.yaml, templates/), kustomization.yaml and package "
         "files too when walking directories (left out and counted by default, as the "
         "pre-commit hooks do).")


def _in_panel(panel: str, *options) -> None:
    for option in options:
        option.rich_help_panel = panel


_in_panel(helpgroups.INPUT, CONFIG_OPTION, NO_CONFIG_OPTION, EXCLUDE_OPTION, FORCE_EXCLUDE_OPTION,
          NO_DEFAULT_EXCLUDE_OPTION, MAX_FILE_SIZE_OPTION, LIST_FILES_OPTION)
_in_panel(helpgroups.SELECTION, KUBE_VERSION_OPTION, FEATURE_GATES_OPTION, MIN_COMPAT_OPTION,
          EXTENSION_OPTION, IGNORE_OPTION, SELECT_OPTION, SKIP_KINDS_OPTION, REJECT_KINDS_OPTION,
          STRICT_INVENTORY_OPTION)
_in_panel(helpgroups.OUTPUT, STATISTICS_OPTION, VERBOSE_OPTION, QUIET_OPTION, COLOR_OPTION,
          NO_COLOR_OPTION, EXIT_ZERO_OPTION, GOLDEN_OPTION, UPDATE_OPTION,
          GOLDEN_ALLOW_OUTSIDE_OPTION)
_in_panel(helpgroups.RUN, JOBS_OPTION, DEADLINE_OPTION)
