"""DynamicResources' checks of a pod's claims in PreFilter, and the warnings PreBind adds about a
placement. Upstream's checks (dynamicresources.go PreFilter: a missing DeviceClass, prioritized
lists with DRAPrioritizedList off, an unknown request type) keep kube-scheduler's words; the
others are dractl's (the API server's admin-access rule, an unparsable claim, an allocated claim
with an untolerated NoExecute device) and say so where they differ."""

from __future__ import annotations

from dractl.simulate import reasons as R
from dractl.simulate.claimcontroller import ClaimProblem
from dractl.simulate.state import MAX_RESERVED_FOR, Reason

ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


class SchedulingProblem(ClaimProblem):
    """A PreFilter rejection of upstream's: kube-scheduler records a FailedScheduling event with
    the FitError for it ("0/N nodes are available: <message>. ...")."""


def check_claims(cluster, pod, refs) -> None:
    """Raises ClaimProblem (dractl's checks) or SchedulingProblem (upstream's PreFilter)."""
    gates = cluster.gates
    for ref in refs:
        claim = ref.claim
        if claim is not None and claim.allocation is not None:
            _check_tainted_claim(cluster, pod, claim)
        if claim is None or claim.allocation is not None:
            continue
        if claim.model is None:
            raise ClaimProblem(Reason(R.MODEL, f"ResourceClaim {claim.ref}: {claim.model_error}"))
        for req in claim.model.requests:
            _check_request(cluster, claim, req)
        if gates.enabled("DRAAdminAccess"):
            _check_admin_access(cluster, claim)


def _check_request(cluster, claim, req) -> None:
    """PreFilter's per-request checks, in upstream's words (statusUnschedulable: UU)."""
    if req.first_available and not cluster.gates.enabled("DRAPrioritizedList"):
        raise SchedulingProblem(Reason(R.GATE_DISABLED, f"resource claim {claim.ref}, request "
                                       f"{req.name}: has subrequests, but the DRAPrioritizedList "
                                       "feature is disabled"))
    if req.exactly is None and not req.first_available:
        raise SchedulingProblem(Reason(R.UNKNOWN_REQUEST, f"resource claim {claim.ref}, request "
                                       f"{req.name}: unknown request type"))
    wanted = [(req.name, req.exactly.device_class_name)] if req.exactly else [
        (f"{req.name}/{s.name}", s.device_class_name) for s in req.first_available]
    for shown, class_name in wanted:
        if class_name not in cluster.class_names:
            raise SchedulingProblem(Reason(R.CLASS_NOT_FOUND, f"request {shown}: device class "
                                           f"{class_name} does not exist"))


def _taint_text(taint) -> str:
    return f"{taint.key}={taint.value}" if taint.value else taint.key


def _check_tainted_claim(cluster, pod, claim) -> None:
    """An allocated claim with an untolerated NoExecute device gets no new consumers (the API
    documentation of request tolerations; pods already using it are evicted)."""
    if not cluster.gates.enabled("DRADeviceTaints") or any(
            r.get("uid") == pod.uid for r in claim.reserved_for):
        return
    for device, taint in cluster.no_execute_taints(claim):
        raise ClaimProblem(Reason(
            R.TAINTED_CLAIM, f"resource claim {claim.ref}: device {device} has the NoExecute taint "
            f"{_taint_text(taint)} which the allocation does not tolerate; the scheduler does not "
            "let new pods reserve the claim while it has such devices"))


def _check_admin_access(cluster, claim) -> None:
    if not any(r.exactly and r.exactly.admin_access for r in claim.model.requests):
        return
    ns = cluster.namespaces.get(claim.namespace)
    label = ADMIN_ACCESS_LABEL
    if ns is None:
        claim.reasons.append(Reason(R.ADMIN_NAMESPACE_UNKNOWN, f"claim {claim.ref} requests admin "
                                    f"access; the API server requires namespace {claim.namespace} "
                                    f"to carry the label {label}=true, and no Namespace object was "
                                    "given to check it", severity="warning"))
        return
    labels = (ns.get("metadata") or {}).get("labels") or {}
    if str(labels.get(label)) != "true":
        raise ClaimProblem(Reason(R.ADMIN_NAMESPACE, f"claim {claim.ref} requests admin access, but "
                                  f"namespace {claim.namespace} does not have the label {label}=true "
                                  "(the API server rejects such claims)"))


# -- PreBind -----------------------------------------------------------------------------------
def reserved_for_full(claim) -> Reason:
    """bindClaim's error when the API server refuses a 257th reservedFor entry."""
    fix = ("put the claim on the pods' PodGroup (spec.resourceClaims of the PodGroup, "
           "same entry in every pod; Kubernetes 1.36+ with DRAWorkloadResourceClaims) so "
           "that one reservedFor entry covers the whole group")
    return Reason(R.RESERVED_FOR_FULL,
                  f"add reservation to claim {claim.ref}: "
                  f"ResourceClaim.resource.k8s.io \"{claim.name}\" is invalid: status.reservedFor: "
                  f"Too many: {len(claim.reserved_for) + 1}: must have at most {MAX_RESERVED_FOR} items",
                  details=(f"dractl: more than {MAX_RESERVED_FOR} pods share this claim; to fix it, "
                           + fix,))


def placement_warnings(cluster, result, claim) -> None:
    """Warnings about a placement that works: binding conditions the pod would wait for, and
    NoExecute taints that would evict it."""
    _warn_no_execute(cluster, result, claim)
    _warn_binding_conditions(result, claim)


def _warn_binding_conditions(result, claim) -> None:
    waiting = [r for r in claim.allocation.devices if r.binding_conditions]
    if waiting:
        devices = ", ".join(f"{r.driver}/{r.pool}/{r.device}" for r in waiting)
        conditions = sorted({c for r in waiting for c in r.binding_conditions or ()})
        result.reasons.append(Reason(
            R.BINDING_CONDITIONS, f"claim {claim.ref}: the pod would wait in PreBind for "
            f"binding conditions {', '.join(conditions)} on {devices} (placement is tentative)",
            severity="warning"))


def _warn_no_execute(cluster, result, claim) -> None:
    """A device of the claim carries a NoExecute taint its result does not tolerate (possible
    for claims allocated before the taint appeared, e.g. through a DeviceTaintRule): the
    eviction controller would evict every pod using the claim."""
    if not cluster.gates.enabled("DRADeviceTaints"):
        return
    for device, taint in cluster.no_execute_taints(claim):
        result.reasons.append(Reason(
            R.EVICTION, f"claim {claim.ref}: device {device} has the NoExecute taint "
            f"{_taint_text(taint)} which the allocation does not tolerate: the pod would be "
            "evicted (with every other pod using the claim)", severity="warning"))
