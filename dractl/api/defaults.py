"""API-server defaulting of ResourceClaim specs (docs/spec/api-and-scheduling.md#defaulting),
written once.

Used by validation (which validates the defaulted object, like the API server), by the models
stage (dractl.models: a claim's defaulted spec, computed once per object) and by the YAML
report (objects printed as the cluster would store them, in the Go structs' field order).
"""

from __future__ import annotations

from typing import Any

from dractl.api.jsoncopy import copy_json

EXACT_COUNT = "ExactCount"

# Field order of the Go structs: the API server serialises stored objects in this order.
# `derivedAttributes` (1.37) is the last field of ExactDeviceRequest and DeviceSubRequest.
_REQUEST_ORDER = ("name", "deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
                  "tolerations", "capacity", "derivedAttributes")
_DERIVED_ORDER = ("name", "expression")
_TOLERATION_ORDER = ("key", "operator", "value", "effect", "tolerationSeconds")


def allocation_defaults(mode: Any, count: Any) -> tuple[Any, Any]:
    """The API server's defaults of an exact request's or subrequest's allocationMode and
    count: mode ExactCount when unset or empty, count 1 for ExactCount when unset or zero.
    Values of another type are returned as they are (validation reports them)."""
    if mode in (None, ""):
        mode = EXACT_COUNT
    if mode == EXACT_COUNT and count in (None, 0) and not isinstance(count, bool):
        count = 1
    return mode, count


def default_allocation(request: dict) -> None:
    """In place, on an exact request or a subrequest: allocation_defaults()."""
    mode, count = allocation_defaults(request.get("allocationMode"), request.get("count"))
    request["allocationMode"] = mode
    if count is not None:
        request["count"] = count


def default_tolerations(tolerations: Any) -> None:
    """In place: an empty toleration operator becomes Equal."""
    if not isinstance(tolerations, list):
        return
    for toleration in tolerations:
        if isinstance(toleration, dict) and toleration.get("operator") in (None, ""):
            toleration["operator"] = "Equal"


def default_request(request: dict) -> None:
    """In place: every default of an exact request or subrequest."""
    default_allocation(request)
    default_tolerations(request.get("tolerations"))


def exact_count_request(name: str, device_class: str, count: int) -> dict:
    """A request as the API server stores one that asks for `count` devices of a class (the
    claims dractl creates itself, e.g. KEP-5004's extended-resource claim)."""
    return {"name": name, "exactly": {"deviceClassName": device_class,
                                      "allocationMode": EXACT_COUNT, "count": count}}


def _ordered(d: dict, order: tuple) -> dict:
    out = {k: d[k] for k in order if k in d}
    out.update((k, v) for k, v in d.items() if k not in out)
    return out


def _stored_request(request: dict) -> dict:
    request = dict(request)
    default_request(request)
    if isinstance(request.get("tolerations"), list):
        request["tolerations"] = [_ordered(t, _TOLERATION_ORDER) if isinstance(t, dict) else t
                                  for t in request["tolerations"]]
    return _ordered(request, _REQUEST_ORDER)


def defaulted_claim_spec(spec: Any) -> Any:
    """A copy of a v1 ResourceClaim spec with the API server's defaults applied, fields in the
    order the API server stores them."""
    if not isinstance(spec, dict):
        return spec
    out = copy_json(spec)
    devices = out.get("devices")
    if not isinstance(devices, dict):
        return out
    for request in devices.get("requests") or []:
        if not isinstance(request, dict):
            continue
        if isinstance(request.get("exactly"), dict):
            request["exactly"] = _stored_request(request["exactly"])
        if isinstance(request.get("firstAvailable"), list):
            request["firstAvailable"] = [_stored_request(sub) if isinstance(sub, dict) else sub
                                         for sub in request["firstAvailable"]]

    _order_derived_attributes(devices)
    return out


def _order_derived_attributes(devices: dict) -> None:
    """derivedAttributes entries in the Go struct's order (name, expression), in place."""
    for request in devices.get("requests") or []:
        if not isinstance(request, dict):
            continue
        subrequests = request.get("firstAvailable")
        targets = [request.get("exactly")] + (subrequests if isinstance(subrequests, list) else [])
        for target in targets:
            if isinstance(target, dict) and isinstance(target.get("derivedAttributes"), list):
                target["derivedAttributes"] = [
                    _ordered(d, _DERIVED_ORDER) if isinstance(d, dict) else d
                    for d in target["derivedAttributes"]]
