"""API-server defaulting of ResourceClaim specs (docs/api-and-scheduling.md 2.3), for printing
objects as the cluster would store them."""

from __future__ import annotations

from typing import Any

from dractl.api.jsoncopy import copy_json


# Field order of the Go structs: the API server serialises stored objects in this order.
# `derivedAttributes` (1.37) is the last field of ExactDeviceRequest and DeviceSubRequest.
_REQUEST_ORDER = ("name", "deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
                  "tolerations", "capacity", "derivedAttributes")
_DERIVED_ORDER = ("name", "expression")
_TOLERATION_ORDER = ("key", "operator", "value", "effect", "tolerationSeconds")


def _ordered(d: dict, order: tuple) -> dict:
    out = {k: d[k] for k in order if k in d}
    out.update((k, v) for k, v in d.items() if k not in out)
    return out


def _default_request(request: dict) -> dict:
    request = dict(request)
    if request.get("allocationMode") in (None, ""):
        request["allocationMode"] = "ExactCount"
    if request["allocationMode"] == "ExactCount" and request.get("count") in (None, 0) \
            and not isinstance(request.get("count"), bool):
        request["count"] = 1
    if isinstance(request.get("tolerations"), list):
        tolerations = []
        for toleration in request["tolerations"]:
            if isinstance(toleration, dict):
                toleration = dict(toleration)
                if toleration.get("operator") in (None, ""):
                    toleration["operator"] = "Equal"
                toleration = _ordered(toleration, _TOLERATION_ORDER)
            tolerations.append(toleration)
        request["tolerations"] = tolerations
    return _ordered(request, _REQUEST_ORDER)


def defaulted_claim_spec(spec: Any) -> Any:
    """A copy of a v1 ResourceClaim spec with the API server's defaults applied."""
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
            request["exactly"] = _default_request(request["exactly"])
        if isinstance(request.get("firstAvailable"), list):
            request["firstAvailable"] = [_default_request(sub) if isinstance(sub, dict) else sub
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
