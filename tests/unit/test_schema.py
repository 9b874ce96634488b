"""Schema validation (dractl.validate.schema) and the schema generator (scripts/gen_schemas.py)."""

from __future__ import annotations

import copy
import datetime as dt
import functools
import importlib.util
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from realworld_corpus import REALWORLD, require_realworld

from dractl.findings import CODES, ERROR, WARNING, MapKey
from dractl.validate.schema import SchemaSet, kube_versions

REPO = Path(__file__).resolve().parents[2]


def _gen_module():
    spec = importlib.util.spec_from_file_location("gen_schemas", REPO / "scripts" / "gen_schemas.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --------------------------------------------------------------------------------------------
# Minimal valid manifests, one per (apiVersion, kind) shape

CONTAINER = {"name": "c", "image": "busybox"}
POD_SPEC = {"containers": [CONTAINER]}
TEMPLATE = {"metadata": {"labels": {"app": "a"}}, "spec": POD_SPEC}
CLAIM_SPEC_V1 = {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}
CLAIM_SPEC_V1BETA1 = {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu"}]}}
POOL = {"name": "node-1", "generation": 0, "resourceSliceCount": 1}
SLICE_V1 = {"driver": "gpu.example.com", "pool": POOL, "nodeName": "node-1",
            "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "A100"}},
                         "capacity": {"memory": {"value": "80Gi"}}}]}
SLICE_V1BETA1 = {"driver": "gpu.example.com", "pool": POOL, "nodeName": "node-1",
                 "devices": [{"name": "gpu-0", "basic": {"attributes": {"index": {"int": 0}},
                                                          "capacity": {"memory": {"value": "80Gi"}}}}]}
TAINT_RULE = {"deviceSelector": {"driver": "gpu.example.com"},
              "taint": {"key": "example.com/unhealthy", "value": "true", "effect": "NoSchedule"}}
GANG = {"gang": {"minCount": 2}}

MINIMAL: dict[tuple[str, str], dict] = {
    ("v1", "Pod"): {"spec": POD_SPEC},
    ("v1", "Node"): {"spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}},
    ("v1", "Namespace"): {"metadata": {"labels": {"resource.kubernetes.io/admin-access": "true"}}},
    ("apps/v1", "Deployment"): {"spec": {"selector": {"matchLabels": {"app": "a"}}, "template": TEMPLATE}},
    ("apps/v1", "ReplicaSet"): {"spec": {"selector": {"matchLabels": {"app": "a"}}, "template": TEMPLATE}},
    ("apps/v1", "StatefulSet"): {"spec": {"selector": {"matchLabels": {"app": "a"}}, "template": TEMPLATE}},
    ("apps/v1", "DaemonSet"): {"spec": {"selector": {"matchLabels": {"app": "a"}}, "template": TEMPLATE}},
    ("batch/v1", "Job"): {"spec": {"template": {"spec": dict(POD_SPEC, restartPolicy="Never")}}},
    ("batch/v1", "CronJob"): {"spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {
        "template": {"spec": dict(POD_SPEC, restartPolicy="OnFailure")}}}}},
}
for _av in ("resource.k8s.io/v1", "resource.k8s.io/v1beta2"):
    MINIMAL[(_av, "ResourceClaim")] = {"spec": CLAIM_SPEC_V1}
    MINIMAL[(_av, "ResourceClaimTemplate")] = {"spec": {"spec": CLAIM_SPEC_V1}}
    MINIMAL[(_av, "ResourceSlice")] = {"spec": SLICE_V1}
MINIMAL[("resource.k8s.io/v1beta1", "ResourceClaim")] = {"spec": CLAIM_SPEC_V1BETA1}
MINIMAL[("resource.k8s.io/v1beta1", "ResourceClaimTemplate")] = {"spec": {"spec": CLAIM_SPEC_V1BETA1}}
MINIMAL[("resource.k8s.io/v1beta1", "ResourceSlice")] = {"spec": SLICE_V1BETA1}
for _av in ("resource.k8s.io/v1", "resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2"):
    MINIMAL[(_av, "DeviceClass")] = {"spec": {"selectors": [{"cel": {"expression": "true"}}]}}
