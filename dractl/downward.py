"""Device attributes into container env: `env[].valueFrom.resourceSliceAttributeRef`.

This is dractl's own extension (the env-var design of the KEP-5304 review, never merged upstream;
see docs/spec/api-and-scheduling.md#env-extension). References are resolved against the dry run's
allocation as the kubelet would have resolved them at container start:

1. `claimName` names an entry of `pod.spec.resourceClaims`; the claim is the named one or, for
   templates, the generated one from `pod.status.resourceClaimStatuses`.
2. `requestName` selects the allocation results of that request, in allocation order; a
   request with subrequests matches results of `request/<chosen subrequest>`; `req/sub` matches
   exactly.
3. The attribute is looked up on each device in its ResourceSlice: a qualified name as written,
   an unqualified name in the device driver's domain.
4. `deviceIndex` set: that device only (zero-based). Unset: all values joined with ",".

Absent attributes: by default the later review revision (what the kubelet would do): if any
selected device lacks the attribute, the container fails to start. `lenient=True` follows the
first revision: devices lacking it are skipped, and only "none has it" is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from dractl.api.resource import Device
from dractl.findings import ERROR, WARNING, register
from dractl.models.devices import DeviceIndex  # noqa: F401 - also imported from here by simulate/
from dractl.simulate.state import SCHEDULED, Plan, PodResult, Reason

C_NO_POD_CLAIM = register("DRA6001", ERROR, "env ref: claimName is not an entry of "
                          "pod.spec.resourceClaims (container would fail to start)", "dractl")
C_NO_REQUEST = register("DRA6002", ERROR, "env ref: the claim has no allocated devices for "
                        "requestName (container would fail to start)", "dractl")
C_NOT_IN_CONTAINER = register("DRA6003", ERROR, "env ref: the container does not list the claim "
                              "(or that request) in resources.claims", "dractl")
C_INDEX = register("DRA6004", ERROR, "env ref: deviceIndex is out of range", "dractl")
C_ABSENT = register("DRA6005", ERROR, "env ref: a selected device lacks the attribute "
                    "(container would fail to start)", "dractl")
C_NOT_ALLOCATED = register("DRA6006", ERROR, "env ref: the claim is not allocated (the pod did not "
                           "schedule), so nothing can be resolved", "dractl")
C_SLICE_MISSING = register("DRA6007", ERROR, "env ref: an allocated device is not in any "
                           "ResourceSlice", "dractl")
C_BAD_REF = register("DRA6008", ERROR, "env ref: claimName, requestName or attribute is missing",
                     "dractl")


@dataclass(frozen=True)
class EnvRef:
    container: str
    env_name: str
    claim_name: str
    request_name: str
    attribute: str
    device_index: int | None
    path: tuple        # inside the pod spec, for positions


@dataclass
class Resolved:
    value: str
    devices: tuple[str, ...]   # driver/pool/device the value came from


def env_refs(pod_spec: Mapping[str, Any]) -> list[EnvRef]:
    refs = []
    for section in ("initContainers", "containers"):
        containers = pod_spec.get(section)
        if not isinstance(containers, list):
            continue
        for ci, container in enumerate(containers):
            if not isinstance(container, dict):
                continue
            for ei, env in enumerate(container.get("env") or []):
                if not isinstance(env, dict):
                    continue
                source = env.get("valueFrom")
                ref = source.get("resourceSliceAttributeRef") if isinstance(source, dict) else None
                if not isinstance(ref, dict):
                    continue
                index = ref.get("deviceIndex")
                refs.append(EnvRef(
                    str(container.get("name") or ""), str(env.get("name") or ""),
                    str(ref.get("claimName") or ""), str(ref.get("requestName") or ""),
                    str(ref.get("attribute") or ""),
                    index if isinstance(index, int) and not isinstance(index, bool) else None,
                    (section, ci, "env", ei, "valueFrom", "resourceSliceAttributeRef")))
    return refs


def lookup_attribute(device: Device, attribute: str):
    """The attribute value, with Kubernetes' domain rules: unqualified = the driver's domain."""
    domain, sep, name = attribute.partition("/")
    if not sep:
        domain, name = device.driver, attribute
    for key, value in device.attributes.items():
        kd, ksep, kn = key.partition("/")
        if not ksep:
            kd, kn = device.driver, key
        if kd == domain and kn == name:
            return value
    return None


def _container_lists(pod_spec: Mapping[str, Any], container: str, claim: str, request: str) -> bool:
    for section in ("initContainers", "containers"):
        for c in pod_spec.get(section) or []:
            if not isinstance(c, dict) or c.get("name") != container:
                continue
            resources = c.get("resources") if isinstance(c.get("resources"), dict) else {}
            for entry in resources.get("claims") or []:
                if not isinstance(entry, dict) or entry.get("name") != claim:
                    continue
                wanted = entry.get("request")
                if not wanted or wanted == request or wanted == request.split("/")[0]:
                    return True
    return False


def resolve_ref(ref: EnvRef, result: PodResult, devices: DeviceIndex,
                lenient: bool = False) -> Resolved | Reason:
    where = f"env {ref.env_name}"
    if not ref.claim_name or not ref.request_name or not ref.attribute:
        return Reason(C_BAD_REF, f"{where}: resourceSliceAttributeRef needs claimName, requestName "
                      "and attribute")
    pod_ref = next((r for r in result.claims if r.name == ref.claim_name), None)
    declared = any(isinstance(c, dict) and c.get("name") == ref.claim_name for c in result.pod.pod_claims())
    if not declared:
        return Reason(C_NO_POD_CLAIM, f"{where}: claim {ref.claim_name!r} is not in the pod's "
                      "spec.resourceClaims")
    if not _container_lists(result.pod.spec, ref.container, ref.claim_name, ref.request_name):
        return Reason(C_NOT_IN_CONTAINER, f"{where}: container {ref.container} does not list claim "
                      f"{ref.claim_name!r} (request {ref.request_name!r}) in resources.claims, so it "
                      "gets no devices from it")
    claim = pod_ref.claim if pod_ref else None
    if claim is None or claim.allocation is None or result.status != SCHEDULED:
        return Reason(C_NOT_ALLOCATED, f"{where}: claim {ref.claim_name!r} is not allocated")
    if "/" in ref.request_name:
        results = [r for r in claim.allocation.devices if r.request == ref.request_name]
    else:
        results = [r for r in claim.allocation.devices
                   if r.request == ref.request_name or r.request.split("/")[0] == ref.request_name]
    if not results:
        requests = sorted({r.request for r in claim.allocation.devices})
        return Reason(C_NO_REQUEST, f"{where}: claim {claim.name} has no devices for request "
                      f"{ref.request_name!r} (allocated requests: {', '.join(requests) or 'none'})")
    if ref.device_index is not None:
        if ref.device_index >= len(results):
            return Reason(C_INDEX, f"{where}: deviceIndex {ref.device_index} is out of range: request "
                          f"{ref.request_name} has {len(results)} device(s)")
        results = [results[ref.device_index]]
    values, used, missing = [], [], []
    for r in results:
        shown = f"{r.driver}/{r.pool}/{r.device}"
        device = devices.get(r.driver, r.pool, r.device)
        if device is None:
            return Reason(C_SLICE_MISSING, f"{where}: device {shown} is in no ResourceSlice")
        value = lookup_attribute(device, ref.attribute)
        if value is None:
            missing.append(shown)
            continue
        values.append(value.render())
        used.append(shown)
    if missing and (not lenient or not values):
        return Reason(C_ABSENT, f"{where}: attribute {ref.attribute} is absent on "
                      f"{', '.join(missing)}; the container would fail to start")
    return Resolved(",".join(values), tuple(used))


def resolve_plan(plan: Plan, slices: Iterable, lenient: bool = False) -> None:
    """Fill `env`, `env_sources` and `env_errors` of every pod in the plan that has references.

    Idempotent: what an earlier call filled in is replaced, not added to (the pipeline runs this
    stage after the dry run, whatever the dry run did itself)."""
    devices = DeviceIndex(slices)
    for result in plan.pods:
        refs = env_refs(result.pod.spec)
        if result.env or result.env_errors or result.env_sources:
            result.env, result.env_errors, result.env_sources = {}, {}, {}
        for ref in refs:
            if result.status != SCHEDULED:
                result.env_errors.setdefault(ref.container, []).append(Reason(
                    C_NOT_ALLOCATED, f"env {ref.env_name}: the pod is not scheduled; nothing to resolve",
                    severity=WARNING))
                continue
            outcome = resolve_ref(ref, result, devices, lenient)
            if isinstance(outcome, Reason):
                result.env_errors.setdefault(ref.container, []).append(outcome)
            else:
                result.env.setdefault(ref.container, {})[ref.env_name] = outcome.value
                result.env_sources.setdefault(ref.container, {})[ref.env_name] = outcome.devices
