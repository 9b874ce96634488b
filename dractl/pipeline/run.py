"""The library entry points: `check` (load + validate) and `dry_run` (check, then the
scheduler's dry run, then the env stage). The CLI is a thin layer over these two.

    from dractl.pipeline import CheckOptions, DryRunOptions, check, dry_run
    result = check(["manifests/"], CheckOptions(gates=parse_feature_gates("")))
    result = dry_run(["workload.yaml"], CheckOptions(gates=...), DryRunOptions(inventory=["builtin:example-gpu"]))

Stages, in order: sources (dractl.pipeline.sources) -> per-file load + validate, serial or in a
process pool (dractl.pipeline.executor) -> cross-document references -> [dry run
(dractl.simulate) -> env values (dractl.downward)] -> one Result.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, Callable

from dractl.api.versions import FeatureGates
from dractl.findings import ERROR, WARNING, Finding
from dractl.load.limits import DEFAULT_LIMITS, Limits
from dractl.pipeline.errors import UsageError
from dractl.pipeline.result import ALLOCATE, VALIDATE, Result

if TYPE_CHECKING:
    from dractl.validate.pipeline import KindFilter


@dataclass
class CheckOptions:
    """How to read and validate: the effective settings of one run."""

    gates: FeatureGates
    limits: Limits = DEFAULT_LIMITS
    ignore: frozenset = frozenset()
    strict: bool = False                 # warnings count as errors
    jobs: int | None = None              # worker processes; None or 0: one per CPU
    exclude: Callable[[str], bool] | None = None
    extra_ignore: Callable[[str], frozenset] | None = None   # per-file extra ignored codes
    explicit_excluded: bool = False      # exclude applies to files named explicitly too
    progress: bool = False               # a progress bar on a terminal's stderr
    stdin: BinaryIO | None = None        # what "-" reads (default: sys.stdin)
    kinds: "KindFilter | None" = None    # --skip-kinds / --reject-kinds
    strict_inventory: bool = False       # errors on inventory objects stay errors
    default_exclude: bool = True         # leave out Helm charts, Kustomize and package files


@dataclass
class DryRunOptions:
    """What to schedule against and how."""

    inventory: tuple = ()                # paths or builtin:NAME, read before the manifests
    node: str | None = None              # place everything on this node only
    node_order: str = "first"            # first | least-allocated | most-allocated
    timeout: float = 10.0                # seconds per pod and node (filterTimeout)
    simulate_controllers: bool = True    # create claims from templates
    lenient_env: bool = False            # env refs: skip devices lacking the attribute


def check(paths: list[str], options: CheckOptions, *,
          aliases: dict[str, str] | None = None, inventory: list[str] | tuple = (),
          while_waiting: Callable[[], None] | None = None, finish: bool = True) -> Result:
    """Load and validate `paths` (files, directories, - for stdin).

    inventory: those of `paths` that describe cluster state (-i): their objects' findings are
    warnings (unless options.strict_inventory) and only findings on what the allocator reads
    leave an object out (dractl.validate.pipeline.makes_unusable).
    while_waiting: what to do here while worker processes validate (dractl.pipeline.executor).
    finish: report the inline suppressions that covered nothing now (False: the caller adds
    findings first, then calls finish_suppressions)."""
    from dractl.pipeline.executor import validate_paths
    from dractl.validate.pipeline import InventoryPolicy

    policy = InventoryPolicy(inventory_sources(inventory, aliases), options.strict_inventory)

    run = validate_paths(list(paths), limits=options.limits, gates=options.gates,
                         ignore=options.ignore, jobs=options.jobs, exclude=options.exclude,
                         extra_ignore=options.extra_ignore,
                         explicit_excluded=options.explicit_excluded, progress=options.progress,
                         aliases=aliases, stdin=options.stdin, kinds=options.kinds, inventory=policy,
                         while_waiting=while_waiting, default_exclude=options.default_exclude)
    findings = run.validated.findings + (_idle_suppressions(run.validated, options) if finish else [])
    result = Result(VALIDATE, _strict(findings, options, policy), run.validated, run.docs, run.files,
                    run.documents_read, run.usage_errors, run.io_errors, gates=options.gates,
                    not_read=run.not_read, inventory_sources=policy.sources)
    if finish and len(findings) != len(run.validated.findings):
        result.findings.sort(key=Finding.sort_key)
    return result


def _strict(findings: list, options: CheckOptions, policy) -> list:
    if not options.strict:
        return findings
    # --strict is about what the user applies; inventory findings follow --strict-inventory.
    return [f.located(severity=ERROR)
            if f.severity == WARNING and not policy.from_inventory_file(f.file) else f
            for f in findings]


def _idle_suppressions(validated, options: CheckOptions) -> list:
    """DRA0017/DRA0018 for the inline suppressions (dractl.validate.suppress) that cover nothing
    or name no code, except codes the run does not report for that file anyway."""
    suppressions = validated.suppressions
    if suppressions is None:
        return []

    def ignored_for(name: str) -> frozenset:
        extra = options.extra_ignore(name) if options.extra_ignore is not None else frozenset()
        return options.ignore | extra

    return [f for f in suppressions.findings + suppressions.unused(ignored_for)
            if f.code not in ignored_for(f.file)]


def finish_suppressions(result: Result, options: CheckOptions) -> None:
    """After findings added to a check's result (validate -i's lints): the suppressions that
    covered nothing, as check(finish=True) reports them."""
    from dractl.validate.pipeline import InventoryPolicy

    idle = _idle_suppressions(result.validated, options)
    if idle:
        policy = InventoryPolicy(result.inventory_sources, options.strict_inventory)
        result.findings.extend(_strict(idle, options, policy))
        result.findings.sort(key=Finding.sort_key)


def check_with_inventory(paths: list[str], options: CheckOptions,
                         inventory: list[str]) -> Result:
    """`validate -i`: check(inventory + paths), then dractl's inventory lints (DRA7xxx) of the
    manifests against what the inventory publishes. Without an inventory this is check()."""
    if not inventory:
        return check(paths, options)
    from dractl.pipeline.sources import resolve_inventory
    from dractl.validate.inventorylints import add_inventory_lints

    aliases: dict[str, str] = {}
    resolved = resolve_inventory(list(inventory), aliases)
    result = check(resolved + list(paths), options, aliases=aliases, inventory=resolved, finish=False)
    add_inventory_lints(result, inventory_sources(resolved, aliases), options)
    finish_suppressions(result, options)
    return result


def dry_run(paths: list[str], options: CheckOptions, dry: DryRunOptions, *,
            command: str = ALLOCATE) -> Result:
    """check(inventory + paths), then schedule every pod and resolve env references.

    command: what the result is for (allocate, env or metadata: dractl.pipeline.result), which
    decides what counts as failure. Raises UsageError for a --node that is in no input.
    """
    aliases: dict[str, str] = {}
    from dractl.pipeline.sources import resolve_inventory

    inventory = resolve_inventory(list(dry.inventory), aliases)
    result = check(inventory + list(paths), options, aliases=aliases, inventory=inventory,
                   while_waiting=_import_dry_run)
    result.command = command
    plan = _simulate(result.validated, options.gates, dry, progress=options.progress)
    if dry.node and dry.node not in plan.nodes:
        shown = ", ".join(plan.nodes[:10]) or "none"
        more = ", ..." if len(plan.nodes) > 10 else ""
        raise UsageError(f"--node {dry.node}: no such node in the inputs (nodes: {shown}{more})")
    result.plan = plan
    return result


def _import_dry_run() -> None:
    """The dry run's modules (scheduler, allocator, CEL, env stage: ~0.2 s), imported while
    worker processes validate the inputs rather than after them."""
    import dractl.cel.device  # noqa: F401
    import dractl.cel.engine  # noqa: F401
    import dractl.cel.interp  # noqa: F401
    import dractl.downward  # noqa: F401
    _simulator()


def inventory_sources(paths, aliases: dict[str, str] | None) -> tuple:
    """Inventory paths as findings name their files (builtin:NAME, <stdin> for -)."""
    shown = []
    for path in paths:
        path = (aliases or {}).get(path, path)
        shown.append("<stdin>" if path == "-" else os.path.normpath(path) if path else path)
    return tuple(shown)


def _simulate(validated, gates: FeatureGates, dry: DryRunOptions, progress: bool = False):
    """The dry run, then the env stage (dractl.downward runs here, not inside the simulator).
    progress: pods placed / total on a terminal's stderr, once the dry run takes a while."""
    from dractl.downward import resolve_plan

    simulate, _ = _simulator()
    bar = _PodProgress() if progress else None
    try:
        plan = simulate(validated.documents, gates, simulation_options(dry, bar), validated.invalid)
    finally:
        if bar is not None:
            bar.stop()
    # resolve_plan is idempotent, so a simulator that still resolves env itself is harmless.
    resolve_plan(plan, plan.slices, lenient=dry.lenient_env)
    return plan


def simulation_options(dry: DryRunOptions, progress=None):
    """The simulator's Options for these dry-run settings (progress: a done/total hook)."""
    _, Options = _simulator()
    return Options(only_node=dry.node, node_order=dry.node_order or "first", timeout=dry.timeout,
                   simulate_controllers=dry.simulate_controllers, lenient_env=dry.lenient_env,
                   progress=progress)


class _PodProgress:
    """The simulator's progress(done, total) hook, drawn as the file bar is (transient, stderr,
    terminals only, after PROGRESS_AFTER seconds)."""

    def __init__(self) -> None:
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from dractl.pipeline.executor import _Progress

            self.bar = _Progress(total, enabled=True, label="scheduling", unit="pods placed")
        self.bar.done = done
        self.bar.tick()

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _simulator():
    try:  # the package's entry point, once dractl.simulate exports it
        from dractl.simulate import Options, simulate
    except ImportError:
        from dractl.simulate.scheduler import Options, simulate
    return simulate, Options