for _av in ("resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3"):
    MINIMAL[(_av, "DeviceTaintRule")] = {"spec": TAINT_RULE}
MINIMAL[("scheduling.k8s.io/v1alpha1", "Workload")] = {
    "spec": {"podGroups": [{"name": "workers", "policy": GANG}]}}
for _av in ("scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1"):
    MINIMAL[(_av, "Workload")] = {"spec": {"podGroupTemplates": [
        {"name": "workers", "schedulingPolicy": GANG}]}}
    MINIMAL[(_av, "PodGroup")] = {"spec": {"schedulingPolicy": {"basic": {}}}}


def manifest(api_version: str, kind: str, **extra) -> dict:
    doc = {"apiVersion": api_version, "kind": kind,
           "metadata": {"name": "x", "namespace": "default"}}
    doc.update(copy.deepcopy(MINIMAL[(api_version, kind)]))
    doc.update(extra)
    return doc


def served_pairs():
    for version in kube_versions():
        s = SchemaSet.for_version(version)
        for api_version, kinds in sorted(s._served[version].items()):
            for kind in kinds:
                yield version, api_version, kind


def findings(version, doc):
    return [(f.code, f.field, f.message) for f in SchemaSet.for_version(version).validate(doc)]


# --------------------------------------------------------------------------------------------
# Every kind in every served version


@pytest.mark.parametrize("version,api_version,kind", list(served_pairs()))
def test_each_served_kind_accepts_a_minimal_manifest(version, api_version, kind):
    assert (api_version, kind) in MINIMAL, f"add a minimal {api_version} {kind} manifest"
    doc = manifest(api_version, kind)
    assert SchemaSet.for_version(version).validate(doc) == []
    # The generated files are plain JSON Schema: a generic validator agrees.
    schema = SchemaSet.for_version(version).schema_for(api_version, kind)
    assert list(Draft202012Validator(schema).iter_errors(doc)) == []


def test_served_matrix_matches_the_api_reference():
    """docs/spec/api-and-scheduling.md#api-versions-table (1.37 = kubernetes-validate 1.37.0)."""
    s = SchemaSet.for_version("1.37")
    # 1.38: the preview derived from 1.37 (resource.k8s.io/v1beta1 withdrawn),
    # docs/decisions/0008-release-model.md
    assert s.versions_serving("resource.k8s.io/v1", "ResourceClaim") == ["1.34", "1.35", "1.36", "1.37", "1.38"]
    assert s.versions_serving("resource.k8s.io/v1beta1", "ResourceSlice") == ["1.34", "1.35", "1.36", "1.37"]
    assert s.versions_serving("resource.k8s.io/v1alpha3", "DeviceTaintRule") == ["1.34", "1.35", "1.36", "1.37", "1.38"]
    assert s.versions_serving("resource.k8s.io/v1beta2", "DeviceTaintRule") == ["1.36", "1.37", "1.38"]
    assert s.versions_serving("resource.k8s.io/v1", "DeviceTaintRule") == ["1.37", "1.38"]
    assert s.versions_serving("scheduling.k8s.io/v1alpha1", "Workload") == ["1.35"]
    assert s.versions_serving("scheduling.k8s.io/v1alpha2", "Workload") == ["1.36"]
    assert s.versions_serving("scheduling.k8s.io/v1alpha2", "PodGroup") == ["1.36"]
    assert s.versions_serving("scheduling.k8s.io/v1alpha3", "PodGroup") == ["1.37", "1.38"]
    assert s.versions_serving("scheduling.k8s.io/v1beta1", "Workload") == ["1.37", "1.38"]
    assert s.versions_serving("scheduling.k8s.io/v1alpha1", "PodGroup") == []  # inline only in 1.35
    assert s.api_versions_for("Workload") == ["scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1"]


