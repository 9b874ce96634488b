"""dractl's own lints for device-attribute env references, before any allocation.

A `resourceSliceAttributeRef` fails at container start when a chosen device lacks the attribute
(the kubelet-faithful rule). The scheduler only guarantees what the selectors demand, so an
attribute that no selector of the request or its class mentions may be missing on some devices
the scheduler could pick: the pod would crash-loop on some nodes and not on others.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from dractl.findings import INFO, WARNING, Finding, register
from dractl.models.controllers import pod_spec_path
from dractl.models.objects import as_models

C_NOT_GUARANTEED = register("DRA6101", WARNING, "env ref: no selector of the request or its "
                            "DeviceClass guarantees the attribute, so a chosen device may lack it",
                            "dractl")
C_JOINED = register("DRA6102", INFO, "env ref without deviceIndex on a request that can get several "
                    "devices: the value is a comma-joined list", "dractl")
C_ALTERNATIVES = register("DRA6103", WARNING, "env ref on a firstAvailable request: some "
                          "alternatives do not guarantee the attribute", "dractl")
C_DUPLICATE_ENV = register("DRA6104", WARNING, "a container defines the same env var twice (the "
                           "last one wins)", "dractl")

def _get(obj: Any, path: Sequence) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _str(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _mentions(expressions: list[str], attribute: str, driver_hint: str | None = None) -> bool:
    """Does any selector name the attribute? (`has(...x)`, `"x" in ...`, `...x == ...` all imply
    that a device without it is not selected or makes the selector fail.)"""
    name = attribute.rpartition("/")[2]
    pattern = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])")
    return any(pattern.search(e) for e in expressions)


def _selector_exprs(selectors: Any) -> list[str]:
    out = []
    for s in _list(selectors):
        expr = _get(s, ("cel", "expression"))
        if isinstance(expr, str):
            out.append(expr)
    return out


def check_env_refs(docs: Sequence[Any]) -> list[tuple[int, Finding]]:
    """(document index, finding) for every env-ref lint (parsed objects or their models:
    dractl.models). Only pods the dry run creates have their references resolved, so only
    their specs are linted."""
    models = as_models(docs)
    docs = [m.data for m in models]
    templates: dict = {}
    claims: dict = {}
    classes: dict = {}
    indexed = False

    def index_claims() -> None:
        # Only when some env var references a device attribute: few inputs have one, and an
        # inventory can hold thousands of claims.
        for model, d in zip(models, docs, strict=True):
            if not isinstance(d, dict):
                continue
            kind = _str(d.get("kind"))
            meta = d.get("metadata") if isinstance(d.get("metadata"), dict) else {}
            ns, name = _str(meta.get("namespace")) or "default", _str(meta.get("name"))
            if kind == "ResourceClaimTemplate":
                templates[(ns, name)] = _get(model.v1, ("spec", "spec"))
            elif kind == "ResourceClaim":
                claims[(ns, name)] = _get(model.v1, ("spec",))
            elif kind == "DeviceClass":
                classes[name] = _selector_exprs(_get(d, ("spec", "selectors")))

    out: list[tuple[int, Finding]] = []
    for index, d in enumerate(docs):
        spec_path = pod_spec_path(_str(d.get("kind")), created_only=True) \
            if isinstance(d, dict) else None
        spec = _get(d, spec_path) if spec_path else None
        if not isinstance(spec, dict) or not _has_env(spec):
            continue  # nothing to lint (most pods): no per-pod lookups
        ns = _str(_get(d, ("metadata", "namespace"))) or "default"
        pod_claims = {_str(c.get("name")): c for c in _list(spec.get("resourceClaims"))
                      if isinstance(c, dict)}
        for section in ("initContainers", "containers"):
            for ci, container in enumerate(_list(spec.get(section))):
                if not isinstance(container, dict):
                    continue
                seen: dict[str, int] = {}
                for ei, env in enumerate(_list(container.get("env"))):
                    if not isinstance(env, dict):
                        continue
                    base = spec_path + (section, ci, "env", ei)
                    name = env.get("name")
                    if isinstance(name, str) and name in seen:
                        out.append((index, Finding(WARNING, C_DUPLICATE_ENV, f"env {name} is also set "
                                                   f"at env[{seen[name]}]; the last one wins",
                                                   base + ("name",))))
                    if isinstance(name, str):
                        seen[name] = ei
                    ref = _get(env, ("valueFrom", "resourceSliceAttributeRef"))
                    if isinstance(ref, dict):
                        if not indexed:
                            index_claims()
                            indexed = True
                        out.extend((index, f) for f in _check_ref(
                            ref, base + ("valueFrom", "resourceSliceAttributeRef"), ns, pod_claims,
                            templates, claims, classes))
    return out


def _has_env(spec: dict) -> bool:
    for section in ("initContainers", "containers"):
        for container in _list(spec.get(section)):
            if isinstance(container, dict) and _list(container.get("env")):
                return True
    return False


def _check_ref(ref: dict, path: tuple, ns: str, pod_claims: dict, templates: dict, claims: dict,
               classes: dict) -> list[Finding]:
    attribute, request_name = ref.get("attribute"), ref.get("requestName")
    entry = pod_claims.get(_str(ref.get("claimName")))
    if not isinstance(attribute, str) or not isinstance(request_name, str) or entry is None:
        return []  # malformed references are reported by the reference checks
    if entry.get("resourceClaimTemplateName"):
        claim_spec = templates.get((ns, _str(entry["resourceClaimTemplateName"])))
    else:
        claim_spec = claims.get((ns, _str(entry.get("resourceClaimName"))))
    if not isinstance(claim_spec, dict):
        return []
    base, _, sub = request_name.partition("/")
    request = next((r for r in _list(_get(claim_spec, ("devices", "requests")))
                    if isinstance(r, dict) and r.get("name") == base), None)
    if request is None:
        return []
    findings = []
    exactly = request.get("exactly")
    if isinstance(exactly, dict):
        alternatives = [(base, exactly)]
    else:
        alternatives = [(f"{base}/{s.get('name')}", s) for s in _list(request.get("firstAvailable"))
                        if isinstance(s, dict) and (not sub or s.get("name") == sub)]
    unguarded = []
    domain = None
    for label, alt in alternatives:
        exprs = _selector_exprs(alt.get("selectors")) + classes.get(_str(alt.get("deviceClassName")), [])
        if not _mentions(exprs, attribute):
            unguarded.append((label, alt.get("deviceClassName")))
        for e in exprs:
            m = _DRIVER.search(e)
            if m and domain is None:
                domain = m.group(1)
    if unguarded and len(alternatives) > 1:
        findings.append(Finding(WARNING, C_ALTERNATIVES, f"attribute {attribute} is not guaranteed by "
                                f"the alternatives {', '.join(l for l, _ in unguarded)}: if the scheduler "
                                "picks one of them the container may fail to start; add a selector such as "
                                f"{_guard(attribute, domain)} to each alternative", path + ("attribute",)))
    elif unguarded:
        label, cls = unguarded[0]
        findings.append(Finding(WARNING, C_NOT_GUARANTEED, f"attribute {attribute} is not guaranteed by "
                                f"the selectors of request {label} or DeviceClass {cls}: a device "
                                "without it can be chosen and the container would then fail to start; "
                                f"guard it with a selector such as {_guard(attribute, domain)}",
                                path + ("attribute",)))
    if ref.get("deviceIndex") is None and any(
            alt.get("allocationMode") == "All" or (isinstance(alt.get("count"), int) and alt["count"] > 1)
            for _, alt in alternatives):
        findings.append(Finding(INFO, C_JOINED, f"request {request_name} can get several devices and "
                                "deviceIndex is not set: the value joins all of them with ','",
                                path))
    return findings


_DRIVER = re.compile(r"""device\.driver\s*==\s*['\"]([^'\"]+)['\"]""")


def _guard(attribute: str, driver: str | None) -> str:
    domain, sep, name = attribute.partition("/")
    if not sep:  # unqualified: the driver's domain
        domain, name = driver or "<driver>", attribute
    return f'has(device.attributes["{domain}"].{name})'
