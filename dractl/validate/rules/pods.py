"""DRA fields of Pods and pod templates (docs/spec/api-and-scheduling.md#pod-checklist). Codes 14xx.

Pod templates of controllers are checked with the same rules at their own paths
(`spec.template.spec...`, CronJob `spec.jobTemplate.spec.template.spec...`).
"""

from __future__ import annotations

from typing import Iterator

from dractl.api.versions import gate_specs
from dractl.findings import ERROR, INFO, register
from dractl.models.controllers import pod_spec_location

from . import common
from ._base import (
    BAD,
    Emitter,
    duplicate,
    forbidden,
    get,
    get_list,
    get_obj,
    get_opt_str,
    get_str,
    invalid,
    not_found,
    required,
)
from ._formats import check_dns_label, check_dns_subdomain, is_dns1123_label

C_CLAIM_NAME = register("DRA1401", ERROR, "pod resourceClaims[].name is missing or not a DNS label")
C_CLAIM_DUP = register("DRA1402", ERROR, "pod resourceClaims[].name is not unique")
C_CLAIM_SOURCE_NONE = register("DRA1403", ERROR,
                               "pod claim sets neither resourceClaimName nor "
                               "resourceClaimTemplateName")
C_CLAIM_SOURCE_BOTH = register("DRA1404", ERROR,
                               "pod claim sets both resourceClaimName and resourceClaimTemplateName")
C_CLAIM_SOURCE_NAME = register("DRA1405", ERROR,
                               "resourceClaimName / resourceClaimTemplateName is not a DNS "
                               "subdomain")
C_CONTAINER_CLAIM_NAME = register("DRA1406", ERROR, "container resources.claims[] without a name")
C_CONTAINER_CLAIM_UNDECLARED = register("DRA1407", ERROR,
                                        "container resources.claims[].name is not declared in "
                                        "pod.spec.resourceClaims")
C_CONTAINER_CLAIM_DUP = register("DRA1408", ERROR,
                                 "container references the same claim (or claim/request) twice")
C_CONTAINER_CLAIM_REQUEST = register("DRA1409", ERROR,
                                     "container resources.claims[].request is not a DNS label")
C_POD_LEVEL_CLAIMS = register("DRA1410", ERROR, "pod-level resources must not set claims")
C_EPHEMERAL_CLAIMS = register("DRA1411", ERROR, "ephemeral containers cannot set resources")
C_STATUS_NAME = register("DRA1412", ERROR,
                         "status.resourceClaimStatuses[].name does not match a pod claim, or "
                         "repeats")
C_STATUS_CLAIM_NAME = register("DRA1413", ERROR,
                               "status.resourceClaimStatuses[].resourceClaimName is not a DNS "
                               "subdomain")
C_SCHEDULING_GROUP = register("DRA1414", ERROR,
                              "spec.schedulingGroup.podGroupName is missing or not a DNS subdomain")
C_WORKLOAD_REF = register("DRA1415", ERROR, "spec.workloadRef fields are missing or malformed")
C_ENV_EXTENSION = register("DRA1417", INFO,
                           "env valueFrom.resourceSliceAttributeRef is dractl's extension (the "
                           "KEP-5304 env design); no Kubernetes release accepts it yet", "dractl")
C_EXTENDED_STATUS = register("DRA1418", ERROR, "status.extendedResourceClaimStatus is malformed")


def check_pod_like(em: Emitter, doc: dict) -> None:
    located = pod_spec_location(doc)
    if located is None:
        return
    spec, path = located
    if isinstance(spec, dict):
        check_pod_spec(em, spec, path)
    if doc.get("kind") == "Pod":
        status = get_obj(doc, "status")
        if isinstance(status, dict):
            _check_pod_status(em, status, spec if isinstance(spec, dict) else {})


def containers(spec: dict, path: tuple, ephemeral: bool = False) -> Iterator[tuple[dict, tuple]]:
    kinds = ("containers", "initContainers") + (("ephemeralContainers",) if ephemeral else ())
    for kind in kinds:
        items = get_list(spec, kind)
        if items is BAD:
            continue
        for c, container in enumerate(items):
            if isinstance(container, dict):
                yield container, path + (kind, c)