# --------------------------------------------------------------------------------------------
# Lookup and versions


def test_apiversion_not_served_names_the_versions_that_serve_it():
    s = SchemaSet.for_version("1.37")
    assert s.lookup("scheduling.k8s.io/v1alpha1", "Workload") == "not-served"
    assert s.versions_serving("scheduling.k8s.io/v1alpha1", "Workload") == ["1.35"]
    msg = s.not_served_message("scheduling.k8s.io/v1alpha1", "Workload")
    assert "1.35" in msg and "scheduling.k8s.io/v1alpha3" in msg
    # validate() leaves DRA0105 to the pipeline
    assert s.validate(manifest("scheduling.k8s.io/v1alpha1", "Workload")) == []
    assert SchemaSet.for_version("1.35").lookup("scheduling.k8s.io/v1alpha1", "Workload") == "served"


def test_lookup_unknown_and_removed_versions():
    s = SchemaSet.for_version("1.34")
    assert s.lookup("v1", "ConfigMap") == "unknown"
    assert s.lookup("scheduling.k8s.io/v1alpha3", "CompositePodGroup") == "unknown"
    assert s.lookup("resource.k8s.io/v1alpha2", "ResourceClaim") == "not-served"
    assert s.versions_serving("resource.k8s.io/v1alpha2", "ResourceClaim") == []
    assert "no Kubernetes version" in s.not_served_message("resource.k8s.io/v1alpha2", "ResourceClaim")
    assert s.lookup("resource.k8s.io/v1beta2", "DeviceTaintRule") == "not-served"
    assert s.lookup("apps/v1", "Pod") == "not-served"
    assert s.validate({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": 1}}) == []
    assert s.lookup(["v1"], "Pod") == "not-served" and s.lookup("v1", None) == "unknown"
    assert s.versions_serving(None, "Pod") == []


def test_for_version_is_cached_and_normalised():
    assert SchemaSet.for_version("1.37") is SchemaSet.for_version("v1.37.2")
    with pytest.raises(ValueError, match="1.34, 1.35, 1.36, 1.37"):
        SchemaSet.for_version("1.30")


def test_codes_are_registered():
    for code, severity in (("DRA0101", ERROR), ("DRA0102", ERROR), ("DRA0103", ERROR),
                           ("DRA0104", ERROR), ("DRA0105", ERROR), ("DRA0106", WARNING)):
        assert CODES[code].severity == severity
        assert CODES[code].origin == "schema"


# --------------------------------------------------------------------------------------------
# Error kinds, paths and messages


def test_unknown_field_uses_kubectl_strict_wording_and_path():
    doc = manifest("v1", "Pod")
    doc["spec"]["containers"][0]["foo"] = 1
    doc["spec"]["bar"] = {}
    doc["spec"]["containers"][0]["env"] = [{"name": "é", "valueFrom": {"clé": "ü"}}]
    [f1, f2, f3] = SchemaSet.for_version("1.37").validate(doc)
    assert (f1.code, f1.path, f1.message) == ("DRA0101", ("spec", "bar"), 'unknown field "spec.bar"')
    assert (f2.code, f2.path, f2.message) == (
        "DRA0101", ("spec", "containers", 0, "env", 0, "valueFrom", "clé"),
        'unknown field "spec.containers[0].env[0].valueFrom.clé"')
    assert (f3.code, f3.path, f3.message) == (
        "DRA0101", ("spec", "containers", 0, "foo"), 'unknown field "spec.containers[0].foo"')
    assert f1.severity == ERROR


def test_wrong_type():
    doc = manifest("resource.k8s.io/v1", "ResourceClaim")
    doc["spec"]["devices"]["requests"][0]["exactly"]["count"] = "two"
    [f] = SchemaSet.for_version("1.37").validate(doc)
    assert f.code == "DRA0102"
    assert f.field == "spec.devices.requests[0].exactly.count"
    assert f.message == 'Invalid value: "two": must be of type integer'
    doc["spec"]["devices"]["requests"] = {"name": "gpu"}
    assert findings("1.37", doc) == [
        ("DRA0102", "spec.devices.requests", 'Invalid value: "object": must be of type array')]


def test_missing_required():
    doc = manifest("resource.k8s.io/v1", "ResourceClaim")
    doc["spec"]["devices"]["requests"][0] = {"exactly": {}}
    assert findings("1.37", doc) == [
        ("DRA0103", "spec.devices.requests[0].exactly.deviceClassName", "Required value"),
        ("DRA0103", "spec.devices.requests[0].name", "Required value"),
    ]
    doc = manifest("v1", "Pod", spec={"containers": [{"name": None, "image": "x"}]})
    assert findings("1.37", doc) == [("DRA0103", "spec.containers[0].name", "Required value")]


def test_required_integer_omitted_is_a_warning():
    """The API server decodes a missing ResourcePool.generation as 0 (real dumps omit it)."""
    doc = manifest("resource.k8s.io/v1", "ResourceSlice")
    del doc["spec"]["pool"]["generation"]
    [f] = SchemaSet.for_version("1.37").validate(doc)
    assert (f.code, f.severity, f.field) == ("DRA0106", WARNING, "spec.pool.generation")
    assert f.message == "Required value: omitted; the API server decodes it as 0"


def test_all_errors_reported_sorted_by_path():
    doc = manifest("resource.k8s.io/v1", "ResourceSlice")
    dev = doc["spec"]["devices"]
    dev.append({"name": "gpu-1", "capacity": {"memory": "80Gi"}, "bogus": True})
    dev.append({"attributes": {"a": {"int": "x"}}})
    doc["spec"]["driver"] = 7
    got = findings("1.37", doc)
    assert [g[1] for g in got] == [
        "spec.devices[1].bogus", "spec.devices[1].capacity[memory]",
        "spec.devices[2].attributes[a].int", "spec.devices[2].name", "spec.driver"]
    assert [g[0] for g in got] == ["DRA0101", "DRA0102", "DRA0102", "DRA0103", "DRA0102"]


def test_map_keys_are_mapkey_path_elements():
    doc = manifest("v1", "Pod")
    doc["metadata"]["labels"] = {"app": 1, "ok": "yes"}
    [f] = SchemaSet.for_version("1.37").validate(doc)
    assert f.path == ("metadata", "labels", "app") and isinstance(f.path[-1], MapKey)
    assert f.field == "metadata.labels[app]"
    assert f.message == "Invalid value: 1: must be of type string"


def test_integers_mirror_the_api_server_decoder():
    def count(value):
        doc = manifest("resource.k8s.io/v1", "ResourceClaim")
        doc["spec"]["devices"]["requests"][0]["exactly"]["count"] = value
        return findings("1.37", doc)
    assert count(2) == []
    assert count(2.0) == []  # YAML 2.0 reaches the API server as JSON 2
    assert count(2.5) == [("DRA0102", "spec.devices.requests[0].exactly.count",
                           "Invalid value: 2.5: must be of type integer")]
    assert count(True)[0][0] == "DRA0102"
    assert count("2")[0][0] == "DRA0102"
    assert count(2 ** 63)[0][:2] == ("DRA0104", "spec.devices.requests[0].exactly.count")
    pod = manifest("v1", "Pod")
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 2 ** 31}]
    [(code, field, message)] = findings("1.37", pod)
    assert (code, field) == ("DRA0104", "spec.containers[0].ports[0].containerPort")
    assert "int32" in message


