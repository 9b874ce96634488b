"""API-server rules: the validation kube-apiserver applies to the DRA kinds and to the DRA fields of
Pods, pod templates, Workloads and PodGroups, beyond what a JSON schema expresses.

One module per area, each rule a stable code with a one-line summary registered in
`dractl.findings.CODES` at import:

    claims           DRA10xx  ResourceClaim, ResourceClaimTemplate (spec and status)
    derived          DRA1025-1028  derived attributes of requests (1.37, KEP-6080)
    deviceclass      DRA11xx  DeviceClass
    resourceslice    DRA12xx  ResourceSlice
    slicefields      DRA1231-1235  ResourceSlice fields new in 1.37, the 1.37 node-allocatable
                              shape, standard attribute names
    devicetaintrule  DRA13xx  DeviceTaintRule
    pods             DRA14xx  Pod and pod-template DRA fields
    workloads        DRA15xx  Workload, PodGroup
    common           DRA19xx  names, CEL selectors, opaque config, feature gates

How a document is checked (like the API server does on create):
1. resource.k8s.io objects of older versions are converted to the v1 shape (dractl.api.convert);
   findings are reported at the path the user wrote, with the v1 path added to the message when
   they differ;
2. defaulting (allocationMode ExactCount, count 1, toleration operator Equal);
3. fields of disabled feature gates are dropped (with a DRA1910 lint naming the real cause), so
   the follow-up errors are the faithful ones;
4. validation.

Rules never raise on user input: values of the wrong type are skipped (the schema check reports
them), and an unexpected internal failure becomes a DRA1999 finding for that document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dractl.api.jsoncopy import copy_json
from dractl.api.versions import FeatureGates
from dractl.findings import ERROR, Finding, register
from dractl.models.controllers import POD_TEMPLATE_KINDS
from dractl.models.objects import ObjectModel, as_model

from . import claims, common, deviceclass, devicetaintrule, pods, resourceslice, workloads
from ._base import Emitter

C_INTERNAL = register("DRA1999", ERROR, "internal error in an API-server rule (please report it)",
                      "dractl")

RESOURCE_GROUP = "resource.k8s.io"
SCHEDULING_GROUP = "scheduling.k8s.io"
_RESOURCE_VERSIONS = ("v1", "v1beta2", "v1beta1")
_BETA1 = f"{RESOURCE_GROUP}/v1beta1"


@dataclass(frozen=True)
class RuleContext:
    gates: FeatureGates
    kube_version: str


def check_document(doc: dict | ObjectModel, ctx: RuleContext) -> list[Finding]:
    """Findings of the API-server rules for one parsed manifest or its model ([] for kinds
    without rules)."""
    model = as_model(doc)
    doc = model.data
    if not isinstance(doc, dict):
        return []
    api_version = doc.get("apiVersion")
    kind = doc.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    group, _, version = api_version.rpartition("/")
    em = Emitter(ctx)
    try:
        if group == RESOURCE_GROUP:
            _check_resource(em, model, kind, version)
        elif group == SCHEDULING_GROUP:
            if kind == "Workload":
                workloads.check_workload(em, doc)
            elif kind == "PodGroup":
                workloads.check_pod_group(em, doc)
        elif kind == "Pod" or kind in POD_TEMPLATE_KINDS:
            # ValidatePodName and the controllers' name functions: DNS subdomains.
            common.check_object_name(em, doc, namespaced=True)
            pods.check_pod_like(em, doc)
        elif kind == "Node" and group == "":
            common.check_object_name(em, doc)      # ValidateNodeName: a DNS subdomain
        elif kind == "Namespace" and group == "":
            common.check_object_name(em, doc, name_is_label=True)  # ValidateNamespaceName
    except RecursionError:
        em.findings.append(Finding(ERROR, C_INTERNAL, "document nests too deeply to check"))
    except Exception as exc:  # noqa: BLE001 - a rule bug must not stop the other documents
        em.findings.append(Finding(ERROR, C_INTERNAL, f"internal error in the API-server rules: "
                                                      f"{type(exc).__name__}: {exc}"))
    return em.findings


def _check_resource(em: Emitter, model: ObjectModel, kind: str, version: str) -> None:
    if kind == "DeviceTaintRule":
        # Same shape in v1alpha3, v1beta2 and v1.
        devicetaintrule.check_device_taint_rule(em, copy_json(model.data))
        return
    if version not in _RESOURCE_VERSIONS:
        return  # v1alpha3 claims/slices and classic DRA are not served: the pipeline says so
    converted = model.converted
    data: Any = copy_json(converted.doc)
    em.path_mapper = converted.original_path if converted.converted else None
    beta1 = converted.source_api_version == _BETA1
    if kind == "ResourceClaim":
        claims.check_resource_claim(em, data, beta1)
    elif kind == "ResourceClaimTemplate":
        claims.check_resource_claim_template(em, data, beta1)
    elif kind == "DeviceClass":
        deviceclass.check_device_class(em, data)
    elif kind == "ResourceSlice":
        resourceslice.check_resource_slice(em, data)


__all__ = ["RuleContext", "check_document", "common"]