def check_pod_spec(em: Emitter, spec: dict, path: tuple) -> None:
    claims = get_list(spec, "resourceClaims")
    if claims is BAD:
        claims = []
    # The gate is gone from 1.38 (#141946, GA and locked since 1.35): the field is always kept.
    if claims and "DynamicResourceAllocation" in gate_specs(em.gates.version) \
            and not common.gate_enabled(em, "DynamicResourceAllocation"):
        common.gate_dropped(em, "DynamicResourceAllocation", "resourceClaims",
                            path + ("resourceClaims",))
        claims = []
    names: set = set()
    for i, claim in enumerate(claims):
        if isinstance(claim, dict):
            _check_pod_claim(em, claim, path + ("resourceClaims", i), names)

    for container, cpath in containers(spec, path):
        resources = get_obj(container, "resources")
        if not isinstance(resources, dict):
            continue
        refs = get_list(resources, "claims")
        if refs is BAD or not refs:
            continue
        _check_container_claims(em, refs, cpath + ("resources", "claims"), names)

    resources = get_obj(spec, "resources")
    if isinstance(resources, dict) and get_list(resources, "claims") not in (BAD, []):
        em.add(C_POD_LEVEL_CLAIMS, forbidden("claims cannot be set for Resources at pod-level"),
               path + ("resources", "claims"))

    ephemeral = get_list(spec, "ephemeralContainers")
    for e, container in enumerate(ephemeral if ephemeral is not BAD else []):
        resources = get(container, "resources")
        if isinstance(resources, dict) and get_list(resources, "claims") not in (BAD, []):
            em.add(C_EPHEMERAL_CLAIMS, forbidden("cannot be set for an Ephemeral Container"),
                   path + ("ephemeralContainers", e, "resources"))

    for container, cpath in containers(spec, path, ephemeral=True):
        env = get_list(container, "env")
        for e, var in enumerate(env if env is not BAD else []):
            value_from = get(var, "valueFrom")
            if isinstance(value_from, dict) and value_from.get("resourceSliceAttributeRef") \
                    is not None:
                _check_env_extension(em, value_from, cpath + ("env", e, "valueFrom"))

    _check_scheduling_fields(em, spec, path)


def _check_pod_claim(em: Emitter, claim: dict, path: tuple, names: set) -> None:
    name = get_str(claim, "name")
    if name is not BAD:
        if name == "":
            em.add(C_CLAIM_NAME, required(), path + ("name",))
        elif name in names:
            em.add(C_CLAIM_DUP, duplicate(name), path + ("name",))
        else:
            check_dns_label(em, C_CLAIM_NAME, name, path + ("name",))
            names.add(name)
    claim_name = get_opt_str(claim, "resourceClaimName")
    template_name = get_opt_str(claim, "resourceClaimTemplateName")
    if claim_name is BAD or template_name is BAD:
        return
    if claim_name is not None and template_name is not None:
        em.add(C_CLAIM_SOURCE_BOTH, invalid(claim, "at most one of `resourceClaimName` or "
                                                   "`resourceClaimTemplateName` may be specified"),
               path)
    if claim_name is None and template_name is None:
        em.add(C_CLAIM_SOURCE_NONE, invalid(claim, "must specify one of: `resourceClaimName`, "
                                                   "`resourceClaimTemplateName`"), path)
    for key, value in (("resourceClaimName", claim_name),
                       ("resourceClaimTemplateName", template_name)):
        if isinstance(value, str):
            check_dns_subdomain(em, C_CLAIM_SOURCE_NAME, value, path + (key,))


def _check_container_claims(em: Emitter, refs: list, path: tuple, pod_claims: set) -> None:
    seen: set = set()
    for k, ref in enumerate(refs):
        if not isinstance(ref, dict):
            continue
        rpath = path + (k,)
        name = get_str(ref, "name")
        request = get_str(ref, "request")
        if name is BAD or request is BAD:
            continue
        key = name
        if request != "":
            check_dns_label(em, C_CONTAINER_CLAIM_REQUEST, request, rpath + ("request",))
            key = f"{name}/{request}"
        if name == "":
            em.add(C_CONTAINER_CLAIM_NAME, required(), rpath)
            continue
        # A whole-claim reference also covers every request of that claim.
        if key in seen or (request != "" and name in seen) or \
                (request == "" and any(s.startswith(name + "/") for s in seen)):
            em.add(C_CONTAINER_CLAIM_DUP, duplicate(key), rpath)
        seen.add(key)
        if name not in pod_claims:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += (": " + ", ".join(sorted(pod_claims))) if pod_claims else " which is empty"
            em.add(C_CONTAINER_CLAIM_UNDECLARED, not_found(name, detail), rpath)


def _check_env_extension(em: Emitter, value_from: dict, path: tuple) -> None:
    # dractl accepts its own extension (product decision: env refs are resolved offline), so
    # the API server's follow-up error (an empty valueFrom once the field is dropped) is not
    # reported; an info note says what a real cluster would do with the manifest.
    em.add(C_ENV_EXTENSION, "resourceSliceAttributeRef is dractl's extension (the KEP-5304 env "
                            "design, never merged): a real API server drops it and kubectl "
                            "--validate=strict rejects it; dractl resolves it offline",
           path + ("resourceSliceAttributeRef",))