def test_quantities_and_int_or_string():
    pod = manifest("v1", "Pod")
    pod["spec"]["containers"][0]["resources"] = {"limits": {"cpu": 0.5, "memory": "1Gi",
                                                            "nvidia.com/gpu": 1}}
    assert findings("1.37", pod) == []
    pod["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "1 cpu"
    [(code, field, message)] = findings("1.37", pod)
    assert (code, field) == ("DRA0104", "spec.containers[0].resources.limits[cpu]")
    assert message.startswith('Invalid value: "1 cpu": quantities must match the regular expression')
    dep = manifest("apps/v1", "Deployment")
    dep["spec"]["strategy"] = {"rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 1}}
    assert findings("1.37", dep) == []
    dep["spec"]["strategy"]["rollingUpdate"]["maxSurge"] = 1.5
    assert findings("1.37", dep) == [("DRA0102", "spec.strategy.rollingUpdate.maxSurge",
                                      "Invalid value: 1.5: must be of type integer or string")]


def test_metadata_and_status_validate():
    doc = manifest("resource.k8s.io/v1", "ResourceClaim")
    doc["metadata"] = {
        "name": "gpu", "namespace": "default", "generateName": "gpu-", "uid": "1234",
        "resourceVersion": "7", "generation": 1, "creationTimestamp": "2024-12-09T10:00:00Z",
        "labels": {"app": "a"}, "annotations": {"note": "x"}, "finalizers": ["f"],
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u",
                             "controller": True}],
        "managedFields": [{"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV1",
                           "fieldsV1": {"f:spec": {}}}],
    }
    doc["status"] = {
        "allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com",
                                                "pool": "node-1", "device": "gpu-0"}]},
                       "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                           {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}},
        "reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}],
    }
    assert findings("1.37", doc) == []
    doc["metadata"]["creationTimestamp"] = dt.datetime(2024, 12, 9, 10, 0, tzinfo=dt.timezone.utc)
    assert findings("1.37", doc) == []  # a YAML 1.2 loader's timestamp is still a string
    doc["metadata"]["creationTimestamp"] = "yesterday"
    doc["metadata"]["nmae"] = "typo"
    got = findings("1.37", doc)
    assert [g[:2] for g in got] == [("DRA0104", "metadata.creationTimestamp"),
                                    ("DRA0101", "metadata.nmae")]


