"""Pod groups: who belongs together, with which policy, and which claims the group shares.

Two API shapes (docs/api-and-scheduling.md 1.7):
* 1.35 (scheduling.k8s.io/v1alpha1): a Workload lists `spec.podGroups` (basic or gang policy);
  pods join with `spec.workloadRef {name, podGroup, podGroupReplicaKey}`; a group instance is
  (workload, podGroup, replicaKey). No DRA fields.
* 1.36+ (v1alpha2, v1alpha3, v1beta1): standalone PodGroup objects (policy in
  `spec.schedulingPolicy`, shared claims in `spec.resourceClaims` behind
  DRAWorkloadResourceClaims); pods join with `spec.schedulingGroup.podGroupName`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dractl.load.document import Document
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


def _policy(spec: Any) -> tuple[str, int]:
    policy = spec.get("schedulingPolicy") if isinstance(spec, dict) else None
    if not isinstance(policy, dict):
        policy = spec.get("policy") if isinstance(spec, dict) else None  # 1.35 field name
    if isinstance(policy, dict) and isinstance(policy.get("gang"), dict):
        count = policy["gang"].get("minCount")
        return "gang", count if isinstance(count, int) and not isinstance(count, bool) else 0
    return "basic", 0


class GroupIndex:
    """Workloads and PodGroups of the input, and pod membership."""

    def __init__(self) -> None:
        self.pod_groups: dict[tuple[str, str], PodGroupInfo] = {}
        self.workloads: dict[tuple[str, str], dict] = {}
        self._instances: dict[tuple, PodGroupInfo] = {}

    def add(self, doc: Document) -> None:
        ns = doc.namespace or "default"
        data = doc.data
        spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
        if doc.kind == "Workload":
            self.workloads[(ns, doc.name)] = {"doc": doc, "spec": spec}
        elif doc.kind == "PodGroup":
            policy, min_count = _policy(spec)
            if not spec.get("schedulingPolicy"):
                policy, min_count = self._template_policy(ns, spec, doc.api_version) or (policy, min_count)
            meta = doc.metadata
            claims = [c for c in spec.get("resourceClaims") or [] if isinstance(c, dict)]
            status = data.get("status") if isinstance(data.get("status"), dict) else {}
            info = PodGroupInfo(ns, doc.name, meta.get("uid") or uid_for("PodGroup", ns, doc.name),
                                policy, min_count, claims, doc.api_version, True, doc)
            for s in status.get("resourceClaimStatuses") or []:
                if isinstance(s, dict) and s.get("name") and s.get("resourceClaimName"):
                    info.claim_statuses[s["name"]] = s["resourceClaimName"]
            self.pod_groups[(ns, doc.name)] = info

    def _template_policy(self, ns: str, spec: dict, api_version: str) -> tuple[str, int] | None:
        """A PodGroup may leave its policy to the Workload template it was created from. The
        reference's shape is its API version's: v1alpha2 (1.36)
        `spec.podGroupTemplateRef.workload{workloadName, podGroupTemplateName}`; v1alpha3 and
        v1beta1 (1.37, #140080) `spec.workloadRef{workloadName, templateName}`."""
        if api_version.endswith("/v1alpha2"):
            ref = spec.get("podGroupTemplateRef")
            ref = ref.get("workload") if isinstance(ref, dict) else None
            template_key = "podGroupTemplateName"
        else:
            ref = spec.get("workloadRef")
            template_key = "templateName"
        if not isinstance(ref, dict):
            return None
        workload = self.workloads.get((ns, ref.get("workloadName") or ""))
        template_name = ref.get(template_key)
        if workload is None:
            return None
        for t in workload["spec"].get("podGroupTemplates") or []:
            if isinstance(t, dict) and t.get("name") == template_name:
                return _policy(t)
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
                policy, min_count = _policy(template)
                name = "/".join(p for p in (ref["name"], group_name, replica) if p)
                group = PodGroupInfo(namespace, name, uid_for("WorkloadGroup", namespace, name),
                                     policy, min_count, [], workload["doc"].api_version, False,
                                     workload["doc"])
                self._instances[key] = group
            return group, None
        return None, None
