"""What the dry run produces: claim states, pod results and the plan that holds them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dractl.api.limits import RESERVED_FOR_MAX
from dractl.api.resource import AllocationResult, ResourceClaim
from dractl.load.document import Document
from dractl.simulate.pods import PodInput

# Pod outcomes
SCHEDULED = "Scheduled"
UNSCHEDULABLE = "Unschedulable"
INVALID = "Invalid"

# Claim outcomes
ALLOCATED = "Allocated"
ALREADY_ALLOCATED = "AlreadyAllocated"
UNSATISFIABLE = "Unsatisfiable"
CLAIM_ERROR = "Error"
PENDING = "Pending"

MAX_RESERVED_FOR = RESERVED_FOR_MAX
DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection"


@dataclass(frozen=True)
class Reason:
    code: str
    message: str
    severity: str = "error"           # error: the pod/claim fails; warning: it works but beware
    details: tuple[str, ...] = ()     # extra lines (grouped per-node explanations)

    def to_json(self) -> dict:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.severity != "error":
            out["severity"] = self.severity
        if self.details:
            out["details"] = list(self.details)
        return out


@dataclass(eq=False)
class ClaimState:
    namespace: str
    name: str
    uid: str
    manifest: dict[str, Any]             # the object as the cluster would hold it (v1 shape)
    model: ResourceClaim | None
    source: Document | None = None
    generated: bool = False
    pre_allocated: bool = False
    allocation: AllocationResult | None = None
    reserved_for: list[dict] = field(default_factory=list)
    status: str = PENDING
    reasons: list[Reason] = field(default_factory=list)
    node: str = ""                      # node the dry run allocated it for
    referenced: bool = False            # some pod uses it
    touched: bool = False               # allocated or reserved by this run (printed with -o yaml)
    model_error: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def deleting(self) -> bool:
        meta = self.manifest.get("metadata") or {}
        return bool(meta.get("deletionTimestamp"))

    def owner_uids(self) -> list[tuple[str, str, str]]:
        """(kind, name, uid) of controller owner references."""
        meta = self.manifest.get("metadata") or {}
        out = []
        for ref in meta.get("ownerReferences") or []:
            if isinstance(ref, dict) and ref.get("controller"):
                out.append((str(ref.get("kind") or ""), str(ref.get("name") or ""),
                            str(ref.get("uid") or "")))
        return out


@dataclass
class PodClaimRef:
    name: str                 # entry in pod.spec.resourceClaims
    claim: ClaimState | None  # None: resolved to "no claim needed"
    reserved_for: str = "pod"  # pod | podgroup


@dataclass(eq=False)
class PodResult:
    pod: PodInput
    status: str = UNSCHEDULABLE
    node: str = ""
    claims: list[PodClaimRef] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    # node name -> why it did not fit (for --explain and grouping)
    node_failures: dict[str, str] = field(default_factory=dict)
    # node name -> explanation lines from the allocator (only for nodes where allocation failed)
    node_explanations: dict[str, list[str]] = field(default_factory=dict)
    node_devices: dict[str, list[str]] = field(default_factory=dict)  # device-level verdicts
    env: dict[str, dict[str, str]] = field(default_factory=dict)  # container -> env values
    env_errors: dict[str, list[Reason]] = field(default_factory=dict)
    env_sources: dict[str, dict[str, tuple]] = field(default_factory=dict)  # container -> env -> devices
    group: Any = None                  # PodGroupInfo the pod belongs to (GenericWorkload)
    group_problem: str | None = None   # why the pod is not enqueued (missing PodGroup/Workload)

    @property
    def namespace(self) -> str:
        return self.pod.namespace

    @property
    def name(self) -> str:
        return self.pod.name


@dataclass
class Plan:
    pods: list[PodResult] = field(default_factory=list)
    claims: list[ClaimState] = field(default_factory=list)   # every claim, input order then generated
    nodes: list[str] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)      # run-level notes (no nodes, ...)
    groups: list = field(default_factory=list)               # PodGroupInfo with members, input order
    slices: tuple = ()                                       # ResourceSlice models (taint rules applied)

    def ok(self) -> bool:
        if any(p.status != SCHEDULED for p in self.pods):
            return False
        if any(c.status in (UNSATISFIABLE, CLAIM_ERROR) for c in self.claims):
            return False
        if any(e.severity == "error" for p in self.pods for errs in p.env_errors.values() for e in errs):
            return False
        return not any(r.severity == "error" for r in self.reasons)