def test_null_means_unset():
    doc = manifest("v1", "Pod")
    doc["metadata"]["creationTimestamp"] = None
    doc["spec"]["nodeSelector"] = None
    doc["status"] = {}
    assert findings("1.37", doc) == []


def test_not_a_mapping():
    [f] = SchemaSet.for_version("1.37").validate([1])  # type: ignore[arg-type]
    assert f.code == "DRA0102" and f.path == ()


# --------------------------------------------------------------------------------------------
# dractl's resourceSliceAttributeRef extension

REF = {"claimName": "gpu", "requestName": "gpu", "attribute": "resource.kubernetes.io/pcieRoot"}


def _env(ref):
    return [{"name": "PCI_ROOT", "valueFrom": {"resourceSliceAttributeRef": ref}}]


@pytest.mark.parametrize("version", ["1.34", "1.37"])
def test_attribute_ref_accepted_in_pods(version):
    pod = manifest("v1", "Pod")
    spec = pod["spec"]
    spec["containers"][0]["env"] = _env(REF)
    spec["initContainers"] = [dict(CONTAINER, name="init", env=_env(dict(REF, deviceIndex=0)))]
    spec["ephemeralContainers"] = [dict(CONTAINER, name="debug", env=_env(dict(REF, deviceIndex=3)))]
    assert findings(version, pod) == []


@pytest.mark.parametrize("api_version,kind,template_path", [
    ("apps/v1", "Deployment", ("spec", "template")),
    ("apps/v1", "StatefulSet", ("spec", "template")),
    ("apps/v1", "DaemonSet", ("spec", "template")),
    ("apps/v1", "ReplicaSet", ("spec", "template")),
    ("batch/v1", "Job", ("spec", "template")),
    ("batch/v1", "CronJob", ("spec", "jobTemplate", "spec", "template")),
])
def test_attribute_ref_in_pod_templates(api_version, kind, template_path):
    doc = manifest(api_version, kind)
    template = doc
    for key in template_path:
        template = template[key]
    template["spec"]["containers"][0]["env"] = _env(dict(REF, deviceIndex=1))
    assert findings("1.37", doc) == []
    template["spec"]["containers"][0]["env"] = _env(dict(REF, deviceIndex=-1))
    prefix = ".".join(template_path)
    assert findings("1.37", doc) == [(
        "DRA0104", f"{prefix}.spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef.deviceIndex",
        "Invalid value: -1: must be greater than or equal to 0")]


