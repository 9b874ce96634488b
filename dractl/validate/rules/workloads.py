"""Workload and PodGroup, scheduling.k8s.io (docs/spec/api-and-scheduling.md#workloads,
#workload-validation). Codes 15xx.

Upstream validates these kinds declaratively and the exact texts were not verified [wording?], so
the messages use apimachinery's generic forms. Shapes of every served version are accepted:
1.35 `spec.podGroups[].policy`, 1.36+ `spec.podGroupTemplates[].schedulingPolicy` and standalone
PodGroups.
"""

from __future__ import annotations

from dractl.api.limits import (
    POD_GROUP_CLAIMS_MAX,
    POD_GROUPS_MAX,
)
from dractl.api.versions import gate_specs
from dractl.findings import ERROR, register

from . import common
from ._base import (
    BAD,
    Emitter,
    duplicate,
    forbidden,
    get_int,
    get_list,
    get_obj,
    get_opt_str,
    get_str,
    invalid,
    is_int,
    required,
    too_many,
    unsupported,
)
from ._formats import check_dns_label, check_dns_subdomain

C_GROUPS_COUNT = register("DRA1501", ERROR, "a Workload needs 1 to 8 pod groups / templates")
C_GROUP_NAME = register("DRA1502", ERROR, "pod group / template name missing, invalid or repeated")
C_POLICY = register("DRA1503", ERROR, "scheduling policy must set exactly one of basic or gang")
C_MIN_COUNT = register("DRA1504", ERROR, "gang minCount must be at least 1")
C_CLAIMS_MAX = register("DRA1505", ERROR, "a pod group has more than 4 resourceClaims")
C_CLAIM_NAME = register("DRA1506", ERROR, "pod group resourceClaims[].name missing, invalid or "
                                          "repeated")
C_CLAIM_SOURCE = register("DRA1507", ERROR,
                          "pod group claim needs exactly one of resourceClaimName and "
                          "resourceClaimTemplateName, each a DNS subdomain")
C_CLAIMS_GATE = register("DRA1508", ERROR,
                         "pod group resourceClaims while DRAWorkloadResourceClaims is disabled")
C_CLAIM_STATUS = register("DRA1509", ERROR,
                          "PodGroup status.resourceClaimStatuses: more than 4, or names that match "
                          "no spec claim")
C_TOPOLOGY = register("DRA1510", ERROR, "schedulingConstraints.topology has more than 1 entry")
C_PRIORITY = register("DRA1511", ERROR, "priority out of range or invalid priorityClassName")
C_DISRUPTION = register("DRA1512", ERROR, "disruptionMode is not a supported value")
C_WORKLOAD_REF = register("DRA1513", ERROR,
                          "PodGroup workloadRef (1.37) / podGroupTemplateRef (1.36): workload or "
                          "template name missing or invalid")

_PRIORITY_MIN = -2147483648
_PRIORITY_MAX = 1000000000


def _gate_kind(em: Emitter, kind: str) -> None:
    if "GenericWorkload" not in gate_specs(em.ctx.kube_version):
        return  # the pipeline reports kinds a version does not serve
    if not common.gate_enabled(em, "GenericWorkload"):
        em.add(common.C_GATE_KIND, f"{kind} is only served when feature gate GenericWorkload is "
                                   f"enabled; it is disabled for Kubernetes {em.ctx.kube_version} "
                                   "with the selected --feature-gates", ("kind",))


def check_workload(em: Emitter, doc: dict) -> None:
    _gate_kind(em, "Workload")
    common.check_object_name(em, doc, namespaced=True)
    spec = get_obj(doc, "spec")
    if not isinstance(spec, dict):
        return
    legacy = "podGroups" in spec and "podGroupTemplates" not in spec
    field_name = "podGroups" if legacy or not em.in_force("pod_scheduling_group") else "podGroupTemplates"
    groups = get_list(spec, field_name)
    if groups is BAD:
        return
    path = ("spec", field_name)
    if not groups:
        if not spec.get("compositePodGroupTemplates"):
            em.add(C_GROUPS_COUNT, required(), path)
        return
    if len(groups) > POD_GROUPS_MAX:
        em.add(C_GROUPS_COUNT, too_many(len(groups), POD_GROUPS_MAX), path)
        return
    seen: set = set()
    for i, group in enumerate(groups):
        if not isinstance(group, dict):
            continue
        gpath = path + (i,)
        name = get_str(group, "name")
        if name == "":
            em.add(C_GROUP_NAME, required(), gpath + ("name",))
        elif name is not BAD:
            check_dns_label(em, C_GROUP_NAME, name, gpath + ("name",))
            if name in seen:
                em.add(C_GROUP_NAME, duplicate(name), gpath + ("name",))
            seen.add(name)
        _check_group_spec(em, group, gpath, "policy" if field_name == "podGroups"
                          else "schedulingPolicy")


