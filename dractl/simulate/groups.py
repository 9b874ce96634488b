"""Pod groups: who belongs together, with which policy, and which claims the group shares.

Two API shapes (docs/spec/api-and-scheduling.md#workloads):
* 1.35 (scheduling.k8s.io/v1alpha1): a Workload lists `spec.podGroups` (basic or gang policy);
  pods join with `spec.workloadRef {name, podGroup, podGroupReplicaKey}`; a group instance is
  (workload, podGroup, replicaKey). No DRA fields.
* 1.36+ (v1alpha2, v1alpha3, v1beta1): standalone PodGroup objects (policy in
  `spec.schedulingPolicy`, shared claims in `spec.resourceClaims` behind
  DRAWorkloadResourceClaims); pods join with `spec.schedulingGroup.podGroupName`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dractl.load.document import Document
from dractl.models import PodGroup, model_of
from dractl.models.workloads import scheduling_policy
from dractl.simulate.names import uid_for


@dataclass(eq=False)
class PodGroupInfo:
    namespace: str
    name: str                       # PodGroup name (1.36+) or "<workload>/<group>[/<replicaKey>]"
    uid: str
    policy: str = "basic"           # basic | gang
    min_count: int = 0
    resource_claims: list[dict] = field(default_factory=list)   # PodGroupResourceClaim entries
    api_version: str = ""
    standalone: bool = True         # a PodGroup object (1.36+), not a 1.35 Workload group
    source: Document | None = None
    # name in resourceClaims -> generated claim name (status.resourceClaimStatuses)
    claim_statuses: dict[str, str] = field(default_factory=dict)
    members: list = field(default_factory=list)                  # PodResult, input order

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)

    @property
    def reservation(self) -> dict:
        return {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": self.name,
                "uid": self.uid}

    def matching_claim(self, entry: dict) -> dict | None:
        """KEP-5729: a pod claim matches a group claim when name, resourceClaimName and
        resourceClaimTemplateName are all equal (unset equals unset)."""
        for claim in self.resource_claims:
            if all((claim.get(k) or None) == (entry.get(k) or None)
                   for k in ("name", "resourceClaimName", "resourceClaimTemplateName")):
                return claim
        return None


class GroupIndex:
    """Workloads and PodGroups of the input, and pod membership."""

    def __init__(self) -> None:
        self.pod_groups: dict[tuple[str, str], PodGroupInfo] = {}
        self.workloads: dict[tuple[str, str], dict] = {}
        self._instances: dict[tuple, PodGroupInfo] = {}

    def add(self, doc: Document) -> None:
        model = model_of(doc)
        if doc.kind == "Workload":
            data = doc.data
            spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
            self.workloads[(doc.namespace or "default", doc.name)] = {"doc": doc, "spec": spec}
        elif doc.kind == "PodGroup":
            group = PodGroup.from_model(model)
            policy, min_count = group.policy, group.min_count
            if not group.policy_set:
                policy, min_count = self._template_policy(group) or (policy, min_count)
            ns = group.namespace
            info = PodGroupInfo(ns, doc.name, group.uid or uid_for("PodGroup", ns, doc.name),
                                policy, min_count, list(group.resource_claims), doc.api_version,
                                True, doc, dict(group.claim_statuses))
            self.pod_groups[(ns, doc.name)] = info

    def _template_policy(self, group: PodGroup) -> tuple[str, int] | None:
        # A PodGroup may leave its policy to the Workload template it was created from.
        ref = group.template_ref
        workload = self.workloads.get((group.namespace, ref.get("workloadName") or ""))
        if workload is None:
            return None
        for t in workload["spec"].get("podGroupTemplates") or []:
            if isinstance(t, dict) and t.get("name") == ref.get("templateName"):
                return scheduling_policy(t)
        return None

    def group_of(self, pod_spec: dict, namespace: str) -> tuple[PodGroupInfo | None, str | None]:
        """(group, problem). problem: why the pod cannot be enqueued (PreEnqueue message)."""
        sg = pod_spec.get("schedulingGroup")
        if isinstance(sg, dict) and isinstance(sg.get("podGroupName"), str):
            name = sg["podGroupName"]
            group = self.pod_groups.get((namespace, name))
            if group is None:
                return None, f"waiting for pods's pod group \"{name}\" to appear in scheduling queue"
            return group, None
        ref = pod_spec.get("workloadRef")
        if isinstance(ref, dict) and isinstance(ref.get("name"), str):
            workload = self.workloads.get((namespace, ref["name"]))
            if workload is None:
                return None, f"waiting for pods's workload \"{ref['name']}\" to appear in scheduling queue"
            group_name = ref.get("podGroup") or ""
            template = next((g for g in workload["spec"].get("podGroups") or []
                             if isinstance(g, dict) and g.get("name") == group_name), None)
            if template is None:
                return None, f"pod group \"{group_name}\" doesn't exist for a workload \"{ref['name']}\""
            replica = ref.get("podGroupReplicaKey") or ""
            key = (namespace, ref["name"], group_name, replica)
            group = self._instances.get(key)
            if group is None:
                policy, min_count = scheduling_policy(template)
                name = "/".join(p for p in (ref["name"], group_name, replica) if p)
                group = PodGroupInfo(namespace, name, uid_for("WorkloadGroup", namespace, name),
                                     policy, min_count, [], workload["doc"].api_version, False,
                                     workload["doc"])
                self._instances[key] = group
            return group, None
        return None, None
