"""Builders and a tiny selector engine for allocator unit tests.

`FakeEngine` evaluates selectors written as *Python* expressions over the device model
(`device.driver == "a"`, `attr("model") == "x"`), so the allocator can be tested independently of
the CEL package. Magic expressions raise the CEL package's error types: `COMPILE_ERROR` always
fails to compile, `RUNTIME_ERROR` always fails at runtime, and an expression ending in `RUNTIME`
fails at runtime on devices without an `ok` attribute (a missing key).
"""

from __future__ import annotations

from dractl.allocator import Allocator, AllocatorFeatures, Compat
from dractl.api.resource import DeviceClass, ResourceClaim, ResourceSlice
from dractl.cel.errors import CelCompileError, CelRuntimeError

NODE = {"metadata": {"name": "node-1", "labels": {"region": "r1"}}}


class FakeEngine:
    def __init__(self):
        self.calls: list[tuple[str, str]] = []

    def matches(self, expression: str, device) -> bool:
        self.calls.append((expression, device.name))
        if expression == "COMPILE_ERROR":
            raise CelCompileError(expression, "undeclared reference to 'COMPILE_ERROR' (in container '')", 1, 1)
        if expression == "RUNTIME_ERROR" or (expression.endswith("RUNTIME") and "ok" not in device.attributes):
            raise CelRuntimeError(expression, "no such key: model")

        def attr(name):
            value = device.attributes.get(name)
            return None if value is None else value.value

        return bool(eval(expression, {"device": device, "attr": attr}))  # noqa: S307 - test helper


def features(**overrides) -> AllocatorFeatures:
    base = dict(admin_access=True, prioritized_list=True, partitionable_devices=True, device_taints=True,
                device_binding_and_status=True, consumable_capacity=True, list_type_attributes=False)
    base.update(overrides)
    return AllocatorFeatures(**base)


def device_class(name="class-a", driver="driver-a", selectors=None, config=None) -> DeviceClass:
    sels = selectors if selectors is not None else [f'device.driver == "{driver}"']
    spec = {"selectors": [{"cel": {"expression": e}} for e in sels]}
    if config:
        spec["config"] = config
    return DeviceClass.from_dict({"metadata": {"name": name}, "spec": spec})


def device(name, **fields) -> dict:
    d = {"name": name}
    d.update(fields)
    return d


def slice_(name="slice-1", driver="driver-a", pool="pool-1", devices=(), node="node-1", count=1, generation=1,
           **spec) -> ResourceSlice:
    s = {"driver": driver, "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
         "devices": [d if isinstance(d, dict) else {"name": d} for d in devices]}
    if node is not None and not any(k in spec for k in ("allNodes", "nodeSelector", "perDeviceNodeSelection")):
        s["nodeName"] = node
    s.update(spec)
    return ResourceSlice.from_dict({"metadata": {"name": name}, "spec": s})


def request(name="req-0", cls="class-a", count=1, mode="ExactCount", selectors=(), **extra) -> dict:
    exactly = {"deviceClassName": cls, "allocationMode": mode}
    if mode == "ExactCount":
        exactly["count"] = count
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    exactly.update(extra)
    return {"name": name, "exactly": exactly}


def claim(name="claim-0", requests=None, constraints=None, config=None, allocation=None) -> ResourceClaim:
    devices = {"requests": requests if requests is not None else [request()]}
    if constraints:
        devices["constraints"] = constraints
    if config:
        devices["config"] = config
    doc = {"metadata": {"name": name, "namespace": "default", "uid": name}, "spec": {"devices": devices}}
    if allocation is not None:
        doc["status"] = {"allocation": allocation}
    return ResourceClaim.from_dict(doc)


def in_use(name, *device_ids, share_id=None, consumed=None, admin=False) -> ResourceClaim:
    results = []
    for driver, pool, dev in device_ids:
        r = {"request": "req", "driver": driver, "pool": pool, "device": dev}
        if share_id:
            r["shareID"] = share_id
        if consumed is not None:
            r["consumedCapacity"] = consumed
        if admin:
            r["adminAccess"] = True
        results.append(r)
    return claim(name, [request("req")], allocation={"devices": {"results": results}})


DEFAULT_COMPAT = Compat()


def allocator(classes=(), slices=(), allocated=(), engine=None, compat=DEFAULT_COMPAT, **feature_overrides) -> Allocator:
    return Allocator(features(**feature_overrides), classes, slices, allocated, (),
                     engine or FakeEngine(), compat=compat, share_id=lambda: "share")


def picked(outcome, claim_index=0) -> list[str]:
    return [f"{r.request}:{r.device}" for r in outcome.results[claim_index].devices]
