"""The scheduling framework of the dry run, shaped like kube-scheduler's
(k8s.io/kube-scheduler/framework interface.go and cycle_state.go, pkg/scheduler/framework/runtime
framework.go): plugins implement extension points, a per-pod CycleState keeps each plugin's own
data under the plugin's key, and every verdict is a `Status` with one of upstream's codes and
reasons. The scheduling loop (scheduler.py) only runs the cycle.

Phases dractl runs, in order, per pod:
  PreFilter   once per pod: each plugin may reject the pod, return Skip (its Filter is then not
              run for this pod, RunFilterPlugins' SkipFilterPlugins) or restrict the candidate
              nodes (PreFilterResult.NodeNames).
  Filter      per candidate node, the enabled Filter plugins in the profile's order; the first
              that does not return Success decides the node (runAllFilters is false by default).
  PostFilter  when no node passed: each plugin's message, joined with ", " (RunPostFilterPlugins).
  Score       among passing nodes: a tuple of plugin scores, compared in the profile's order.
  Reserve     on the chosen node (after the assume step, scheduler.py).
  PreBind     after Reserve: the API writes (claims' reservedFor) and warnings.

Unreserve is not a phase here: every change a plugin's Reserve or PreBind makes goes through the
cluster journal (journal.py), and a failing Reserve or PreBind rolls the pod's transaction back,
newest change first. That undoes the Reserve plugins' work in reverse order, which is what
upstream's RunReservePluginsUnreserve does (it calls every Reserve plugin's Unreserve in reverse
order, frameworkImpl.RunReservePluginsUnreserve); the journal is dractl's Unreserve.

Where dractl differs from upstream: scores are compared lexicographically (upstream sums
weighted, normalised scores), a Filter returns None for Success so that the per-node loop, the
hot path of a large dry run, allocates nothing when a node passes, and Filter, Score, Reserve
and PreBind receive the node itself (upstream: NodeInfo or the node name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from dractl.simulate.cluster import ClusterState
    from dractl.simulate.nodes import SimNode
    from dractl.simulate.state import PodResult, Reason


class Code:
    """framework.Code: the values are upstream's."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5

    NAMES = {0: "Success", 1: "Error", 2: "Unschedulable", 3: "UnschedulableAndUnresolvable",
             4: "Wait", 5: "Skip"}


