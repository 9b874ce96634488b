"""Pods to schedule: plain Pods as they are, controllers expanded like their controllers would.

Names follow the controllers' patterns (Deployment `<name>-<hash>-<5>`, StatefulSet `<name>-<i>`,
Job/ReplicaSet/DaemonSet `<name>-<5>`), with deterministic hashes instead of random characters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from dractl.load.document import Document
from dractl.models import CONTROLLER_KINDS, Pod, model_of
from dractl.models.controllers import BY_KIND
from dractl.simulate.names import suffix, uid_for
from dractl.simulate.nodes import wanted_ports
from dractl.simulate.resources import pod_requests

__all__ = ["CONTROLLER_KINDS", "MAX_PODS", "PodInput", "TooManyPods", "expand_controller",
           "pod_from_document", "replica_count"]

# A replica count is a valid int32 up to 2^31: expanding it blindly would take the machine's
# memory. A dry run of more pods than this is not a dry run any more.
MAX_PODS = 200_000


class TooManyPods(Exception):
    def __init__(self, count: int):
        super().__init__(count)
        self.count = count


def replica_count(doc: Document) -> int:
    """How many pods a controller would create (DaemonSets: decided per node, reported as 0)."""
    if doc.kind in ("Deployment", "ReplicaSet", "StatefulSet"):
        spec = doc.data.get("spec") if isinstance(doc.data.get("spec"), dict) else {}
        return _int(spec.get("replicas"), 1)
    if doc.kind in ("Job", "CronJob"):
        spec = _at(doc.data, _job_spec_path(doc.kind))
        parallelism = _int(spec.get("parallelism"), 1)
        completions = spec.get("completions")
        return min(parallelism, _int(completions, parallelism)) if completions is not None else parallelism
    return 0


@dataclass(eq=False)
class PodInput:
    namespace: str
    name: str
    uid: str
    spec: dict[str, Any]
    status: dict[str, Any]
    labels: dict[str, str]
    source: Document            # the Pod or the controller it came from
    spec_path: tuple            # where `spec` lives inside source (for finding positions)
    owner: str = ""             # "Deployment/web" for expanded pods
    manifest: dict[str, Any] = field(default_factory=dict)  # the pod object as it would exist
    _requests: dict | None = field(default=None, init=False, repr=False)
    _ports: tuple | None = field(default=None, init=False, repr=False)

    def requests(self) -> dict:
        """The pod's resource requests, computed once (upstream's PodInfo caches its
        CalculateResource result the same way): NodeResourcesFit's PreFilter and the assume
        step both read them."""
        if self._requests is None:
            self._requests = pod_requests(self.spec)
        return self._requests

    def host_ports(self) -> tuple:
        """The host ports the pod takes on its node (NodePorts' PreFilter and the assume step)."""
        if self._ports is None:
            self._ports = wanted_ports(self.spec)
        return self._ports

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def pod_claims(self) -> list[dict]:
        claims = self.spec.get("resourceClaims")
        return [c for c in claims if isinstance(c, dict)] if isinstance(claims, list) else []

    def node_name(self) -> str:
        v = self.spec.get("nodeName")
        return v if isinstance(v, str) else ""


def _at(data: Any, path: tuple) -> dict:
    """The object at `path` ({} when something on the way is not an object)."""
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _template_path(kind: str) -> tuple:
    """Where the controller's pod template sits (dractl.models.controllers, the one table)."""
    return BY_KIND[kind].template_path


def _job_spec_path(kind: str) -> tuple:
    """Job and CronJob: the JobSpec that holds the template (its parallelism, completions)."""
    return _template_path(kind)[:-1]


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _pod_from_template(doc: Document, template: Any, template_path: tuple, name: str,
                       owner_kind: str, owner_name: str, owner_uid: str,
                       extra_spec: dict | None = None) -> PodInput | None:
    if not isinstance(template, dict) or not isinstance(template.get("spec"), dict):
        return None
    namespace = doc.namespace or "default"
    meta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    # Pod specs are read-only from here on: replicas share the template's nested objects.
    spec = dict(template["spec"])
    if extra_spec:
        spec.update(extra_spec)
    labels = dict(meta.get("labels") or {}) if isinstance(meta.get("labels"), dict) else {}
    uid = uid_for("Pod", namespace, name)
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid,
            **({"labels": labels} if labels else {}),
            "ownerReferences": [{"apiVersion": _owner_api(owner_kind), "kind": owner_kind,
                                 "name": owner_name, "uid": owner_uid, "controller": True,
                                 "blockOwnerDeletion": True}],
        },
        "spec": spec,
    }
    return PodInput(namespace, name, uid, spec, {}, labels, doc, template_path + ("spec",),
                    f"{doc.kind}/{doc.name}", manifest)


def _owner_api(kind: str) -> str:
    return "batch/v1" if kind in ("Job", "CronJob") else "apps/v1"


