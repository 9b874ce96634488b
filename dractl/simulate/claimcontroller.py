"""The resourceclaim controller, simulated: finds each pod claim's ResourceClaim, creating it from
its template when the controller would have (docs/spec/api-and-scheduling.md#podgroup-claims,
#other-components), one claim per PodGroup for group claims (KEP-5729), and records the names in the
pod's (and group's) status.resourceClaimStatuses. Runs lazily, when the scheduler's DynamicResources
PreFilter asks for a pod's claims; every change goes through the cluster journal.
"""

from __future__ import annotations

import copy
from typing import Any

from dractl.api.releases import in_force
from dractl.api.resource import ModelError, ResourceClaim
from dractl.models import ClaimTemplate
from dractl.simulate import reasons as R
from dractl.simulate.cluster import ClusterState
from dractl.simulate.explain import validation_details
from dractl.simulate.groups import PodGroupInfo
from dractl.simulate.names import claim_generate_name, generated_name, uid_for
from dractl.simulate.pods import PodInput
from dractl.simulate.state import CLAIM_ERROR, ClaimState, PodClaimRef, PodResult, Reason


class ClaimProblem(Exception):
    """The pod's claims cannot be resolved; no node can change that."""

    def __init__(self, reason: Reason):
        super().__init__(reason.message)
        self.reason = reason


