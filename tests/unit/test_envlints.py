"""dractl's env-ref lints (DRA6101-DRA6104), before allocation."""

from __future__ import annotations

import yaml

from dractl.validate.envlints import check_env_refs

CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
"""


def template(request: str) -> str:
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: t, namespace: default}}
spec:
  spec:
    devices:
      requests:
{request}"""


def pod(env: str) -> str:
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: t}}]
  containers:
  - name: c
    image: x
    resources: {{claims: [{{name: gpu}}]}}
    env:
{env}"""


REF = """    - name: ROOT
      valueFrom:
        resourceSliceAttributeRef: {claimName: gpu, requestName: gpu, attribute: resource.kubernetes.io/pcieRoot%s}
"""


def lint(*texts: str):
    docs = [yaml.safe_load(t) for t in texts]
    return [(i, f.code, f.field) for i, f in check_env_refs(docs)]


def test_unguarded_attribute_warns_with_a_concrete_guard():
    docs = [yaml.safe_load(t) for t in (CLASS, template("      - {name: gpu, exactly: {deviceClassName: gpu}}\n"),
                                        pod(REF % ""))]
    (index, finding), = check_env_refs(docs)
    assert index == 2 and finding.code == "DRA6101"
    assert 'has(device.attributes["resource.kubernetes.io"].pcieRoot)' in finding.message
    assert finding.field == "spec.containers[0].env[0].valueFrom.resourceSliceAttributeRef.attribute"


def test_guarded_attribute_is_fine():
    guarded = ("      - name: gpu\n        exactly:\n          deviceClassName: gpu\n"
               "          selectors:\n          - cel: {expression: 'has(device.attributes[\"resource.kubernetes.io\"].pcieRoot)'}\n")
    assert lint(CLASS, template(guarded), pod(REF % "")) == []


def test_several_devices_without_index_is_an_info():
    request = ("      - name: gpu\n        exactly:\n          deviceClassName: gpu\n          count: 2\n"
               "          selectors:\n          - cel: {expression: '\"pcieRoot\" in device.attributes[\"resource.kubernetes.io\"]'}\n")
    assert [c for _, c, _ in lint(CLASS, template(request), pod(REF % ""))] == ["DRA6102"]
    assert lint(CLASS, template(request), pod(REF % ", deviceIndex: 1")) == []


def test_first_available_alternatives_must_all_guard():
    request = ("      - name: gpu\n        firstAvailable:\n"
               "        - name: big\n          deviceClassName: gpu\n"
               "          selectors: [{cel: {expression: 'has(device.attributes[\"resource.kubernetes.io\"].pcieRoot)'}}]\n"
               "        - name: small\n          deviceClassName: gpu\n")
    (_, code, _), = lint(CLASS, template(request), pod(REF % ""))
    assert code == "DRA6103"


def test_duplicate_env_names():
    env = ("    - {name: A, value: '1'}\n    - {name: A, value: '2'}\n")
    assert [(c, f) for _, c, f in lint(pod(env))] == [("DRA6104", "spec.containers[0].env[1].name")]


def _mutations(obj, path=()):
    """Every way of replacing one value in the document by a value of another type."""
    if isinstance(obj, dict):
        items = list(obj.items())
    elif isinstance(obj, list):
        items = list(enumerate(obj))
    else:
        return
    for key, value in items:
        for wrong in ([1], 7, None, "x", {"a": [1]}, True):
            yield path + (key,), wrong
        yield from _mutations(value, path + (key,))


def _replaced(doc, path, value):
    import copy
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


def test_wrong_types_never_raise():
    request = ("      - name: gpu\n        firstAvailable:\n"
               "        - {name: a, deviceClassName: gpu, count: 2}\n")
    docs = [yaml.safe_load(t) for t in (CLASS, template(request), pod(REF % ""))]
    for i, doc in enumerate(docs):
        for path, wrong in _mutations(doc):
            mutated = list(docs)
            mutated[i] = _replaced(doc, path, wrong)
            check_env_refs(mutated)  # must not raise
