"""The device metadata files of KEP-5304 (what upstream chose instead of env vars).

A DRA driver built with the kubelet-plugin helper (k8s.io/dynamic-resource-allocation/kubeletplugin)
that enables device metadata writes, per prepared claim, request and driver, a file that the
container runtime mounts (through CDI) into the containers receiving that request's devices
(docs/spec/api-and-scheduling.md#metadata-files). dractl predicts the path each container sees and,
from the ResourceSlice attributes of the dry-run allocation, the file's content. The content is a
prediction: the real one is produced by the driver, which "should include the attributes that they
publish for that device in its ResourceSlice" (website, dra-observability).

What the helper writes, per release (sources: dynamic-resource-allocation v0.35.0 has no
`api/metadata`; v0.36.0 `kubeletplugin/metadata.go` and `api/metadata/testdata/v1.36.0`; the
1.37 `api/metadata/v1beta1/types.go` and `testdata/HEAD` in kubernetes/kubernetes staging, and
the 1.37 website):

- 1.34, 1.35: no device metadata files at all.
- 1.36 (alpha): only `metadata.resource.k8s.io/v1alpha1`. Requested versions the helper does not
  know are skipped; none left is a start-up error.
- 1.37 (beta): `v1beta1` (required) and optionally `v1alpha1`, in the order the driver lists them.
  No versions, no `v1beta1`, or an unknown version fails the plugin's start-up.

The file is a JSON stream: the same DeviceMetadata once per configured version, each encoded by
apimachinery's pretty JSON serializer (two-space indent, `kind` before `apiVersion`, map keys
sorted) and followed by a newline. Readers take the first version they can decode.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from dractl.api.releases import change, in_force
from dractl.api.versions import DEFAULT_KUBE_VERSION
from dractl.models.devices import DeviceIndex
from dractl.simulate.state import SCHEDULED, Plan, PodResult

BASE = "/var/run/kubernetes.io/dra-device-attributes"
GROUP = "metadata.resource.k8s.io"
V1ALPHA1, V1BETA1 = f"{GROUP}/v1alpha1", f"{GROUP}/v1beta1"
API_VERSION = V1BETA1    # the version 1.37 requires (kept for callers that name one version)
POD_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"

# KEP-5304's stages are release switches (dractl/api/releases.py): `metadata_files_alpha`, from
# which the helper writes metadata files, and `metadata_files_beta` (v1beta1 required, unknown
# versions fatal). Versions the helper can encode, per stage; the newest stage in force wins.
_SUPPORTED = (("metadata_files_alpha", (V1ALPHA1,)), ("metadata_files_beta", (V1BETA1, V1ALPHA1)))
# What the release's documented drivers enable. The alpha has no default (the driver must list
# one, and v1alpha1 is the only one); the beta's documentation lists v1beta1, then v1alpha1.
_DEFAULTS = (("metadata_files_alpha", (V1ALPHA1,)), ("metadata_files_beta", (V1BETA1, V1ALPHA1)))
FIRST_RELEASE = change("metadata_files_alpha").since


class MetadataVersionError(ValueError):
    """A --metadata-versions list the release's kubelet-plugin helper refuses at start-up."""


def _row(table, release: str) -> tuple[str, ...]:
    found: tuple[str, ...] = ()
    for stage, versions in table:
        if in_force(stage, release):
            found = versions
    return found


def supported_versions(release: str) -> tuple[str, ...]:
    """The metadata API versions the release's helper can write (empty before 1.36)."""
    return _row(_SUPPORTED, release)


def default_versions(release: str) -> tuple[str, ...]:
    """What a driver of that release writes as documented (empty before 1.36)."""
    return _row(_DEFAULTS, release)


def _full_name(text: str) -> str:
    text = text.strip()
    return text if "/" in text else f"{GROUP}/{text}"


def parse_versions(text: str | None, release: str = DEFAULT_KUBE_VERSION) -> tuple[str, ...]:
    """--metadata-versions (`v1beta1,v1alpha1` or full group/version names) -> the stream's
    versions in that order, checked as the release's helper checks its configured versions.
    None: the release's default."""
    supported = supported_versions(release)
    if not supported:
        raise MetadataVersionError(
            f"Kubernetes {release} has no device metadata files: the DRA kubelet plugin helper "
            f"writes them from {FIRST_RELEASE} on (KEP-5304)")
    if text is None:
        return default_versions(release)
    requested = [_full_name(part) for part in text.split(",") if part.strip()]
    if not in_force("metadata_files_beta", release):
        return _alpha_rules(requested, supported)
    return _beta_rules(requested, supported)


def _go_list(versions: Iterable[str]) -> str:
    return "[" + " ".join(versions) + "]"   # Go's %v of a []schema.GroupVersion


def _alpha_rules(requested: list[str], supported: tuple[str, ...]) -> tuple[str, ...]:
    # 1.36 newMetadataWriter: unknown versions are skipped silently; none left is fatal
    # (upstream's message, wrapped by Start as "initialize device metadata: %w").
    kept = tuple(v for v in requested if v in supported)
    if not kept:
        raise MetadataVersionError(f"initialize device metadata: none of the requested metadata API "
                                   f"versions {_go_list(requested)} are supported")
    return kept


