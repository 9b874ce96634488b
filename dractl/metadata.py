"""The device metadata files of KEP-5304 (what upstream chose instead of env vars).

A DRA driver built with the kubelet-plugin helper and `--enable-device-metadata` writes, per
prepared claim and request, a JSON file that the container runtime mounts (through CDI) into the
containers receiving that request's devices (docs/api-and-scheduling.md 7b). dractl predicts the
path each container would see and, from the ResourceSlice attributes of the dry-run allocation,
the file's content. The content is a prediction: the real one is produced by the driver.
"""

from __future__ import annotations

import json
from typing import Any

from dractl.models.devices import DeviceIndex
from dractl.simulate.state import SCHEDULED, Plan, PodResult

BASE = "/var/run/kubernetes.io/dra-device-attributes"
API_VERSION = "metadata.resource.k8s.io/v1alpha1"
POD_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"


def _attribute_json(value) -> Any:
    if value is None:
        return {}
    kind, raw = value.type, value.value
    return {kind: list(raw) if isinstance(raw, tuple) else raw}


def _qualified(device, name: str) -> str:
    return name if "/" in name else f"{device.driver}/{name}"


def container_files(result: PodResult, devices: DeviceIndex) -> dict[str, list[dict]]:
    """container name -> [{"path", "claim", "request", "driver", "content"}] for a scheduled pod."""
    out: dict[str, list[dict]] = {}
    if result.status != SCHEDULED:
        return out
    spec = result.pod.spec
    entries = {c.get("name"): c for c in result.pod.pod_claims()}
    by_name = {ref.name: ref.claim for ref in result.claims if ref.claim is not None}
    for section in ("initContainers", "containers"):
        for container in spec.get(section) or []:
            if not isinstance(container, dict):
                continue
            files = []
            resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
            for use in resources.get("claims") or []:
                if not isinstance(use, dict):
                    continue
                claim = by_name.get(use.get("name"))
                entry = entries.get(use.get("name")) or {}
                if claim is None or claim.allocation is None:
                    continue
                files.extend(_claim_files(claim, entry, use.get("request"), devices))
            if files:
                out[str(container.get("name"))] = files
    return out


def _claim_files(claim, entry: dict, only_request: str | None, devices: DeviceIndex) -> list[dict]:
    from_template = bool(entry.get("resourceClaimTemplateName"))
    pod_claim = entry.get("name")
    # request base name -> driver -> [(full request ref, result)]
    grouped: dict[str, dict[str, list]] = {}
    for r in claim.allocation.devices:
        base = r.request.split("/")[0]
        if only_request and only_request != base:
            continue
        grouped.setdefault(base, {}).setdefault(r.driver, []).append(r)
    files = []
    for base, drivers in grouped.items():
        for driver, results in drivers.items():
            if from_template:
                path = f"{BASE}/resourceclaimtemplates/{pod_claim}/{base}/{driver}-metadata.json"
            else:
                path = f"{BASE}/resourceclaims/{claim.name}/{base}/{driver}-metadata.json"
            requests: dict[str, list] = {}
            for r in results:
                device = devices.get(r.driver, r.pool, r.device)
                attributes = {}
                if device is not None:
                    attributes = {_qualified(device, k): _attribute_json(v)
                                  for k, v in sorted(device.attributes.items())}
                requests.setdefault(r.request, []).append(
                    {"driver": r.driver, "pool": r.pool, "name": r.device, "attributes": attributes})
            doc: dict[str, Any] = {
                "apiVersion": API_VERSION,
                "kind": "DeviceMetadata",
                "metadata": {"name": claim.name, "namespace": claim.namespace, "uid": claim.uid,
                             "generation": 1},
            }
            if from_template:
                doc["podClaimName"] = pod_claim
            doc["requests"] = [{"name": name, "devices": devs} for name, devs in requests.items()]
            files.append({"path": path, "claim": claim.name, "request": base, "driver": driver,
                          "content": json.dumps(doc, sort_keys=False) + "\n"})
    return files


def plan_files(plan: Plan) -> list[dict]:
    """Per scheduled pod with claims: {"namespace", "name", "containers": {name: [files]}}."""
    devices = DeviceIndex(plan.slices)
    out = []
    for result in plan.pods:
        files = container_files(result, devices)
        if files:
            out.append({"namespace": result.namespace, "name": result.name, "node": result.node,
                        "containers": files})
    return out