def check_pod_group(em: Emitter, doc: dict) -> None:
    _gate_kind(em, "PodGroup")
    common.check_object_name(em, doc, namespaced=True)
    spec = get_obj(doc, "spec")
    names: set = set()
    if isinstance(spec, dict):
        _check_group_spec(em, spec, ("spec",), "schedulingPolicy")
        _check_workload_ref(em, spec)
        claims = get_list(spec, "resourceClaims")
        if claims is not BAD:
            names = {c.get("name") for c in claims
                     if isinstance(c, dict) and isinstance(c.get("name"), str)}
    status = get_obj(doc, "status")
    if isinstance(status, dict):
        statuses = get_list(status, "resourceClaimStatuses")
        if statuses is BAD:
            return
        path = ("status", "resourceClaimStatuses")
        if len(statuses) > POD_GROUP_CLAIMS_MAX:
            em.add(C_CLAIM_STATUS, too_many(len(statuses), POD_GROUP_CLAIMS_MAX), path)
            return
        seen: set = set()
        for i, entry in enumerate(statuses):
            name = get_str(entry, "name") if isinstance(entry, dict) else BAD
            if name is BAD:
                continue
            if name not in names:
                em.add(C_CLAIM_STATUS, invalid(name, "must match the name of an entry in "
                                                     "`spec.resourceClaims`"), path + (i, "name"))
            if name in seen:
                em.add(C_CLAIM_STATUS, duplicate(name), path + (i, "name"))
            seen.add(name)
            claim_name = get_opt_str(entry, "resourceClaimName")
            if isinstance(claim_name, str):
                check_dns_subdomain(em, C_CLAIM_STATUS, claim_name, path + (i, "resourceClaimName"))


def _check_workload_ref(em: Emitter, spec: dict) -> None:
    """The PodGroup's link to the Workload template it was created from (optional).

    1.37 (scheduling.k8s.io v1alpha3 and v1beta1, #140080): `spec.workloadRef{workloadName,
    templateName}`, both required, a DNS subdomain and a DNS label. 1.36 (v1alpha2):
    `spec.podGroupTemplateRef.workload{workloadName, podGroupTemplateName}`. The release serving
    the other shape reports the field as unknown (schema check). Messages: apimachinery's generic
    forms (the declarative texts were not read).
    """
    if em.in_force("podgroup_workload_ref"):
        ref, path = get_obj(spec, "workloadRef"), ("spec", "workloadRef")
        template_key = "templateName"
    else:
        ref = get_obj(get_obj(spec, "podGroupTemplateRef"), "workload")
        path, template_key = ("spec", "podGroupTemplateRef", "workload"), "podGroupTemplateName"
    if not isinstance(ref, dict):
        return
    # Absent names are the schema's DRA0103 (required properties); the rules report "".
    workload = get_str(ref, "workloadName")
    if workload == "" and "workloadName" in ref:
        em.add(C_WORKLOAD_REF, required(), path + ("workloadName",))
    elif workload is not BAD:
        check_dns_subdomain(em, C_WORKLOAD_REF, workload, path + ("workloadName",))
    template = get_str(ref, template_key)
    if template == "" and template_key in ref:
        em.add(C_WORKLOAD_REF, required(), path + (template_key,))
    elif template is not BAD:
        check_dns_label(em, C_WORKLOAD_REF, template, path + (template_key,))


