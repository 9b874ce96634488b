"""Thin typed models of the workload and cluster objects the later stages read: Pods (and the
pod specs inside controllers' templates), Nodes, ResourceClaimTemplates and PodGroups.

Each is read once from an ObjectModel (so from the v1 shape) and is read-only. They parse only
what validation, the env lints and the dry run need and never raise on a malformed object: a
wrong-typed field reads as unset (the schema and API-server rules report it).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from dractl.api.record import FrozenRecord
from dractl.models.controllers import pod_spec_path
from dractl.models.objects import ObjectModel

HOSTNAME_LABEL = "kubernetes.io/hostname"

_set = object.__setattr__  # FrozenRecord __init__s set fields as a frozen dataclass's does
_NEW_DICT: Any = object()  # default: a new empty dict per object (dataclass default_factory=dict)


def _obj(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _meta(data: Any) -> dict:
    return _obj(_obj(data).get("metadata"))


class Pod(FrozenRecord):
    """A Pod, or the pod template of a controller: its spec and where the spec sits."""

    __slots__ = ("model", "kind", "namespace", "name", "uid", "spec", "spec_path", "labels")

    def __init__(self, model: ObjectModel, kind: str, namespace: str, name: str, uid: str,
                 spec: dict, spec_path: tuple, labels: Mapping[str, Any] = _NEW_DICT) -> None:
        # namespace as written ("" when unset: matches any namespace in references);
        # spec_path: inside the object, for finding positions.
        _set(self, "model", model)
        _set(self, "kind", kind)
        _set(self, "namespace", namespace)
        _set(self, "name", name)
        _set(self, "uid", uid)
        _set(self, "spec", spec)
        _set(self, "spec_path", spec_path)
        _set(self, "labels", {} if labels is _NEW_DICT else labels)

    @classmethod
    def from_model(cls, model: ObjectModel, *, created_only: bool = False) -> "Pod | None":
        """The pod spec of a Pod or of any pod-template owner (created_only: only those whose
        pods the dry run creates); None for other kinds or when the spec is not an object."""
        data = model.data
        path = pod_spec_path(model.kind, created_only=created_only)
        if path is None or not isinstance(data, dict):
            return None
        node: Any = data
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return None
        meta = _meta(data)
        if model.kind != "Pod":  # the template's own labels are what the pods get
            meta = _meta(_template(data, path))
        return cls(model, model.kind, _str(_meta(data).get("namespace")),
                   _str(_meta(data).get("name")), _str(_meta(data).get("uid")), node, path,
                   _obj(meta.get("labels")))

    def claims(self) -> list[dict]:
        """spec.resourceClaims entries that are objects."""
        items = self.spec.get("resourceClaims")
        return [c for c in items if isinstance(c, dict)] if isinstance(items, list) else []

    def containers(self, ephemeral: bool = False) -> Iterator[tuple[dict, tuple]]:
        """(container, its path in the object) of containers, initContainers (and
        ephemeralContainers)."""
        sections = ("containers", "initContainers") + (("ephemeralContainers",) if ephemeral else ())
        for section in sections:
            items = self.spec.get(section)
            for c, container in enumerate(items if isinstance(items, list) else []):
                if isinstance(container, dict):
                    yield container, self.spec_path + (section, c)


def _template(data: dict, spec_path: tuple) -> Any:
    node: Any = data
    for key in spec_path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    return node


class NodeTaintModel(FrozenRecord):
    __slots__ = ("key", "value", "effect")

    def __init__(self, key: str, value: str, effect: str) -> None:
        _set(self, "key", key)
        _set(self, "value", value)
        _set(self, "effect", effect)


class Node(FrozenRecord):
    """What placement reads of a Node: labels (with kubernetes.io/hostname defaulted to the
    name, as the kubelet sets it), taints, cordon, allocatable."""

    __slots__ = ("name", "labels", "taints", "unschedulable", "allocatable", "declared_features")

    def __init__(self, name: str, labels: Mapping[str, str], taints: tuple[NodeTaintModel, ...] = (),
                 unschedulable: bool = False, allocatable: Mapping[str, Any] = _NEW_DICT,
                 declared_features: tuple[str, ...] | None = None) -> None:
        # declared_features: status.declaredFeatures (1.37 node declared features), None if absent.
        _set(self, "name", name)
        _set(self, "labels", labels)
        _set(self, "taints", taints)
        _set(self, "unschedulable", unschedulable)
        _set(self, "allocatable", {} if allocatable is _NEW_DICT else allocatable)
        _set(self, "declared_features", declared_features)

    @classmethod
    def from_model(cls, model: ObjectModel) -> "Node":
        data = _obj(model.data)
        meta = _meta(data)
        labels = {str(k): "" if v is None else str(v) for k, v in _obj(meta.get("labels")).items()}
        name = str(meta.get("name") or "")
        labels.setdefault(HOSTNAME_LABEL, name)
        spec = _obj(data.get("spec"))
        taints = tuple(NodeTaintModel(t["key"], str(t.get("value") or ""), str(t.get("effect") or ""))
                       for t in spec.get("taints") or []
                       if isinstance(t, dict) and isinstance(t.get("key"), str))
        status = _obj(data.get("status"))
        allocatable = dict(_obj(status.get("allocatable")))
        features = status.get("declaredFeatures")
        declared = tuple(str(f) for f in features) if isinstance(features, list) else None
        return cls(name, labels, taints, spec.get("unschedulable") is True, allocatable, declared)


class ClaimTemplate(FrozenRecord):
    """A ResourceClaimTemplate: the claim spec (v1 shape, and with the API server's defaults)
    and the metadata the claims created from it get."""

    __slots__ = ("model", "namespace", "name", "spec", "labels", "annotations")

    def __init__(self, model: ObjectModel, namespace: str, name: str, spec: dict | None,
                 labels: Mapping[str, Any] = _NEW_DICT,
                 annotations: Mapping[str, Any] = _NEW_DICT) -> None:
        # namespace: "default" when unset, as the resourceclaim controller sees it;
        # spec: the v1 ResourceClaimSpec as written (converted).
        _set(self, "model", model)
        _set(self, "namespace", namespace)
        _set(self, "name", name)
        _set(self, "spec", spec)
        _set(self, "labels", {} if labels is _NEW_DICT else labels)
        _set(self, "annotations", {} if annotations is _NEW_DICT else annotations)

    @classmethod
    def from_model(cls, model: ObjectModel) -> "ClaimTemplate":
        meta = _meta(model.data)
        template_meta = _meta(_obj(model.v1).get("spec"))
        return cls(model, _str(meta.get("namespace")) or "default", _str(meta.get("name")),
                   model.claim_spec(), _obj(template_meta.get("labels")),
                   _obj(template_meta.get("annotations")))

    @property
    def defaulted_spec(self) -> dict | None:
        """The spec with the API server's defaults (computed once, on first use)."""
        return self.model.defaulted_claim_spec()


class PodGroup(FrozenRecord):
    """A standalone PodGroup (scheduling.k8s.io, 1.36+): its own scheduling policy, where it
    may take one from (a Workload's podGroupTemplate), and the claims its pods share."""

    __slots__ = ("namespace", "name", "uid", "api_version", "policy", "min_count", "policy_set",
                 "template_ref", "resource_claims", "claim_statuses")

    def __init__(self, namespace: str, name: str, uid: str, api_version: str, policy: str,
                 min_count: int, policy_set: bool, template_ref: Mapping[str, Any],
                 resource_claims: tuple[dict, ...] = (),
                 claim_statuses: Mapping[str, str] = _NEW_DICT) -> None:
        # namespace: "default" when unset; uid: "" when unset (the dry run derives a stable
        # one); policy: basic | gang; policy_set: spec.schedulingPolicy is set (else the
        # template's may apply); template_ref: {workloadName, podGroupTemplateName} in any
        # spelling; claim_statuses: name -> generated claim.
        _set(self, "namespace", namespace)
        _set(self, "name", name)
        _set(self, "uid", uid)
        _set(self, "api_version", api_version)
        _set(self, "policy", policy)
        _set(self, "min_count", min_count)
        _set(self, "policy_set", policy_set)
        _set(self, "template_ref", template_ref)
        _set(self, "resource_claims", resource_claims)
        _set(self, "claim_statuses", {} if claim_statuses is _NEW_DICT else claim_statuses)

    @classmethod
    def from_model(cls, model: ObjectModel) -> "PodGroup":
        data = _obj(model.data)
        meta = _meta(data)
        spec = _obj(data.get("spec"))
        policy, min_count = scheduling_policy(spec)
        statuses = {s["name"]: s["resourceClaimName"]
                    for s in _obj(data.get("status")).get("resourceClaimStatuses") or []
                    if isinstance(s, dict) and s.get("name") and s.get("resourceClaimName")}
        return cls(_str(meta.get("namespace")) or "default", _str(meta.get("name")),
                   _str(meta.get("uid")), _str(data.get("apiVersion")), policy, min_count,
                   bool(spec.get("schedulingPolicy")), _template_ref(spec, _str(data.get("apiVersion"))),
                   tuple(c for c in spec.get("resourceClaims") or [] if isinstance(c, dict)),
                   statuses)


def scheduling_policy(spec: Any) -> tuple[str, int]:
    """(basic | gang, minCount) of a PodGroup spec or a Workload's group template (1.35 names
    the field `policy`)."""
    policy = spec.get("schedulingPolicy") if isinstance(spec, dict) else None
    if not isinstance(policy, dict):
        policy = spec.get("policy") if isinstance(spec, dict) else None
    if isinstance(policy, dict) and isinstance(policy.get("gang"), dict):
        count = policy["gang"].get("minCount")
        return "gang", count if isinstance(count, int) and not isinstance(count, bool) else 0
    return "basic", 0


def _template_ref(spec: dict, api_version: str = "") -> dict:
    """{workloadName, templateName} of the PodGroup's link to its Workload template, in its API
    version's shape: v1alpha2 (1.36) `podGroupTemplateRef.workload{workloadName,
    podGroupTemplateName}`; v1alpha3 and v1beta1 (1.37, #140080) `workloadRef{workloadName,
    templateName}`."""
    if api_version.endswith("/v1alpha2"):
        ref = spec.get("podGroupTemplateRef")
        ref = ref.get("workload") if isinstance(ref, dict) else None
        key = "podGroupTemplateName"
    else:
        ref, key = spec.get("workloadRef"), "templateName"
    if not isinstance(ref, dict) or not ref:
        return {}
    return {"workloadName": ref.get("workloadName") or "", "templateName": ref.get(key)}