def pod_from_document(doc: Document) -> PodInput:
    data = doc.data
    namespace = doc.namespace or "default"
    meta = doc.metadata
    uid = meta.get("uid") if isinstance(meta.get("uid"), str) else uid_for("Pod", namespace, doc.name)
    pod = Pod.from_model(model_of(doc))
    if pod is not None:
        spec, labels, spec_path = pod.spec, dict(pod.labels), pod.spec_path
    else:  # spec is not an object (the schema reports it): nothing to read there
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        spec, labels, spec_path = {}, dict(labels), ("spec",)
    status = dict(data.get("status")) if isinstance(data.get("status"), dict) else {}
    if isinstance(status.get("resourceClaimStatuses"), list):
        status["resourceClaimStatuses"] = list(status["resourceClaimStatuses"])  # the run appends
    # The input document itself; reports copy it before filling in nodeName, namespace and uid.
    return PodInput(namespace, doc.name, uid, spec, status, labels, doc, spec_path, "", data)


def expand_controller(doc: Document, node_names: Iterable[str] = (),
                      budget: int = MAX_PODS) -> list[PodInput]:
    """Pods a controller would create. DaemonSets get one pod per node in `node_names`
    (the caller passes the nodes the DaemonSet's pods may run on). Raises TooManyPods when
    that is more than `budget`."""
    count = replica_count(doc)
    if count > budget:
        raise TooManyPods(count)
    kind, data = doc.kind, doc.data
    spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
    namespace = doc.namespace or "default"
    name = doc.name
    uid = doc.metadata.get("uid") or uid_for(kind, namespace, name)
    pods: list[PodInput] = []

    def add(pod_name, template, path, owner_kind, owner_name, owner_uid, extra=None):
        pod = _pod_from_template(doc, template, path, pod_name, owner_kind, owner_name,
                                 owner_uid, extra)
        if pod is not None:
            pods.append(pod)

    template_path = _template_path(kind)
    template = _at(data, template_path[:-1]).get(template_path[-1])
    if kind == "Deployment":
        rs_name = f"{name}-{suffix('rs/' + namespace + '/' + name, 10)}"
        rs_uid = uid_for("ReplicaSet", namespace, rs_name)
        for i in range(_int(spec.get("replicas"), 1)):
            add(f"{rs_name}-{suffix(f'{rs_name}/{i}')}", template, template_path,
                "ReplicaSet", rs_name, rs_uid)
    elif kind == "ReplicaSet":
        for i in range(_int(spec.get("replicas"), 1)):
            add(f"{name}-{suffix(f'{namespace}/{name}/{i}')}", template, template_path,
                "ReplicaSet", name, uid)
    elif kind == "StatefulSet":
        for i in range(_int(spec.get("replicas"), 1)):
            add(f"{name}-{i}", template, template_path, "StatefulSet", name, uid,
                {"hostname": f"{name}-{i}"})
    elif kind == "Job":
        pods.extend(_job_pods(doc, template_path, name, uid))
    elif kind == "CronJob":
        # The CronJob controller names a job after its scheduled time in minutes; one job here.
        job_name = f"{name}-{int(suffix('cron/' + name, 8).encode().hex(), 16) % 10**8:08d}"
        pods.extend(_job_pods(doc, template_path, job_name, uid_for("Job", namespace, job_name)))
    elif kind == "DaemonSet":
        tolerations = daemonset_tolerations(template)
        for node in node_names:
            affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}
            add(f"{name}-{suffix(f'{namespace}/{name}/{node}')}", template, template_path,
                "DaemonSet", name, uid, {"affinity": affinity, "tolerations": tolerations})
    return pods


# The DaemonSet controller adds these tolerations to every daemon pod (and the network one for
# hostNetwork pods), so daemons run on cordoned and pressured nodes.
_DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)


def daemonset_tolerations(template: Any) -> list[dict]:
    spec = template.get("spec") if isinstance(template, dict) and isinstance(template.get("spec"), dict) else {}
    tolerations = [t for t in spec.get("tolerations") or [] if isinstance(t, dict)]
    wanted = list(_DAEMON_TOLERATIONS)
    if spec.get("hostNetwork") is True:
        wanted.append(("node.kubernetes.io/network-unavailable", "NoSchedule"))
    for key, effect in wanted:
        if not any(t.get("key") == key and t.get("effect") == effect for t in tolerations):
            tolerations.append({"key": key, "operator": "Exists", "effect": effect})
    return tolerations


def _job_pods(doc: Document, template_path: tuple, job_name: str,
              job_uid: str) -> list[PodInput]:
    spec = _at(doc.data, template_path[:-1])
    count = replica_count(doc)
    pods = []
    namespace = doc.namespace or "default"
    for i in range(count):
        pod = _pod_from_template(doc, spec.get("template"), template_path,
                                 f"{job_name}-{suffix(f'{namespace}/{job_name}/{i}')}", "Job",
                                 job_name, job_uid)
        if pod is not None:
            pods.append(pod)
    return pods