def test_attribute_ref_errors():
    pod = manifest("v1", "Pod")
    base = ("spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef")
    pod["spec"]["containers"][0]["env"] = _env({"claimName": "gpu", "deviceIndex": "0", "extra": 1})
    assert findings("1.37", pod) == [
        ("DRA0103", f"{base}.attribute", "Required value"),
        ("DRA0102", f"{base}.deviceIndex", 'Invalid value: "0": must be of type integer'),
        ("DRA0101", f"{base}.extra", f'unknown field "{base}.extra"'),
        ("DRA0103", f"{base}.requestName", "Required value"),
    ]


# --------------------------------------------------------------------------------------------
# Agreement with a generic JSON Schema validator (formats and scalar-required aside)


def test_generic_validator_agrees_on_invalid_documents():
    docs = []
    pod = manifest("v1", "Pod")
    pod["spec"]["containers"][0]["bad"] = 1
    docs.append(("1.37", pod))
    claim = manifest("resource.k8s.io/v1", "ResourceClaim")
    claim["spec"]["devices"]["requests"][0]["exactly"]["count"] = "x"
    docs.append(("1.34", claim))
    sl = manifest("resource.k8s.io/v1", "ResourceSlice")
    sl["spec"]["devices"][0]["attributes"]["model"] = {"strings": ["a"]}  # list attributes: 1.36+
    docs.append(("1.35", sl))
    for version, doc in docs:
        s = SchemaSet.for_version(version)
        ours = s.validate(doc)
        generic = list(Draft202012Validator(s.schema_for(doc["apiVersion"], doc["kind"])).iter_errors(doc))
        assert ours and generic
    assert findings("1.36", sl) == []


# --------------------------------------------------------------------------------------------
# Real-world manifests (shared/realworld, see its INDEX.md)

# Files INDEX.md marks invalid for schema reasons, plus (last) one it calls schema-valid that is
# not: selectors/pods.yaml uses `resourceClaims[].source`, removed from core/v1 in Kubernetes 1.31.
KNOWN_INVALID = {
    "enhancements/keps/sig-scheduling/4815-dra-partitionable-devices/README.md.L791-L923.yaml",
    "k8s-gpu-dra-driver/docs/demo.md.L72-L108.yaml",
    "kubernetes/test/e2e/dra/test-driver/deploy/example/pod-external.yaml",
    "website/content/en/examples/dra/resourceclaim.yaml",
    "dranet/site/content/docs/quick-start.md.L67-L125.yaml",
    "dra-driver-nvidia-gpu/demo/specs/selectors/pods.yaml",
}
# Valid only from a later version (INDEX.md: list-type attributes, schedulingGroup, HEAD fields).
NEEDS = {
    "dra-driver-cpu/docs/user/device-attributes.md.L84-L142.yaml": "1.36",
    "dra-driver-cpu/docs/user/device-attributes.md.L150-L211.yaml": "1.36",
    "dra-driver-cpu/docs/user/feature-support.md.L127-L170.yaml": "1.36",
    "dra-example-driver/demo/examples/podgroup-resourceclaimtemplate/podgroup-resourceclaimtemplate.yaml": "1.36",
    "kubernetes/test/integration/scheduler_perf/dra/templates/pod-in-podgroup-with-claim-template.yaml": "1.36",
    "api/testdata/HEAD/resource.k8s.io.v1.ResourceClaim.yaml": "1.37",
    "api/testdata/HEAD/resource.k8s.io.v1.ResourceSlice.yaml": "1.37",
    "api/testdata/HEAD/resource.k8s.io.v1beta1.ResourceSlice.yaml": "1.37",
    "api/testdata/HEAD/resource.k8s.io.v1beta2.ResourceSlice.yaml": "1.37",
    "kubernetes/test/integration/scheduler_perf/dra/templates/resourceslice-compatibilitygroups-devices.yaml": "1.37",
}


