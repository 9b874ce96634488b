"""Convert resource.k8s.io objects of older API versions to the v1 shape
(docs/spec/api-and-scheduling.md#conversion).

v1beta2 has exactly the v1 shape. v1beta1 (and the removed v1alpha3, which has the same shape for
claims and slices) differs in three places:

* DeviceRequest is flat (`deviceClassName`, `selectors`, ... next to `name`) instead of
  `name` + one of `exactly{...}` / `firstAvailable[...]`. Like the API server's conversion,
  `firstAvailable` is always copied and an `exactly` is created whenever any flat field is set, so
  a request with both (or with neither) stays invalid and validation reports it.
* Device fields sit under `basic{...}`; they are lifted onto the device.
* ResourceSliceSpec `nodeName: ""` and `allNodes: false` mean "unset".

Paths: validation works on the v1 shape, like the API server (which validates its internal type),
but findings must point at what the user wrote. `convert()` therefore also returns a `Converted`
whose `original_path()` maps a path in the v1 document back to the path in the input
(`spec.devices.requests[0].exactly.count` -> `spec.devices.requests[0].count`,
`spec.devices[2].attributes[x]` -> `spec.devices[2].basic.attributes[x]`).

The results share unchanged sub-objects with the input: treat both as read-only (deep-copy before
mutating, as the validation rules do).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

GROUP = "resource.k8s.io"
V1 = f"{GROUP}/v1"

# Kinds whose shape differs between v1beta1 and v1.
_CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")
_SLICE_KIND = "ResourceSlice"

# API versions converted with the v1beta1 rules, and those identical to v1.
_BETA1_SHAPED = (f"{GROUP}/v1beta1", f"{GROUP}/v1alpha3")
_V1_SHAPED = (f"{GROUP}/v1beta2", V1)

# Flat v1beta1 request fields that move into `exactly`.
# `derivedAttributes` (1.37, KEP-6080) sits on the flat v1beta1 request like the others.
_FLAT_REQUEST_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
                        "tolerations", "capacity", "derivedAttributes")


@dataclass(frozen=True)
class _Rule:
    v1_prefix: tuple
    original_prefix: tuple
    keep: frozenset = frozenset()  # first key after the prefix that is NOT rewritten
    keep_exact: bool = False       # the prefix itself maps to itself (not to original_prefix)


@dataclass
class Converted:
    """A document in v1 shape plus how to map its paths back to the input's paths."""

    doc: Any
    source_api_version: str = ""
    converted: bool = False
    _rules: list = field(default_factory=list)

    def original_path(self, path: tuple) -> tuple:
        path = tuple(path)
        for rule in self._rules:
            n = len(rule.v1_prefix)
            if path[:n] != rule.v1_prefix:
                continue
            rest = path[n:]
            if (rest and rest[0] in rule.keep) or (not rest and rule.keep_exact):
                return path
            return rule.original_prefix + rest
        return path


def to_v1(doc: dict) -> dict:
    """The v1-shaped equivalent of a resource.k8s.io object (other objects are returned as is)."""
    return convert(doc).doc


def convert(doc: Any) -> Converted:
    if not isinstance(doc, dict):
        return Converted(doc)
    api_version = doc.get("apiVersion")
    kind = doc.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return Converted(doc)
    if api_version in _V1_SHAPED:
        if api_version == V1:
            return Converted(doc, api_version)
        out = dict(doc)
        out["apiVersion"] = V1
        return Converted(out, api_version, converted=True)
    if api_version not in _BETA1_SHAPED:
        return Converted(doc, api_version)

    rules: list[_Rule] = []
    out = dict(doc)
    out["apiVersion"] = V1
    if kind == "ResourceClaim":
        out["spec"] = _convert_claim_spec(doc.get("spec"), ("spec",), rules)
    elif kind == "ResourceClaimTemplate":
        spec = doc.get("spec")
        if isinstance(spec, dict):
            spec = dict(spec)
            spec["spec"] = _convert_claim_spec(spec.get("spec"), ("spec", "spec"), rules)
            out["spec"] = spec
    elif kind == _SLICE_KIND:
        out["spec"] = _convert_slice_spec(doc.get("spec"), rules)
    # DeviceClass, DeviceTaintRule: same shape in every version.
    return Converted(out, api_version, converted=True, _rules=rules)


def _convert_claim_spec(spec: Any, path: tuple, rules: list) -> Any:
    if not isinstance(spec, dict):
        return spec
    devices = spec.get("devices")
    if not isinstance(devices, dict):
        return spec
    requests = devices.get("requests")
    if not isinstance(requests, list):
        return spec
    new_requests = []
    for i, request in enumerate(requests):
        if not isinstance(request, dict):
            new_requests.append(request)
            continue
        new_requests.append(_convert_request(request))
        if any(k in request for k in _FLAT_REQUEST_FIELDS):
            req_path = path + ("devices", "requests", i)
            rules.append(_Rule(req_path + ("exactly",), req_path))
    spec = dict(spec)
    spec["devices"] = dict(devices, requests=new_requests)
    return spec


def _convert_request(request: dict) -> dict:
    out: dict = {}
    exactly: dict = {}
    for key, value in request.items():
        if key in _FLAT_REQUEST_FIELDS:
            exactly[key] = value
        else:
            out[key] = value
    if _any_main_field_set(request):
        out["exactly"] = exactly
    return out


def _any_main_field_set(request: dict) -> bool:
    """Mirror of the API server's hasAnyMainRequestFieldsSet: zero values count as unset."""
    for key in _FLAT_REQUEST_FIELDS:
        value = request.get(key)
        if key in ("selectors", "tolerations", "capacity", "adminAccess", "derivedAttributes"):
            # Pointers / slices / maps: set when non-nil, even if empty.
            if value is not None:
                return True
        elif value not in (None, "", 0):
            return True
    return False


def _convert_slice_spec(spec: Any, rules: list) -> Any:
    if not isinstance(spec, dict):
        return spec
    spec = dict(spec)
    if spec.get("nodeName") == "":
        del spec["nodeName"]
    if spec.get("allNodes") is False:
        del spec["allNodes"]
    devices = spec.get("devices")
    if isinstance(devices, list):
        new_devices = []
        for i, device in enumerate(devices):
            if isinstance(device, dict) and "basic" in device:
                basic = device.get("basic")
                lifted = {k: v for k, v in device.items() if k != "basic"}
                if isinstance(basic, dict):
                    for key, value in basic.items():
                        lifted.setdefault(key, value)
                new_devices.append(lifted)
                rules.append(_Rule(("spec", "devices", i), ("spec", "devices", i, "basic"),
                                   frozenset({"name"}), keep_exact=True))
            else:
                new_devices.append(device)
        spec["devices"] = new_devices
    return spec