class ClaimController:
    def __init__(self, cluster: ClusterState) -> None:
        self.cluster = cluster
        self.gates = cluster.gates
        self.withholds_group_claims = in_force("podgroup_claims_withheld", cluster.gates.version)

    def resolve(self, pod: PodInput, result: PodResult) -> list[PodClaimRef]:
        """The pod's claims in spec order (None where the controller decided none is needed).
        Raises ClaimProblem."""
        refs: list[PodClaimRef] = []
        statuses = {s.get("name"): s for s in pod.status.get("resourceClaimStatuses") or []
                    if isinstance(s, dict)}
        group = result.group
        withheld = None  # podgroup_claims_withheld, gate off: the PodGroup whose matching claims get no per-pod claim
        if group is None or not group.standalone or not self.gates.enabled("DRAWorkloadResourceClaims"):
            if group is not None and group.standalone and self.withholds_group_claims:
                withheld = group
            group = None
        for entry in pod.pod_claims():
            name = entry.get("name")
            shared = group is not None and group.matching_claim(entry) is not None
            if entry.get("resourceClaimName"):
                claim = self._named_claim(pod, entry)
            elif entry.get("resourceClaimTemplateName"):
                if withheld is not None and withheld.matching_claim(entry) is not None \
                        and statuses.get(name) is None:
                    raise ClaimProblem(_withheld_claim(pod, withheld, name))
                if shared:
                    claim = self._group_claim(pod, group, entry)
                else:
                    claim = self._claim_from_template(pod, entry, statuses.get(name), result)
                if claim is None:
                    refs.append(PodClaimRef(name, None))
                    continue
            else:
                raise ClaimProblem(Reason(R.CLAIM_SOURCE, f"pod \"{pod.key}\", spec.resourceClaim "
                                          f"\"{name}\": none of the supported fields are set"))
            self._check_usable(claim)
            claim.referenced = True
            refs.append(PodClaimRef(name, claim, "podgroup" if shared else "pod"))
        return refs

    def _named_claim(self, pod: PodInput, entry: dict) -> ClaimState:
        claim = self.cluster.claims.get((pod.namespace, entry["resourceClaimName"]))
        if claim is None:
            raise ClaimProblem(Reason(R.CLAIM_NOT_FOUND, f"resourceclaim.resource.k8s.io "
                                      f"\"{entry['resourceClaimName']}\" not found",
                                      details=(f"pod claim {entry.get('name')} names ResourceClaim "
                                               f"{pod.namespace}/{entry['resourceClaimName']}, "
                                               "which is not among the inputs",)))
        return claim

    def _check_usable(self, claim: ClaimState) -> None:
        if claim.deleting:
            raise ClaimProblem(Reason(R.CLAIM_DELETING, f"resourceclaim \"{claim.name}\" is being deleted"))
        if claim.status == CLAIM_ERROR and claim.model is None or (
                claim.source is not None and id(claim.source) in self.cluster.invalid):
            raise ClaimProblem(Reason(R.CLAIM_INVALID, f"ResourceClaim {claim.ref} has validation errors",
                                      details=validation_details(self.cluster, claim.source)))

    def _group_claim(self, pod: PodInput, group: PodGroupInfo, entry: dict) -> ClaimState:
        """KEP-5729: one claim per PodGroup from a template, shared by every member pod."""
        name = entry["name"]
        claim_name = group.claim_statuses.get(name)
        if claim_name:
            claim = self.cluster.claims.get((pod.namespace, claim_name))
            if claim is None:
                raise ClaimProblem(Reason(R.CLAIM_NOT_FOUND, f"resourceclaim.resource.k8s.io "
                                          f"\"{claim_name}\" not found",
                                          details=(f"PodGroup {group.name} records it in "
                                                   "status.resourceClaimStatuses",)))
        else:
            template = self._template(pod, entry)
            owner = {"apiVersion": group.api_version or "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
                     "name": group.name, "uid": group.uid, "controller": True,
                     "blockOwnerDeletion": True}
            claim = self._generate_claim(pod.namespace, group.name, name, template, owner,
                                         f"podgroup/{group.uid}/{name}")
            self.cluster.journal.set_item(group.claim_statuses, name, claim.name)
        if not any(s.get("name") == name for s in pod.status.get("resourceClaimStatuses") or []):
            self._record_pod_claim_status(pod, name, claim.name)
        return claim

    def _template(self, pod: PodInput, entry: dict) -> dict:
        template_name = entry["resourceClaimTemplateName"]
        template = self.cluster.templates.get((pod.namespace, template_name))
        if template is None:
            raise ClaimProblem(Reason(R.TEMPLATE_NOT_FOUND, f"resourceclaimtemplate.resource.k8s.io "
                                      f"\"{template_name}\" not found",
                                      details=(f"pod claim {entry['name']}: ResourceClaimTemplate "
                                               f"{pod.namespace}/{template_name} is not among the inputs; "
                                               "the resourceclaim controller cannot create the claim",)))
        if template["invalid"]:
            raise ClaimProblem(Reason(R.CLAIM_INVALID, f"ResourceClaimTemplate {pod.namespace}/"
                                      f"{template_name} has validation errors",
                                      details=validation_details(self.cluster, template["doc"])))
        return template

    def _claim_from_template(self, pod: PodInput, entry: dict, status: dict | None,
                             result: PodResult) -> ClaimState | None:
        name = entry["name"]
        if status is not None:
            return self._recorded_claim(pod, status, result)
        if not self.cluster.options.simulate_controllers:
            raise ClaimProblem(Reason(R.CLAIM_NOT_CREATED, f"pod \"{pod.key}\": ResourceClaim not created yet",
                                      details=(f"dractl: pod claim {name} is to be created from "
                                               f"ResourceClaimTemplate {pod.namespace}/"
                                               f"{entry.get('resourceClaimTemplateName')}, and "
                                               "--no-controller-simulation leaves the resourceclaim "
                                               "controller out",)))
        template = self._template(pod, entry)
        owner = {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid,
                 "controller": True, "blockOwnerDeletion": True}
        claim = self._generate_claim(pod.namespace, pod.name, name, template, owner,
                                     f"{pod.uid}/{name}")
        self._record_pod_claim_status(pod, name, claim.name)
        return claim

    def _recorded_claim(self, pod: PodInput, status: dict, result: PodResult) -> ClaimState | None:
        """The claim the pod's status names: it must exist and be owned by the pod (or its group)."""
        claim_name = status.get("resourceClaimName")
        if not claim_name:
            return None  # the controller decided no claim is needed
        claim = self.cluster.claims.get((pod.namespace, claim_name))
        if claim is None:
            raise ClaimProblem(Reason(R.CLAIM_NOT_FOUND, f"resourceclaim.resource.k8s.io \"{claim_name}\" "
                                      "not found"))
        owners = claim.owner_uids()
        if any(uid == pod.uid and kind == "Pod" for kind, _, uid in owners):
            return claim
        group = result.group
        if group is not None and self.gates.enabled("DRAWorkloadResourceClaims"):
            if any(kind == "PodGroup" and owner == group.name for kind, owner, _ in owners):
                return claim
            raise ClaimProblem(Reason(R.CLAIM_NOT_OWNED, f"ResourceClaim {claim.ref} was not created "
                                      f"for Pod {pod.key} (neither Pod nor PodGroup {group.name} is "
                                      "the owner)"))
        raise ClaimProblem(Reason(R.CLAIM_NOT_OWNED, f"ResourceClaim {claim.ref} was not created "
                                  f"for Pod {pod.key} (Pod is not owner)"))

    def _record_pod_claim_status(self, pod: PodInput, pod_claim: str, claim_name: str) -> None:
        statuses = pod.status.setdefault("resourceClaimStatuses", [])
        self.cluster.journal.append(statuses, {"name": pod_claim, "resourceClaimName": claim_name})

    def _generate_claim(self, namespace: str, owner_name: str, pod_claim: str, template: dict,
                        owner_ref: dict, seed: str) -> ClaimState:
        """What the resourceclaim controller creates from a template (docs 3.14, 3.13)."""
        source: ClaimTemplate = template["template"]
        generate_name = claim_generate_name(owner_name, pod_claim)
        claim_name = generated_name(generate_name, seed)
        meta: dict[str, Any] = {"name": claim_name, "generateName": generate_name,
                                "namespace": namespace,
                                "uid": uid_for("ResourceClaim", namespace, claim_name)}
        if source.labels:
            meta["labels"] = copy.deepcopy(source.labels)
        annotations = copy.deepcopy(source.annotations) if source.annotations else {}
        meta["annotations"] = {**annotations, "resource.kubernetes.io/pod-claim-name": pod_claim}
        meta["ownerReferences"] = [owner_ref]
        # The spec is shared with the template (read-only; reports copy before printing).
        manifest = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
                    "spec": source.spec or {}}
        model = self._template_model(template, manifest, namespace, source.name)
        model = model.renamed(claim_name, namespace, meta["uid"])
        state = ClaimState(namespace, claim_name, meta["uid"], manifest, model, template["doc"],
                           generated=True, touched=True)
        self.cluster.add_claim(state)
        return state

    @staticmethod
    def _template_model(template: dict, manifest: dict, namespace: str, name: str) -> ResourceClaim:
        model = template.get("model")
        if model is None:  # parse the template's claim spec once, then only rename
            try:
                model = template["model"] = ResourceClaim.from_dict(manifest)
            except (ModelError, ValueError, TypeError) as exc:
                raise ClaimProblem(Reason(R.MODEL, f"claim from template {namespace}/"
                                          f"{name}: {exc}")) from None
        return model


def _withheld_claim(pod: PodInput, group: PodGroupInfo, pod_claim: str) -> Reason:
    """1.37's resourceclaim controller (#138363) with DRAWorkloadResourceClaims off: a pod claim
    that matches an entry of its PodGroup's spec.resourceClaims gets no per-pod claim (the
    controller cannot know whether the claim was meant for the whole group), so the pod waits
    for a claim that is never created. Up to 1.36 the pod got its own claim."""
    return Reason(R.CLAIM_NOT_CREATED, f"pod \"{pod.key}\": ResourceClaim not created yet", details=(
        f"dractl: pod claim {pod_claim} matches an entry of PodGroup {group.name}'s "
        "spec.resourceClaims, and with DRAWorkloadResourceClaims disabled the Kubernetes 1.37 "
        "resourceclaim controller creates neither the PodGroup's claim nor a per-pod one; enable "
        "DRAWorkloadResourceClaims (kube-apiserver, kube-controller-manager, kube-scheduler) or "
        "give the pod claim another name",
        "the API server drops spec.resourceClaims of a PodGroup created while the gate is off, "
        "so this happens to PodGroups stored while it was on"))
