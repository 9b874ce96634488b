"""Cross-object references among the input documents. Codes DRA20xx.

What the API server checks inside one object (a container's `resources.claims[].name` naming a
pod claim) lives with the Pod rules (DRA1407). Here:

* objects that should exist but are not among the inputs: ResourceClaims, ResourceClaimTemplates,
  DeviceClasses, PodGroups, Workloads. Warnings, because they may already exist in the cluster;
  when an object of that name exists in another namespace, the message says so.
* references into objects that ARE among the inputs: a container's `request`, the dractl env
  extension `valueFrom.resourceSliceAttributeRef` {claimName, requestName, attribute,
  deviceIndex}, a 1.35 `workloadRef.podGroup`. Errors: these fail at scheduling or container
  start.
* admin access in a namespace whose Namespace manifest lacks the admin-access label (the API
  server rejects the claim; only checked when the Namespace is among the inputs).

Namespaces: an object without `metadata.namespace` matches any namespace (the namespace is often
given on the command line); two explicit namespaces must be equal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from dractl.api.defaults import EXACT_COUNT, default_allocation
from dractl.findings import ERROR, WARNING, Finding, register
from dractl.models.controllers import pod_spec_location
from dractl.models.objects import ObjectModel, as_models
from dractl.suggest import closest_match
from dractl.validate.rules import RuleContext
from dractl.validate.rules._base import forbidden, go_quote
from dractl.validate.rules._formats import is_c_identifier, is_dns1123_subdomain
from dractl.validate.rules.pods import containers

C_CLAIM_MISSING = register("DRA2001", WARNING,
                           "pod (or PodGroup) resourceClaimName names a ResourceClaim that is not "
                           "among the inputs", "dractl")
C_TEMPLATE_MISSING = register("DRA2002", WARNING,
                              "resourceClaimTemplateName names a ResourceClaimTemplate that is "
                              "not among the inputs", "dractl")
C_CLASS_MISSING = register("DRA2003", WARNING,
                           "deviceClassName names a DeviceClass that is not among the inputs",
                           "dractl")
C_CONTAINER_REQUEST = register("DRA2004", ERROR,
                               "container resources.claims[].request names no request of that "
                               "claim", "dractl")
C_ENV_CLAIM = register("DRA2010", ERROR,
                       "env resourceSliceAttributeRef.claimName is not a pod claim", "dractl")
C_ENV_REQUEST = register("DRA2011", ERROR,
                         "env resourceSliceAttributeRef.requestName names no request (or "
                         "request/subrequest) of the claim", "dractl")
C_ENV_INDEX = register("DRA2012", ERROR,
                       "env resourceSliceAttributeRef.deviceIndex is negative or not below the "
                       "request's device count", "dractl")
C_ENV_ATTRIBUTE = register("DRA2013", ERROR,
                           "env resourceSliceAttributeRef.attribute is missing or not a qualified "
                           "attribute name", "dractl")
C_POD_GROUP_MISSING = register("DRA2020", WARNING,
                               "schedulingGroup.podGroupName names a PodGroup that is not among "
                               "the inputs", "dractl")
C_WORKLOAD_MISSING = register("DRA2021", WARNING,
                              "workloadRef.name names a Workload that is not among the inputs",
                              "dractl")
C_WORKLOAD_GROUP = register("DRA2022", ERROR,
                            "workloadRef.podGroup names no pod group of that Workload", "dractl")
C_ADMIN_ACCESS = register("DRA2030", ERROR,
                          "adminAccess request in a namespace without the "
                          "resource.kubernetes.io/admin-access label")

ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


@dataclass
class _Obj:
    index: int
    namespace: str | None
    doc: Any
    v1: Any = None  # v1-shaped copy for resource.k8s.io objects


@dataclass
class _Index:
    by_kind: dict = field(default_factory=dict)  # kind -> name -> [_Obj]

    def add(self, kind: str, name: str, obj: _Obj) -> None:
        self.by_kind.setdefault(kind, {}).setdefault(name, []).append(obj)

    def find(self, kind: str, name: str, namespace: str | None) -> tuple[_Obj | None, list[str]]:
        """(matching object, namespaces where an object of that name exists otherwise)."""
        candidates = self.by_kind.get(kind, {}).get(name, [])
        for obj in candidates:
            if obj.namespace is None or namespace is None or obj.namespace == namespace:
                return obj, []
        return None, sorted({o.namespace for o in candidates if o.namespace})

    def names(self, kind: str) -> list[str]:
        return sorted(self.by_kind.get(kind, {}))


def _namespace(doc: dict) -> str | None:
    meta = doc.get("metadata")
    ns = meta.get("namespace") if isinstance(meta, dict) else None
    return ns if isinstance(ns, str) and ns else None


def _name(doc: dict) -> str | None:
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and name else None


def _group(doc: dict) -> str:
    av = doc.get("apiVersion")
    return av.rpartition("/")[0] if isinstance(av, str) else ""


def _build_index(models: Sequence[ObjectModel]) -> _Index:
    index = _Index()
    for i, model in enumerate(models):
        doc = model.data
        if not isinstance(doc, dict):
            continue
        kind, name = doc.get("kind"), _name(doc)
        if not isinstance(kind, str) or name is None:
            continue
        group = _group(doc)
        obj = _Obj(i, _namespace(doc), doc)
        if group == "resource.k8s.io" and kind in ("ResourceClaim", "ResourceClaimTemplate",
                                                   "DeviceClass"):
            obj.v1 = model.v1
            if kind == "DeviceClass":
                obj.namespace = None
            index.add(kind, name, obj)
        elif group == "scheduling.k8s.io" and kind in ("PodGroup", "Workload"):
            index.add(kind, name, obj)
        elif group == "" and kind == "Namespace":
            obj.namespace = None
            index.add(kind, name, obj)
    return index


def _suggest(name: str, candidates: Iterable[str]) -> str:
    close = closest_match(name, candidates)
    return f' (did you mean "{close}"?)' if close else ""


def _elsewhere(kind: str, name: str, namespace: str | None, others: list[str]) -> str:
    where = f' in namespace "{namespace}"' if namespace else ""
    if others:
        return (f'{kind} "{name}" is not among the inputs{where}; one exists in namespace '
                f'{", ".join(go_quote(o) for o in others)}')
    return f'{kind} "{name}" is not among the inputs{where}'


def _claim_spec(obj: _Obj) -> Any:
    """The ResourceClaimSpec of a claim or template (v1 shape)."""
    spec = obj.v1.get("spec") if isinstance(obj.v1, dict) else None
    if isinstance(spec, dict) and obj.doc.get("kind") == "ResourceClaimTemplate":
        spec = spec.get("spec")
    return spec if isinstance(spec, dict) else None


def _requests(spec: Any) -> dict:
    """request name -> request dict (v1 shape)."""
    devices = spec.get("devices") if isinstance(spec, dict) else None
    requests = devices.get("requests") if isinstance(devices, dict) else None
    out: dict = {}
    for request in requests if isinstance(requests, list) else []:
        if isinstance(request, dict) and isinstance(request.get("name"), str):
            out.setdefault(request["name"], request)
    return out


def _subrequests(request: dict) -> dict:
    subs = request.get("firstAvailable")
    out: dict = {}
    for sub in subs if isinstance(subs, list) else []:
        if isinstance(sub, dict) and isinstance(sub.get("name"), str):
            out.setdefault(sub["name"], sub)
    return out


def _count(obj: dict) -> int | None:
    """Devices an exact request or subrequest gets: None when unknown (All mode, or a count
    that is not a number). The defaults are the API server's (dractl.api.defaults)."""
    request = {"allocationMode": obj.get("allocationMode"), "count": obj.get("count")}
    default_allocation(request)
    count = request["count"]
    if request["allocationMode"] != EXACT_COUNT:
        return None
    return count if isinstance(count, int) and not isinstance(count, bool) else None


