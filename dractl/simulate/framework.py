"""The scheduling framework of the dry run, shaped like kube-scheduler's
(pkg/scheduler/framework/interface.go): plugins implement extension points, a per-pod cycle
state carries what PreFilter computed to the later phases, and every verdict is a `Status` with
one of upstream's codes. The scheduling loop (scheduler.py) only runs the cycle.

Phases dractl runs, in order, per pod:
  PreFilter   once per pod: resolve and check its inputs (claims, requests); may reject the pod.
  Filter      per candidate node: may the pod run there? The first plugin that says no decides.
  PostFilter  when no node passed: explain (DynamicResources) and preemption's summary.
  Score       among passing nodes: a tuple of plugin scores, compared in registration order.
  Reserve     on the chosen node: commit what the pod takes (devices, resources, ports).
  Unreserve   when a later Reserve or PreBind fails (the cluster journal undoes the state).
  PreBind     after Reserve: the API writes (claims' reservedFor) and warnings.

Where dractl differs from upstream: scores are compared lexicographically (upstream sums
weighted, normalised scores), and a Filter returns None for Success so that the per-node loop,
the hot path of a large dry run, allocates nothing when a node passes.
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
    SKIP = 5

    NAMES = {0: "Success", 1: "Error", 2: "Unschedulable", 3: "UnschedulableAndUnresolvable",
             5: "Skip"}


class Status:
    """A phase's verdict: a code, the reason in kube-scheduler's words, the plugin that gave it,
    and for pod-level failures the dractl Reason (finding code, message, details) to report."""

    __slots__ = ("code", "reason", "plugin", "report")

    def __init__(self, code: int, reason: str = "", plugin: str = "", report: "Reason | None" = None):
        self.code = code
        self.reason = reason
        self.plugin = plugin
        self.report = report

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_rejection(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def preemption_might_help(self) -> bool:
        """DefaultPreemption skips nodes whose verdict is UnschedulableAndUnresolvable."""
        return self.code == Code.UNSCHEDULABLE

    def __repr__(self) -> str:
        return f"Status({Code.NAMES.get(self.code, self.code)}, {self.reason!r}, {self.plugin!r})"


def unschedulable(reason: str, plugin: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reason, plugin)


def unresolvable(reason: str, plugin: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason, plugin)


def rejected(report: "Reason", plugin: str, code: int = Code.UNSCHEDULABLE_AND_UNRESOLVABLE) -> Status:
    """A pod-level rejection (PreFilter, Reserve, an allocator error in Filter)."""
    return Status(code, report.message, plugin, report)


class CycleState:
    """Per-pod data shared between the phases (upstream's CycleState, with named slots for what
    dractl's plugins exchange instead of a string-keyed map)."""

    __slots__ = ("result", "pod", "refs", "pending", "pending_models", "allocated", "demand", "ext",
                 "details", "data", "key")

    def __init__(self, result: "PodResult") -> None:
        self.result = result
        self.pod = result.pod
        self.refs: list = []          # PodClaimRef of the pod (DynamicResources PreFilter)
        self.pending: list = []       # ClaimState still to allocate, unique, pod order
        self.pending_models: list = []  # their ResourceClaim models (read-only)
        self.allocated: list = []     # ClaimState already allocated, unique
        self.demand: dict = {}        # pod requests (NodeResourcesFit PreFilter)
        self.ext: list = []           # ExtendedRequest (extended resources PreFilter)
        self.details: list[str] = []  # PostFilter's explanation lines for the no-fit reason
        self.data: dict[str, Any] = {}  # anything else a plugin keeps, by plugin name
        self.key: tuple | None = None   # the shortcuts' key of this pod's Filter verdicts


class NodeAttempt:
    """What the Filter plugins found on one node where the pod fits; Reserve acts on the chosen
    node's attempt (upstream keeps these per node in the cycle state)."""

    __slots__ = ("node", "outcome", "ext", "special", "native")

    def __init__(self, node: "SimNode") -> None:
        self.node = node
        self.outcome: Any = None       # AllocationOutcome, or None when nothing needed devices
        self.ext: tuple = ()           # extended resources served through DRA on this node
        self.special: Any = None       # the extended-resource claim's model (KEP-5004)
        self.native: dict = {}         # node-allocatable amounts of DRA devices (KEP-5517)


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
    def pre_filter(self, state: CycleState) -> Status | None:
        return None

    # -- Filter ------------------------------------------------------------------------------
    def filter(self, state: CycleState, attempt: NodeAttempt) -> Status | None:
        return None

    def cycle_key(self, state: CycleState) -> tuple | None:
        """A tuple; its dict/list items compare by content (JSON), the others as they are."""
        return None

    # -- PostFilter --------------------------------------------------------------------------
    def post_filter(self, state: CycleState, statuses: dict[str, Status], total: int) -> str | None:
        """A message for the FailedScheduling summary (joined with ", "); may fill details."""
        return None

    # -- Score -------------------------------------------------------------------------------
    def scores(self, state: CycleState) -> bool:
        """Whether this plugin's score can differ between nodes for this pod."""
        return False

    def score(self, state: CycleState, attempt: NodeAttempt) -> int:
        return 0

    def score_bound(self, state: CycleState) -> int | None:
        """The highest score any node could get, if known (lets the shortcuts stop early)."""
        return None

    def scan_order(self, state: CycleState, nodes: list) -> list[int] | None:
        """Indexes of `nodes` by descending score, when the score depends on the node alone
        (not on what the pod would be allocated there)."""
        return None

    # -- Reserve / Unreserve -----------------------------------------------------------------
    def reserve(self, state: CycleState, attempt: NodeAttempt) -> Status | None:
        return None

    def unreserve(self, state: CycleState, attempt: NodeAttempt) -> None:
        return None

    # -- PreBind -----------------------------------------------------------------------------
    def pre_bind(self, state: CycleState, attempt: NodeAttempt) -> Status | None:
        return None


_PHASES = ("pre_filter", "filter", "cycle_key", "post_filter", "scores", "reserve", "unreserve",
           "pre_bind")


class Framework:
    """The enabled plugins, in registration order, and per phase the ones that implement it."""

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

    def run_pre_filter(self, state: CycleState) -> Status | None:
        for plugin in self.pre_filter_plugins:
            status = plugin.pre_filter(state)
            if status is not None:
                return status
        return None

    def run_filter(self, state: CycleState, attempt: NodeAttempt) -> Status | None:
        for plugin in self.filter_plugins:
            status = plugin.filter(state, attempt)
            if status is not None:
                return status
        return None

    def cycle_keys(self, state: CycleState) -> list:
        return [p.cycle_key(state) for p in self.cycle_key_plugins]

    def scoring(self, state: CycleState) -> list[Plugin]:
        return [p for p in self.scores_plugins if p.scores(state)]

    def run_post_filter(self, state: CycleState, statuses: dict[str, Status], total: int) -> list[str]:
        out = []
        for plugin in self.post_filter_plugins:
            message = plugin.post_filter(state, statuses, total)
            if message:
                out.append(message)
        return out

    def run_reserve(self, state: CycleState, attempt: NodeAttempt) -> Status | None:
        done = []
        for plugin in self.reserve_plugins:
            status = plugin.reserve(state, attempt)
            if status is not None:
                self.run_unreserve(state, attempt, done)
                return status
            done.append(plugin)
        return None

    def run_unreserve(self, state: CycleState, attempt: NodeAttempt, plugins=None) -> None:
        for plugin in reversed(plugins if plugins is not None else self.unreserve_plugins):
            plugin.unreserve(state, attempt)

    def run_pre_bind(self, state: CycleState, attempt: NodeAttempt) -> Status | None:
        for plugin in self.pre_bind_plugins:
            status = plugin.pre_bind(state, attempt)
            if status is not None:
                return status
        return None