class Status:
    """A phase's verdict: a code, the reasons in kube-scheduler's words (fwk.Status.Reasons();
    `reason` is Message(), the reasons joined with ", "), the plugin that gave it, and for
    pod-level failures the dractl Reason (finding code, message, details) to report. `event`:
    a PreFilter rejection kube-scheduler reports in a FailedScheduling event, as a FitError
    ("0/N nodes are available: <message>. ..."); False for dractl's own pod-level findings and
    for what upstream rejects before scheduling (PreEnqueue, the API server)."""

    __slots__ = ("code", "reasons", "plugin", "report", "event")

    def __init__(self, code: int, reasons: "str | tuple[str, ...]" = (), plugin: str = "",
                 report: "Reason | None" = None, event: bool = True):
        self.code = code
        self.reasons = (reasons,) if isinstance(reasons, str) else tuple(reasons)
        self.plugin = plugin
        self.report = report
        self.event = event

    def as_event(self) -> "Status":
        self.event = True
        return self

    @property
    def reason(self) -> str:
        return ", ".join(self.reasons)

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_rejection(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def preemption_might_help(self) -> bool:
        """DefaultPreemption tries only nodes whose verdict is Unschedulable
        (NodesForStatusCode(..., Unschedulable) in preemption.go findCandidates)."""
        return self.code == Code.UNSCHEDULABLE

    def __repr__(self) -> str:
        return f"Status({Code.NAMES.get(self.code, self.code)}, {self.reason!r}, {self.plugin!r})"


SKIP = Status(Code.SKIP)


def unschedulable(reasons: "str | tuple[str, ...]", plugin: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons, plugin)


def unresolvable(reasons: "str | tuple[str, ...]", plugin: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons, plugin)


def rejected(report: "Reason", plugin: str, code: int = Code.UNSCHEDULABLE_AND_UNRESOLVABLE) -> Status:
    """A rejection dractl reports with its own finding (a pod-level failure)."""
    return Status(code, report.message, plugin, report, event=False)


class PreFilterResult:
    """PreFilterResult: the only nodes worth filtering (None: all of them)."""

    __slots__ = ("node_names",)

    def __init__(self, node_names: frozenset[str] | None) -> None:
        self.node_names = node_names


_NO_SKIP: frozenset[str] = frozenset()


class CycleState:
    """Per-pod state of one scheduling cycle (CycleState): each plugin reads and writes its own
    data under its key (`write(key, data)`, `read(key)`), as upstream's plugins do under their
    stateKey; a plugin that needs another plugin's data calls that plugin module's accessor.
    The framework's own fields: the pod, the PodResult being filled, the plugins PreFilter told
    to skip (SkipFilterPlugins), the shortcuts' key and dractl's explanation lines."""

    __slots__ = ("result", "pod", "read", "write", "skip_filter", "key", "explanation")

    def __init__(self, result: "PodResult") -> None:
        self.result = result
        self.pod = result.pod
        data: dict[str, Any] = {}
        # read(key): the data written under key, or None (upstream returns ErrNotFound);
        # write(key, data). The dict's own methods: no Python frame on the hot path.
        self.read = data.get
        self.write = data.__setitem__
        self.skip_filter: frozenset[str] = _NO_SKIP
        self.key: tuple | None = None      # the shortcuts' key of this pod's Filter verdicts
        self.explanation: list[str] = []   # dractl's per-node explanation of the failure


class Plugin:
    """Base of every plugin. A plugin overrides the phases it takes part in; the framework calls
    only overridden ones. `pod_fields` names the pod fields its Filter and Score read ("spec.X",
    "metadata.Y"): the shortcuts key cached verdicts on exactly those fields, so a plugin that
    reads a field it does not declare gets stale verdicts. `cycle_key` adds what the verdicts
    depend on besides the pod's own fields (e.g. the pod's resolved claims)."""

    name: ClassVar[str] = ""
    # "spec.X", "spec.X[].Y" (field Y of every item of the list spec.X), "metadata.X"
    pod_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, cluster: "ClusterState") -> None:
        self.cluster = cluster

    def enabled(self) -> bool:
        """False: the plugin is left out of this run (e.g. its feature gate is off)."""
        return True

    # -- PreFilter ---------------------------------------------------------------------------
    def pre_filter(self, state: CycleState) -> "Status | PreFilterResult | None":
        """None (Success), SKIP, a PreFilterResult, or a rejection."""
        return None

    # -- Filter ------------------------------------------------------------------------------
    def filter(self, state: CycleState, node: "SimNode") -> Status | None:
        return None

    def cycle_key(self, state: CycleState) -> tuple | None:
        """A tuple; its dict/list items compare by content (JSON), the others as they are."""
        return None

    # -- PostFilter --------------------------------------------------------------------------
    def post_filter(self, state: CycleState, statuses: dict[str, Status], total: int) -> str | None:
        """The plugin's PostFilter message for the FailedScheduling summary; may add
        explanation lines (state.explanation)."""
        return None

    # -- Score -------------------------------------------------------------------------------
    def scores(self, state: CycleState) -> bool:
        """Whether this plugin's score can differ between nodes for this pod."""
        return False

    def score(self, state: CycleState, node: "SimNode") -> int:
        return 0

    def score_bound(self, state: CycleState) -> int | None:
        """The highest score any node could get, if known (lets the shortcuts stop early)."""
        return None

    def scan_order(self, state: CycleState, nodes: list) -> list[int] | None:
        """Indexes of `nodes` by descending score, when the score depends on the node alone
        (not on what the pod would be allocated there)."""
        return None

    # -- Reserve -----------------------------------------------------------------------------
    def reserve(self, state: CycleState, node: "SimNode") -> Status | None:
        return None

    # -- PreBind -----------------------------------------------------------------------------
    def pre_bind(self, state: CycleState, node: "SimNode") -> Status | None:
        return None

    # -- dractl's own: the lines under a node this plugin rejected, when kube-scheduler's
    #    message names no detail (e.g. which taint), for a pod that fits nowhere.
    def explain_rejection(self, state: CycleState, node_name: str, status: Status) -> list[str] | None:
        return None


_PHASES = ("pre_filter", "filter", "cycle_key", "post_filter", "scores", "reserve", "pre_bind",
           "explain_rejection")