class _Checker:
    def __init__(self, docs: Sequence[Any], ctx: RuleContext):
        self.models = as_models(docs)
        self.docs = [m.data for m in self.models]
        self.ctx = ctx
        self.index = _build_index(self.models)
        self.out: list[tuple[int, Finding]] = []

    def add(self, i: int, code: str, severity: str, message: str, path: tuple) -> None:
        self.out.append((i, Finding(severity, code, message, tuple(path))))

    def run(self) -> list[tuple[int, Finding]]:
        for i, doc in enumerate(self.docs):
            if not isinstance(doc, dict):
                continue
            kind = doc.get("kind")
            group = _group(doc)
            if group == "resource.k8s.io" and kind in ("ResourceClaim", "ResourceClaimTemplate"):
                self.check_claim(i, doc)
            elif group == "scheduling.k8s.io" and kind == "PodGroup":
                spec = doc.get("spec")
                if isinstance(spec, dict):
                    self.check_claim_sources(i, _namespace(doc), spec.get("resourceClaims"),
                                             ("spec", "resourceClaims"))
            elif group == "scheduling.k8s.io" and kind == "Workload":
                spec = doc.get("spec")
                templates = spec.get("podGroupTemplates") if isinstance(spec, dict) else None
                for t, tmpl in enumerate(templates if isinstance(templates, list) else []):
                    if isinstance(tmpl, dict):
                        self.check_claim_sources(i, _namespace(doc), tmpl.get("resourceClaims"),
                                                 ("spec", "podGroupTemplates", t, "resourceClaims"))
            elif isinstance(kind, str) and group in ("", "apps", "batch"):
                located = pod_spec_location(doc)
                if located is not None and isinstance(located[0], dict):
                    self.check_pod(i, doc, located[0], located[1])
        return self.out

    # -- claims and templates ------------------------------------------------------------------

    def check_claim(self, i: int, doc: dict) -> None:
        converted = self.models[i].converted
        spec = converted.doc.get("spec") if isinstance(converted.doc, dict) else None
        base = ("spec",)
        if doc.get("kind") == "ResourceClaimTemplate":
            spec = spec.get("spec") if isinstance(spec, dict) else None
            base = ("spec", "spec")
        devices = spec.get("devices") if isinstance(spec, dict) else None
        requests = devices.get("requests") if isinstance(devices, dict) else None
        namespace = _namespace(doc)
        ns_obj = self.index.find("Namespace", namespace, None)[0] if namespace else None
        for r, request in enumerate(requests if isinstance(requests, list) else []):
            if not isinstance(request, dict):
                continue
            rpath = base + ("devices", "requests", r)
            targets = []
            exactly = request.get("exactly")
            req_name = request.get("name") if isinstance(request.get("name"), str) else ""
            if isinstance(exactly, dict):
                targets.append((exactly, rpath + ("exactly",), req_name))
            for s, sub in enumerate(request.get("firstAvailable") or []
                                    if isinstance(request.get("firstAvailable"), list) else []):
                if isinstance(sub, dict):
                    # PreFilter names a subrequest as request/subrequest.
                    targets.append((sub, rpath + ("firstAvailable", s), f"{req_name}/{sub.get('name')}"))
            for target, tpath, shown in targets:
                class_name = target.get("deviceClassName")
                if isinstance(class_name, str) and class_name:
                    obj, _ = self.index.find("DeviceClass", class_name, None)
                    if obj is None:
                        self.add(i, C_CLASS_MISSING, WARNING,
                                 f'DeviceClass "{class_name}" is not among the inputs; unless it '
                                 f'exists in the cluster, scheduling fails with "request {shown}: '
                                 f'device class {class_name} does not exist"'
                                 + _suggest(class_name, self.index.names("DeviceClass")),
                                 converted.original_path(tpath + ("deviceClassName",)))
            if isinstance(exactly, dict) and exactly.get("adminAccess") is True and \
                    ns_obj is not None:
                meta = ns_obj.doc.get("metadata")
                labels = meta.get("labels") if isinstance(meta, dict) else None
                if not (isinstance(labels, dict) and labels.get(ADMIN_ACCESS_LABEL) == "true"):
                    self.add(i, C_ADMIN_ACCESS, ERROR,
                             forbidden("admin access to devices requires the "
                                       "`resource.kubernetes.io/admin-access: true` label on the "
                                       "containing namespace"),
                             converted.original_path(rpath + ("exactly", "adminAccess")))

    def check_claim_sources(self, i: int, namespace: str | None, claims: Any, path: tuple) -> dict:
        """Check resourceClaimName / resourceClaimTemplateName; return pod claim name -> object."""
        resolved: dict = {}
        for c, claim in enumerate(claims if isinstance(claims, list) else []):
            if not isinstance(claim, dict):
                continue
            name = claim.get("name")
            for key, kind, code in (("resourceClaimName", "ResourceClaim", C_CLAIM_MISSING),
                                    ("resourceClaimTemplateName", "ResourceClaimTemplate",
                                     C_TEMPLATE_MISSING)):
                target = claim.get(key)
                if not isinstance(target, str) or not target:
                    continue
                obj, others = self.index.find(kind, target, namespace)
                if obj is None:
                    self.add(i, code, WARNING,
                             _elsewhere(kind, target, namespace, others)
                             + ("" if others else "; it must exist in the cluster")
                             + ("" if others else _suggest(target, self.index.names(kind))),
                             path + (c, key))
                elif isinstance(name, str):
                    resolved[name] = obj
        return resolved

    # -- pods ----------------------------------------------------------------------------------

    def check_pod(self, i: int, doc: dict, spec: dict, path: tuple) -> None:
        namespace = _namespace(doc)
        pod_claims = spec.get("resourceClaims")
        declared = [c.get("name") for c in (pod_claims if isinstance(pod_claims, list) else [])
                    if isinstance(c, dict) and isinstance(c.get("name"), str)]
        resolved = self.check_claim_sources(i, namespace, pod_claims, path + ("resourceClaims",))

        for container, cpath in containers(spec, path):
            resources = container.get("resources")
            refs = resources.get("claims") if isinstance(resources, dict) else None
            for k, ref in enumerate(refs if isinstance(refs, list) else []):
                if not isinstance(ref, dict):
                    continue
                request, name = ref.get("request"), ref.get("name")
                if not isinstance(request, str) or not request or "/" in request:
                    continue
                obj = resolved.get(name) if isinstance(name, str) else None
                if obj is None:
                    continue
                requests = _requests(_claim_spec(obj))
                if request not in requests:
                    self.add(i, C_CONTAINER_REQUEST, ERROR,
                             f'request "{request}" does not exist in {obj.doc.get("kind")} '
                             f'"{_name(obj.doc)}" (requests: {", ".join(sorted(requests)) or "none"})'
                             + _suggest(request, requests)
                             + "; the container gets no device from this claim",
                             cpath + ("resources", "claims", k, "request"))

        for container, cpath in containers(spec, path, ephemeral=True):
            env = container.get("env")
            for e, var in enumerate(env if isinstance(env, list) else []):
                value_from = var.get("valueFrom") if isinstance(var, dict) else None
                ref = value_from.get("resourceSliceAttributeRef") \
                    if isinstance(value_from, dict) else None
                if isinstance(ref, dict):
                    self.check_env_ref(i, ref, cpath + ("env", e, "valueFrom",
                                                        "resourceSliceAttributeRef"),
                                       declared, resolved)

        group = spec.get("schedulingGroup")
        if isinstance(group, dict):
            name = group.get("podGroupName")
            if isinstance(name, str) and name:
                obj, others = self.index.find("PodGroup", name, namespace)
                if obj is None:
                    self.add(i, C_POD_GROUP_MISSING, WARNING,
                             _elsewhere("PodGroup", name, namespace, others)
                             + "; unless it exists in the cluster the pod waits in PreEnqueue",
                             path + ("schedulingGroup", "podGroupName"))
        ref = spec.get("workloadRef")
        if isinstance(ref, dict):
            self.check_workload_ref(i, ref, namespace, path + ("workloadRef",))

    def check_env_ref(self, i: int, ref: dict, path: tuple, declared: list, resolved: dict
                      ) -> None:
        claim_name = ref.get("claimName")
        if not isinstance(claim_name, str):
            claim_name = ""
        if claim_name not in declared:
            detail = (f'claimName "{claim_name}" is not declared in pod.spec.resourceClaims'
                      + (f' (declared: {", ".join(declared)})' if declared else " (which is empty)")
                      + _suggest(claim_name, declared)
                      + "; resolution fails at container start")
            self.add(i, C_ENV_CLAIM, ERROR, detail, path + ("claimName",))
        attribute = ref.get("attribute")
        if not isinstance(attribute, str) or not attribute:
            self.add(i, C_ENV_ATTRIBUTE, ERROR, "attribute is required", path + ("attribute",))
        elif not _is_attribute_name(attribute):
            self.add(i, C_ENV_ATTRIBUTE, ERROR,
                     f'"{attribute}" is not a qualified attribute name (<identifier> or '
                     "<domain>/<identifier>)", path + ("attribute",))
        request_name = ref.get("requestName")
        if not isinstance(request_name, str) or not request_name:
            self.add(i, C_ENV_REQUEST, ERROR, "requestName is required", path + ("requestName",))
            return
        parts = request_name.split("/")
        if len(parts) > 2 or not all(parts):
            self.add(i, C_ENV_REQUEST, ERROR,
                     f'"{request_name}" must be a request name or a request and a subrequest '
                     "separated by '/'", path + ("requestName",))
            return
        obj = resolved.get(claim_name)
        if obj is None:
            return  # claim not among the inputs: nothing more to check
        requests = _requests(_claim_spec(obj))
        owner = f'{obj.doc.get("kind")} "{_name(obj.doc)}"'
        request = requests.get(parts[0])
        if request is None:
            self.add(i, C_ENV_REQUEST, ERROR,
                     f'request "{parts[0]}" does not exist in {owner} '
                     f'(requests: {", ".join(sorted(requests)) or "none"})'
                     + _suggest(parts[0], requests), path + ("requestName",))
            return
        subs = _subrequests(request)
        counts: list[int | None]
        if len(parts) == 2:
            sub = subs.get(parts[1])
            if sub is None:
                self.add(i, C_ENV_REQUEST, ERROR,
                         f'request "{parts[0]}" of {owner} has no subrequest "{parts[1]}"'
                         + (f' (firstAvailable: {", ".join(subs)})' if subs
                            else " (it has no firstAvailable)"), path + ("requestName",))
                return
            counts = [_count(sub)]
        elif subs:
            counts = [_count(s) for s in subs.values()]
        else:
            exactly = request.get("exactly")
            counts = [_count(exactly)] if isinstance(exactly, dict) else [None]
        index = ref.get("deviceIndex")
        if index is None or isinstance(index, bool) or not isinstance(index, int):
            return
        if index < 0:
            self.add(i, C_ENV_INDEX, ERROR, f"deviceIndex {index} must not be negative",
                     path + ("deviceIndex",))
            return
        if None in counts:
            return  # allocationMode All: the device count is only known after allocation
        most = max(counts)
        if index >= most:
            self.add(i, C_ENV_INDEX, ERROR,
                     f'deviceIndex {index} is out of range: request "{request_name}" of {owner} '
                     f"gets {most} device{'s' if most != 1 else ''}"
                     + (" at most" if len(set(counts)) > 1 else ""), path + ("deviceIndex",))

    def check_workload_ref(self, i: int, ref: dict, namespace: str | None, path: tuple) -> None:
        name = ref.get("name")
        if not isinstance(name, str) or not name:
            return
        obj, others = self.index.find("Workload", name, namespace)
        if obj is None:
            self.add(i, C_WORKLOAD_MISSING, WARNING,
                     _elsewhere("Workload", name, namespace, others)
                     + "; unless it exists in the cluster the pod waits in PreEnqueue",
                     path + ("name",))
            return
        group = ref.get("podGroup")
        spec = obj.doc.get("spec")
        groups = spec.get("podGroups") if isinstance(spec, dict) else None
        if not isinstance(group, str) or not group or not isinstance(groups, list):
            return
        names = [g.get("name") for g in groups if isinstance(g, dict)]
        if group not in names:
            self.add(i, C_WORKLOAD_GROUP, ERROR,
                     f'Workload "{name}" has no pod group "{group}" '
                     f'(pod groups: {", ".join(str(n) for n in names) or "none"})'
                     + _suggest(group, [n for n in names if isinstance(n, str)]),
                     path + ("podGroup",))


def _is_attribute_name(name: str) -> bool:
    parts = name.split("/")
    if len(parts) == 1:
        return not is_c_identifier(parts[0]) and len(parts[0]) <= 32
    if len(parts) == 2:
        domain, ident = parts
        return bool(domain) and len(domain) <= 63 and not is_dns1123_subdomain(domain.lower()) \
            and not is_c_identifier(ident) and len(ident) <= 32
    return False


def check_references(docs: Sequence[Any], ctx: RuleContext) -> list[tuple[int, Finding]]:
    """(index into docs, finding) for every reference problem among the documents (parsed
    objects or their models: dractl.models)."""
    try:
        return _Checker(docs, ctx).run()
    except RecursionError:
        return []
    except Exception as exc:  # noqa: BLE001 - never raise on user input
        return [(0, Finding(ERROR, "DRA1999", f"internal error in the reference checks: "
                                              f"{type(exc).__name__}: {exc}"))] if docs else []