def _check_scheduling_fields(em: Emitter, spec: dict, path: tuple) -> None:
    group = get_obj(spec, "schedulingGroup")
    if isinstance(group, dict):
        gpath = path + ("schedulingGroup",)
        if not em.in_force("pod_scheduling_group"):
            em.add(common.C_GATE_FIELD, f"schedulingGroup does not exist in Kubernetes "
                                        f"{em.ctx.kube_version} (added in 1.36; 1.35 uses "
                                        "workloadRef): the API server drops it", gpath)
        elif not common.gate_enabled(em, "GenericWorkload"):
            common.gate_dropped(em, "GenericWorkload", "schedulingGroup", gpath,
                                "the pod is scheduled without its PodGroup")
        else:
            name = get_str(group, "podGroupName")
            if name == "":
                em.add(C_SCHEDULING_GROUP, required(), gpath + ("podGroupName",))
            elif name is not BAD:
                check_dns_subdomain(em, C_SCHEDULING_GROUP, name, gpath + ("podGroupName",))
    ref = get_obj(spec, "workloadRef")
    if isinstance(ref, dict):
        rpath = path + ("workloadRef",)
        if not em.in_force("pod_workload_ref") or em.in_force("pod_scheduling_group"):
            em.add(common.C_GATE_FIELD, f"workloadRef only exists in Kubernetes 1.35 (1.36+ use "
                                        f"schedulingGroup): the {em.ctx.kube_version} API server "
                                        "drops it", rpath)
        elif not common.gate_enabled(em, "GenericWorkload"):
            common.gate_dropped(em, "GenericWorkload", "workloadRef", rpath,
                                "the pod is scheduled without its workload")
        else:
            _check_workload_ref(em, ref, rpath)


def _check_workload_ref(em: Emitter, ref: dict, path: tuple) -> None:
    name = get_str(ref, "name")
    if name == "":
        em.add(C_WORKLOAD_REF, required(), path + ("name",))
    elif name is not BAD:
        check_dns_subdomain(em, C_WORKLOAD_REF, name, path + ("name",))
    group = get_str(ref, "podGroup")
    if group == "":
        em.add(C_WORKLOAD_REF, required(), path + ("podGroup",))
    elif group is not BAD:
        check_dns_label(em, C_WORKLOAD_REF, group, path + ("podGroup",))
    key = get_str(ref, "podGroupReplicaKey")
    if key not in (BAD, ""):
        check_dns_label(em, C_WORKLOAD_REF, key, path + ("podGroupReplicaKey",))


def _check_pod_status(em: Emitter, status: dict, spec: dict) -> None:
    spec_claims = get_list(spec, "resourceClaims")
    declared = {c.get("name") for c in (spec_claims if spec_claims is not BAD else [])
                if isinstance(c, dict) and isinstance(c.get("name"), str)}
    statuses = get_list(status, "resourceClaimStatuses")
    seen: set = set()
    for i, entry in enumerate(statuses if statuses is not BAD else []):
        if not isinstance(entry, dict):
            continue
        path = ("status", "resourceClaimStatuses", i)
        name = get_str(entry, "name")
        if name is not BAD:
            if name not in declared:
                em.add(C_STATUS_NAME, invalid(name, "must match the name of an entry in "
                                                    "`spec.resourceClaims`"), path + ("name",))
            if name in seen:
                em.add(C_STATUS_NAME, duplicate(name), path + ("name",))
            seen.add(name)
        claim_name = get_opt_str(entry, "resourceClaimName")
        if isinstance(claim_name, str):
            check_dns_subdomain(em, C_STATUS_CLAIM_NAME, claim_name, path + ("resourceClaimName",))

    extended = get_obj(status, "extendedResourceClaimStatus")
    if isinstance(extended, dict):
        _check_extended_status(em, extended, spec, ("status", "extendedResourceClaimStatus"))


def _check_extended_status(em: Emitter, status: dict, spec: dict, path: tuple) -> None:
    """[inf] P18: claim name, required mapping fields, container names that exist."""
    claim_name = get_str(status, "resourceClaimName")
    if claim_name == "":
        em.add(C_EXTENDED_STATUS, required(), path + ("resourceClaimName",))
    elif claim_name is not BAD:
        check_dns_subdomain(em, C_EXTENDED_STATUS, claim_name, path + ("resourceClaimName",))
    names = {c.get("name") for c, _ in containers(spec, ()) if isinstance(c.get("name"), str)}
    mappings = get_list(status, "requestMappings")
    if mappings is BAD:
        return
    if not mappings:
        em.add(C_EXTENDED_STATUS, required(), path + ("requestMappings",))
    for m, mapping in enumerate(mappings):
        if not isinstance(mapping, dict):
            continue
        mpath = path + ("requestMappings", m)
        for key in ("containerName", "resourceName", "requestName"):
            value = get_str(mapping, key)
            if value == "":
                em.add(C_EXTENDED_STATUS, required(), mpath + (key,))
            elif isinstance(value, str) and key == "containerName" and value not in names:
                em.add(C_EXTENDED_STATUS, invalid(value, "must match the name of a container or "
                                                         "init container"), mpath + (key,))
            elif isinstance(value, str) and key == "requestName":
                for msg in is_dns1123_label(value):
                    em.add(C_EXTENDED_STATUS, invalid(value, msg), mpath + (key,))
