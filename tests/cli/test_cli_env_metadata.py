"""`dractl env --metadata [--metadata-versions ...]`: the helper's start-up rules per release are
usage errors (exit 2), a good list shapes the stream."""

from __future__ import annotations

import json

import pytest
from cli_helpers import REPO, run

SCENARIO = str(REPO / "tests" / "golden" / "scenarios" / "42-env-metadata-136-v1alpha1.yaml")


@pytest.mark.parametrize("args, message", [
    (["--metadata", "--kube-version", "1.35"], "--metadata: Kubernetes 1.35 has no device metadata files"),
    (["--metadata", "--metadata-versions", "v1alpha1"], "do not include the required metadata.resource.k8s.io/v1beta1"),
    (["--metadata", "--metadata-versions", "v1beta1,v1gamma1"], "unknown metadata API version"),
    (["--metadata", "--metadata-versions", ","], "no metadata API versions given"),
    (["--metadata", "--kube-version", "1.36", "--metadata-versions", "v1beta1"],
     "none of the requested metadata API versions [metadata.resource.k8s.io/v1beta1] are supported"),
    (["--metadata-versions", "v1beta1"], "--metadata-versions needs --metadata"),
])
def test_refused_version_lists(args, message):
    r = run("env", "--no-config", "-i", "builtin:example-gpu", *args, SCENARIO)
    assert r.code == 2 and message in r.err, r.err


def test_versions_shape_the_stream():
    r = run("env", "--no-config", "-i", "builtin:example-gpu", "--metadata", "--metadata-versions",
            "v1beta1,v1alpha1", "-o", "json", SCENARIO)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["kubeVersion"] == "1.37"
    (file,) = doc["pods"][0]["containers"][0]["files"]
    assert [o["apiVersion"] for o in file["content"]] == doc["versions"] == [
        "metadata.resource.k8s.io/v1beta1", "metadata.resource.k8s.io/v1alpha1"]
    text = run("env", "--no-config", "-i", "builtin:example-gpu", "--metadata", "--no-color", SCENARIO)
    # The text view prints the file's bytes: each object starts at "{" with kind first.
    lines = text.out.splitlines()
    starts = [i for i, line in enumerate(lines) if line == "    {"]
    assert len(starts) == 2 and all(lines[i + 1] == '      "kind": "DeviceMetadata",' for i in starts)
