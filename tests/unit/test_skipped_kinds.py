"""Kinds that are not DRA's (a GitOps repository's Services, Ingresses, custom resources) are
skipped and counted, not warned about (DRA0004 fired for each, so --strict failed every build).
An unknown kind in a DRA API group, or a near miss of a kind dractl reads, is still DRA0004."""

from __future__ import annotations

from dractl.api.versions import FeatureGates
from dractl.load.loader import load_paths
from dractl.report.findings_json import findings_document
from dractl.report.findings_text import summary_line
from dractl.validate.pipeline import validate_documents

GITOPS = """\
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
---
apiVersion: v1
kind: Service
metadata: {name: api}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: tls}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
"""


def validated(tmp_path, text):
    path = tmp_path / "repo.yaml"
    path.write_text(text)
    return validate_documents(load_paths([str(path)]), FeatureGates("1.37"))


def test_other_kinds_are_counted_not_warned(tmp_path):
    result = validated(tmp_path, GITOPS)
    assert result.findings == []
    assert result.skipped == {"Service": 2, "Ingress": 1, "Certificate": 1}
    assert [d.kind for d in result.documents] == ["DeviceClass"]


def test_unknown_kind_in_a_dra_group_still_warns(tmp_path):
    result = validated(tmp_path, "apiVersion: resource.k8s.io/v1\nkind: ResourceClam\nmetadata: {name: x}\n")
    assert [(f.code, f.severity) for f in result.findings] == [("DRA0004", "warning")]
    assert "did you mean ResourceClaim?" in result.findings[0].message
    assert result.skipped == {}


def test_near_miss_of_a_read_kind_warns_with_a_suggestion(tmp_path):
    result = validated(tmp_path, "apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n")
    assert [f.code for f in result.findings] == ["DRA0004"]
    assert result.findings[0].message.endswith("skipped; did you mean Deployment?")


def test_summary_line_and_json_carry_the_count(tmp_path):
    result = validated(tmp_path, GITOPS)
    line = summary_line(1, 5, 0, 0, result.skipped).plain
    assert line == "1 file, 5 documents: 0 errors, 0 warnings; 4 skipped (Service 2, Certificate 1, Ingress 1)"
    assert findings_document([], 1, 5, result.skipped)["summary"]["skipped"] == {
        "Certificate": 1, "Ingress": 1, "Service": 2}
    assert "skipped" not in findings_document([], 1, 5, {})["summary"]
