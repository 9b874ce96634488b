"""Codes of the dry run's reasons (DRA5xxx): why a pod or claim did not get devices, and
warnings about placements that would work but deserve attention."""

from dractl.findings import ERROR, INFO, WARNING, register

_S = "scheduler"
_D = "dractl"

NO_NODE_FITS = register("DRA5001", ERROR, "no node fits the pod (kube-scheduler's FailedScheduling "
                        "summary, with dractl's per-node explanation)", _S)
CLAIM_NOT_FOUND = register("DRA5002", ERROR, "a ResourceClaim the pod references does not exist", _S)
TEMPLATE_NOT_FOUND = register("DRA5003", ERROR, "a ResourceClaimTemplate the pod references does not "
                              "exist", _S)
CLAIM_DELETING = register("DRA5004", ERROR, "the claim is being deleted", _S)
CLAIM_NOT_OWNED = register("DRA5005", ERROR, "a generated claim is not owned by the pod", _S)
CLAIM_NOT_CREATED = register("DRA5006", ERROR, "the claim from a template was not created yet "
                             "(--no-controller-simulation)", _S)
CLAIM_SOURCE = register("DRA5007", ERROR, "a pod claim sets neither resourceClaimName nor "
                        "resourceClaimTemplateName", _S)
CLASS_NOT_FOUND = register("DRA5008", ERROR, "a request names a DeviceClass that does not exist", _S)
GATE_DISABLED = register("DRA5009", ERROR, "a request uses firstAvailable while DRAPrioritizedList is "
                         "disabled", _S)
UNKNOWN_REQUEST = register("DRA5010", ERROR, "a request has neither exactly nor firstAvailable", _S)
ALLOCATOR_ERROR = register("DRA5011", ERROR, "the allocator failed with an error (aborts the "
                           "scheduling attempt)", _S)
RESERVED_FOR_FULL = register("DRA5012", ERROR, "the claim's reservedFor already holds 256 entries", _S)
NODE_NOT_FOUND = register("DRA5013", ERROR, "the pod's spec.nodeName (or --node) names no known node", _S)
NO_NODES = register("DRA5014", ERROR, "the inventory has no nodes", _D)
UNSATISFIABLE = register("DRA5015", ERROR, "unreferenced claims cannot be allocated on any node", _S)
CLAIM_INVALID = register("DRA5016", ERROR, "the claim or its template has validation errors", _D)
POD_INVALID = register("DRA5017", ERROR, "the pod or its controller has validation errors", _D)
ADMIN_NAMESPACE = register("DRA5018", ERROR, "admin access requested in a namespace without the "
                           "admin-access label", "apiserver")
MODEL = register("DRA5019", ERROR, "an object cannot be used by the dry run (e.g. an unparsable "
                 "quantity)", _D)
NOT_ENQUEUED = register("DRA5020", ERROR, "the pod's PodGroup or Workload does not exist: PreEnqueue "
                        "keeps it out of the queue", _S)
GANG = register("DRA5021", ERROR, "gang scheduling: fewer than minCount members could be placed "
                "together (or were given)", _S)
TAINTED_CLAIM = register("DRA5022", ERROR, "an allocated claim has a device with an untolerated "
                         "NoExecute taint: the scheduler lets no new pod reserve it", _S)
TOO_MANY_PODS = register("DRA5023", ERROR, "a controller would create more pods than a dry run "
                         "expands (200,000 in all)", _D)
BINDING_CONDITIONS = register("DRA5101", WARNING, "the pod would wait for device binding conditions", _S)
NODE_NAME_BYPASS = register("DRA5102", WARNING, "the pod sets spec.nodeName and bypasses the scheduler",
                            _D)
ADMIN_NAMESPACE_UNKNOWN = register("DRA5103", WARNING, "admin access requested; the namespace's "
                                   "label cannot be checked (no Namespace object)", _D)
NODE_INFERRED = register("DRA5104", WARNING, "nodes named by slices have no Node object", _D)
EVICTION = register("DRA5105", WARNING, "an allocated device has a NoExecute taint the claim does not "
                    "tolerate: the pod would be evicted", _S)
INFO_UNUSED = INFO

# Failures kube-scheduler meets as an Error status (a Filter or PreBind error), not as a
# rejection: the pod's PodScheduled condition says SchedulerError (handleSchedulingFailure).
SCHEDULER_ERRORS = frozenset({ALLOCATOR_ERROR, RESERVED_FOR_FULL})