@functools.lru_cache(maxsize=1)
def _realworld_documents():
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    out = []
    for path in sorted(REALWORLD.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json"):
            continue
        try:
            docs = list(yaml.load_all(path.read_text(encoding="utf-8")))
        except Exception:  # Go templates that are not YAML: the loader's business
            continue
        items = []
        for d in docs:
            if isinstance(d, dict) and d.get("kind") == "List":
                items.extend(d.get("items") or [])
            elif isinstance(d, dict):
                items.append(d)
        out.append((path.relative_to(REALWORLD).as_posix(), items))
    return tuple(out)


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_realworld_manifests(version):
    require_realworld()
    s = SchemaSet.for_version(version)
    checked, unexpected, flagged = 0, [], set()
    for rel, docs in _realworld_documents():
        for doc in docs:
            if s.lookup(doc.get("apiVersion"), doc.get("kind")) != "served":
                continue
            checked += 1
            errors = [f for f in s.validate(doc) if f.severity == ERROR]
            if errors:
                flagged.add(rel)
            expected_ok = rel not in KNOWN_INVALID and float(NEEDS.get(rel, "0")) <= float(version)
            if errors and expected_ok:
                unexpected.append(f"{rel}: {errors[0].field}: {errors[0].message}")
    assert checked > 100
    assert unexpected == []
    present = {rel for rel, _ in _realworld_documents()}
    assert (KNOWN_INVALID & present) - flagged == set(), "known-invalid files must be flagged"


def test_realworld_version_subtleties():
    require_realworld()
    docs = dict(_realworld_documents())
    cpu = docs["dra-driver-cpu/docs/user/feature-support.md.L127-L170.yaml"][0]
    assert findings("1.36", cpu) == []
    assert findings("1.35", cpu)[0][0] == "DRA0101"  # list-type attribute `strings`
    podgroup = docs["dra-example-driver/demo/examples/podgroup-resourceclaimtemplate/"
                    "podgroup-resourceclaimtemplate.yaml"]
    for doc in podgroup:
        if doc["kind"] == "PodGroup":
            assert SchemaSet.for_version("1.36").lookup(doc["apiVersion"], "PodGroup") == "served"
            assert SchemaSet.for_version("1.37").lookup(doc["apiVersion"], "PodGroup") == "not-served"


# --------------------------------------------------------------------------------------------
# The generator


def test_generated_files_are_current(tmp_path):
    """Rebuild from the committed upstream snapshot: byte-identical to what is committed."""
    gen = _gen_module()
    committed = REPO / "dractl" / "schemas"
    gen.generate(tmp_path, from_snapshot=True, snapshot_dir=committed)
    for name in gen.generated_files():
        if not name.endswith(".gz"):
            assert (tmp_path / name).read_bytes() == (committed / name).read_bytes(), name
    assert gen.compare_trees(committed, tmp_path) == []


def test_full_extraction_reproduces_the_snapshot(tmp_path):
    gen = _gen_module()
    base, version = gen.source_dir()
    if base is None:
        pytest.skip(f"{gen.SOURCE_PACKAGE} is not installed (dev-only: pip install "
                    f"{gen.SOURCE_PACKAGE}=={gen.SOURCE_VERSION}); the snapshot rebuild test "
                    "covers the build stage")
    if version != gen.SOURCE_VERSION:
        pytest.skip(f"{gen.SOURCE_PACKAGE} {version} installed, generator pinned to {gen.SOURCE_VERSION}")
    gen.generate(tmp_path)
    assert gen.compare_trees(REPO / "dractl" / "schemas", tmp_path) == []