class Framework:
    """The enabled plugins, in the profile's order, and per phase the ones that implement it
    (expandMultiPointPlugins: each extension point runs the MultiPoint plugins implementing it,
    in MultiPoint order)."""

    def __init__(self, cluster: "ClusterState", plugin_classes) -> None:
        self.plugins = [p for p in (cls(cluster) for cls in plugin_classes) if p.enabled()]
        self.by_name = {p.name: p for p in self.plugins}
        for phase in _PHASES:
            base = getattr(Plugin, phase)
            setattr(self, phase + "_plugins",
                    [p for p in self.plugins if getattr(type(p), phase) is not base])
        fields: list[str] = []
        for p in self.plugins:
            fields.extend(f for f in p.pod_fields if f not in fields)
        self.pod_fields = tuple(fields)
        self._filters: dict[frozenset, tuple] = {frozenset(): tuple(self.filter_plugins)}

    def run_pre_filter(self, state: CycleState):
        """(rejection or None, the restricted node names or None, the plugins that restricted
        them) as RunPreFilterPlugins: Skip adds the plugin to SkipFilterPlugins; node sets
        intersect; an empty intersection is UnschedulableAndUnresolvable."""
        skipped: list[str] = []
        names: frozenset[str] | None = None
        restricting: list[str] = []
        for plugin in self.pre_filter_plugins:
            status = plugin.pre_filter(state)
            if status is None:
                continue
            if status is SKIP:
                skipped.append(plugin.name)
                continue
            if isinstance(status, PreFilterResult):
                if status.node_names is not None:
                    restricting.append(plugin.name)
                    names = status.node_names if names is None else names & status.node_names
                    if not names:
                        return _no_node_left(restricting), None, restricting
                continue
            return status, None, restricting
        if skipped:
            state.skip_filter = frozenset(skipped)
        return None, names, restricting

    def filter_runner(self, state: CycleState):
        """The Filter plugins this pod runs, bound to its state: a function node -> Status or
        None (RunFilterPlugins, skipping SkipFilterPlugins)."""
        skip = state.skip_filter
        plugins = self._filters.get(skip)
        if plugins is None:
            plugins = self._filters[skip] = tuple(p for p in self.filter_plugins if p.name not in skip)

        def run(node):
            for plugin in plugins:
                status = plugin.filter(state, node)
                if status is not None:
                    return status
            return None
        return run

    def cycle_keys(self, state: CycleState) -> list:
        return [p.cycle_key(state) for p in self.cycle_key_plugins]

    def scoring(self, state: CycleState) -> list[Plugin]:
        return [p for p in self.scores_plugins if p.scores(state)]

    def run_post_filter(self, state: CycleState, statuses: dict[str, Status], total: int) -> str:
        """RunPostFilterPlugins' message: every plugin's reasons, joined with ", "."""
        out = []
        for plugin in self.post_filter_plugins:
            message = plugin.post_filter(state, statuses, total)
            if message:
                out.append(message)
        return ", ".join(out)

    def explain_rejections(self, state: CycleState, statuses: dict[str, Status]) -> None:
        """dractl's lines under each rejected node, from the plugin that rejected it (kept where
        an explanation is already there)."""
        if not self.explain_rejection_plugins:
            return
        explainers = {p.name: p for p in self.explain_rejection_plugins}
        out = state.result.node_explanations
        for node_name, status in statuses.items():
            plugin = explainers.get(status.plugin)
            if plugin is not None and node_name not in out:
                lines = plugin.explain_rejection(state, node_name, status)
                if lines:
                    out[node_name] = lines

    def run_reserve(self, state: CycleState, node: "SimNode") -> Status | None:
        for plugin in self.reserve_plugins:
            status = plugin.reserve(state, node)
            if status is not None:
                return status
        return None

    def run_pre_bind(self, state: CycleState, node: "SimNode") -> Status | None:
        for plugin in self.pre_bind_plugins:
            status = plugin.pre_bind(state, node)
            if status is not None:
                return status
        return None


def _no_node_left(plugins: list[str]) -> Status:
    """RunPreFilterPlugins when the plugins' node sets do not intersect."""
    if len(plugins) == 1:
        return unresolvable(f"node(s) didn't satisfy plugin {plugins[0]}", "")
    return unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously", "")