def _beta_rules(requested: list[str], supported: tuple[str, ...]) -> tuple[str, ...]:
    # The 1.37 rules are documented ("Enabling device metadata with no versions, without
    # v1beta1, or with an unknown version causes the plugin to fail during startup"); the 1.37
    # helper's own error texts are not in the stored sources, so these wordings are dractl's.
    if not requested:
        raise MetadataVersionError("initialize device metadata: no metadata API versions given; "
                                   f"{V1BETA1} is required")
    unknown = [v for v in requested if v not in supported]
    if unknown:
        raise MetadataVersionError(f"initialize device metadata: unknown metadata API version "
                                   f"{unknown[0]} (supported: {', '.join(supported)})")
    if V1BETA1 not in requested:
        raise MetadataVersionError(f"initialize device metadata: metadata API versions "
                                   f"{_go_list(requested)} do not include the required {V1BETA1}")
    # As given, repeats included: the helper encodes its configured list in order.
    return tuple(requested)


def _attribute_json(value) -> Any:
    if value is None:
        return {}
    kind, raw = value.type, value.value
    return {kind: list(raw) if isinstance(raw, tuple) else raw}


def container_files(result: PodResult, devices: DeviceIndex,
                    versions: tuple[str, ...] = (V1BETA1, V1ALPHA1)) -> dict[str, list[dict]]:
    """container name -> [{"path", "claim", "request", "driver", "versions", "objects",
    "content"}] for a scheduled pod (only containers that receive devices)."""
    out: dict[str, list[dict]] = {}
    if result.status != SCHEDULED:
        return out
    spec = result.pod.spec
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
                if claim is None or claim.allocation is None:
                    continue
                files.extend(_claim_files(claim, use.get("request"), devices, versions))
            if files:
                out[str(container.get("name"))] = files
    return out


def pod_claim_name(claim) -> str | None:
    """The claim's `resource.kubernetes.io/pod-claim-name` annotation, as the helper reads it
    (`newClaimRef`): the resourceclaim controller sets it on claims it generates from a
    template; None when absent."""
    manifest = getattr(claim, "manifest", None)
    meta = manifest.get("metadata") if isinstance(manifest, dict) else None
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    value = annotations.get(POD_CLAIM_ANNOTATION) if isinstance(annotations, dict) else None
    return value if isinstance(value, str) else None


def _claim_files(claim, only_request: str | None, devices: DeviceIndex,
                 versions: tuple[str, ...]) -> list[dict]:
    # As upstream: the annotation, not the pod's entry, decides; a non-empty one selects the
    # resourceclaimtemplates/<podClaimName>/ path, and a present one is written as podClaimName
    # (a claim in an inventory dump without it gets the resourceclaims/<claim>/ path).
    pod_claim = pod_claim_name(claim)
    from_template = bool(pod_claim)
    # The helper writes one file per request reference (`req` or `req/sub`) and driver; the
    # path has only the top-level request name.
    grouped: dict[tuple[str, str], list] = {}
    for r in claim.allocation.devices:
        base = r.request.split("/")[0]
        if only_request and only_request != base:
            continue
        grouped.setdefault((r.request, r.driver), []).append(r)
    files = []
    for (request_ref, driver), results in grouped.items():
        base = request_ref.split("/")[0]
        if from_template:
            path = f"{BASE}/resourceclaimtemplates/{pod_claim}/{base}/{driver}-metadata.json"
        else:
            path = f"{BASE}/resourceclaims/{claim.name}/{base}/{driver}-metadata.json"
        objects = [_device_metadata(version, claim, pod_claim, request_ref, results, devices)
                   for version in versions]
        files.append({"path": path, "claim": claim.name, "request": base, "driver": driver,
                      "versions": list(versions), "objects": objects,
                      "content": "".join(encode_object(o) + "\n" for o in objects)})
    return files


def _device_metadata(version: str, claim, pod_claim: str | None, request_ref: str, results,
                     devices: DeviceIndex) -> dict:
    # Field order as the Go types serialize: TypeMeta (kind, apiVersion), ObjectMeta (name,
    # namespace, uid, generation), podClaimName, requests. Both versions have the same shape.
    listed = []
    for r in results:
        entry: dict[str, Any] = {"driver": r.driver, "pool": r.pool, "name": r.device}
        device = devices.get(r.driver, r.pool, r.device)
        if device is not None and device.attributes:
            # Keys as the driver publishes them (bare names stay bare); no capacities.
            entry["attributes"] = {k: _attribute_json(v) for k, v in sorted(device.attributes.items())}
        listed.append(entry)
    doc: dict[str, Any] = {
        "kind": "DeviceMetadata",
        "apiVersion": version,
        "metadata": {"name": claim.name, "namespace": claim.namespace, "uid": claim.uid,
                     "generation": 1},   # the first write; UpdateRequestMetadata increments it
    }
    if pod_claim is not None:
        doc["podClaimName"] = pod_claim
    doc["requests"] = [{"name": request_ref, "devices": listed}]
    return doc


def encode_object(obj: dict) -> str:
    """One object as apiVersion's pretty JSON serializer writes it: Go's MarshalIndent with two
    spaces, UTF-8 kept, and Go's HTML-safe escapes of <, >, & and U+2028/U+2029."""
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def plan_files(plan: Plan, versions: tuple[str, ...] | None = None,
               release: str = DEFAULT_KUBE_VERSION) -> list[dict]:
    """Per scheduled pod with claims: {"namespace", "name", "node", "containers": {name: [files]}}.
    versions: the stream's versions in order (None: what the release's drivers write)."""
    if versions is None:
        versions = default_versions(release)
    devices = DeviceIndex(plan.slices)
    out = []
    for result in plan.pods:
        files = container_files(result, devices, versions)
        if files:
            out.append({"namespace": result.namespace, "name": result.name, "node": result.node,
                        "containers": files})
    return out


def release_of(result) -> str:
    """The Kubernetes release of a pipeline Result (its gates' version)."""
    gates = getattr(result, "gates", None)
    return getattr(gates, "version", None) or DEFAULT_KUBE_VERSION