def _check_group_spec(em: Emitter, group: dict, path: tuple, policy_key: str) -> None:
    policy = get_obj(group, policy_key)
    if policy is not BAD:
        _check_policy(em, policy or {}, path + (policy_key,))
    constraints = get_obj(group, "schedulingConstraints")
    if isinstance(constraints, dict):
        topology = get_list(constraints, "topology")
        if topology is not BAD and len(topology) > 1:
            em.add(C_TOPOLOGY, too_many(len(topology), 1),
                   path + ("schedulingConstraints", "topology"))
    claims = get_list(group, "resourceClaims")
    if claims is not BAD and claims:
        _check_claims(em, claims, path + ("resourceClaims",))
    priority = group.get("priority")
    if is_int(priority) and not _PRIORITY_MIN <= priority <= _PRIORITY_MAX:
        em.add(C_PRIORITY, invalid(priority, f"must be between {_PRIORITY_MIN} and {_PRIORITY_MAX}, "
                                             "inclusive"), path + ("priority",))
    class_name = get_opt_str(group, "priorityClassName")
    if isinstance(class_name, str) and class_name:
        check_dns_subdomain(em, C_PRIORITY, class_name, path + ("priorityClassName",))
    mode = group.get("disruptionMode")
    if isinstance(mode, str) and mode not in ("Pod", "PodGroup"):
        em.add(C_DISRUPTION, unsupported(mode, ["Pod", "PodGroup"]), path + ("disruptionMode",))
    elif isinstance(mode, dict):
        members = [k for k in ("single", "all") if mode.get(k) is not None]
        if len(members) != 1:
            em.add(C_DISRUPTION, invalid(None if not members else mode,
                                         "must specify exactly one of: `single`, `all`"),
                   path + ("disruptionMode",))


def _check_policy(em: Emitter, policy: dict, path: tuple) -> None:
    members = [k for k in ("basic", "gang") if policy.get(k) is not None]
    if not members:
        em.add(C_POLICY, invalid(None, "must specify exactly one of: `basic`, `gang`"), path)
    elif len(members) > 1:
        em.add(C_POLICY, invalid(policy, "must specify exactly one of: `basic`, `gang`"), path)
    gang = get_obj(policy, "gang")
    if isinstance(gang, dict):
        min_count = get_int(gang, "minCount")
        if min_count is not BAD and min_count < 1:
            em.add(C_MIN_COUNT, invalid(min_count, "must be greater than or equal to 1"),
                   path + ("gang", "minCount"))


def _check_claims(em: Emitter, claims: list, path: tuple) -> None:
    if not common.gate_enabled(em, "DRAWorkloadResourceClaims"):
        em.add(C_CLAIMS_GATE, forbidden("field is disabled by feature gate "
                                        "DRAWorkloadResourceClaims"), path)
        em.add(common.C_GATE_FIELD, f"resourceClaims needs feature gate DRAWorkloadResourceClaims, "
                                    f"which is disabled for Kubernetes {em.ctx.kube_version} with "
                                    "the selected --feature-gates: the API server rejects the "
                                    "field, and without it member pods get per-pod claims", path)
        return
    if len(claims) > POD_GROUP_CLAIMS_MAX:
        em.add(C_CLAIMS_MAX, too_many(len(claims), POD_GROUP_CLAIMS_MAX), path)
        return
    seen: set = set()
    for i, claim in enumerate(claims):
        if not isinstance(claim, dict):
            continue
        cpath = path + (i,)
        name = get_str(claim, "name")
        if name == "":
            em.add(C_CLAIM_NAME, required(), cpath + ("name",))
        elif name is not BAD:
            check_dns_label(em, C_CLAIM_NAME, name, cpath + ("name",))
            if name in seen:
                em.add(C_CLAIM_NAME, duplicate(name), cpath + ("name",))
            seen.add(name)
        claim_name = get_opt_str(claim, "resourceClaimName")
        template_name = get_opt_str(claim, "resourceClaimTemplateName")
        if claim_name is BAD or template_name is BAD:
            continue
        if claim_name is not None and template_name is not None:
            em.add(C_CLAIM_SOURCE, invalid(claim, "at most one of `resourceClaimName` or "
                                                  "`resourceClaimTemplateName` may be specified"),
                   cpath)
        elif claim_name is None and template_name is None:
            em.add(C_CLAIM_SOURCE, invalid(claim, "must specify one of: `resourceClaimName`, "
                                                  "`resourceClaimTemplateName`"), cpath)
        for key, value in (("resourceClaimName", claim_name),
                           ("resourceClaimTemplateName", template_name)):
            if isinstance(value, str):
                check_dns_subdomain(em, C_CLAIM_SOURCE, value, cpath + (key,))
