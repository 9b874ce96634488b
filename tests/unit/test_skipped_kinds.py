"""Kinds that are not DRA's (a GitOps repository's Services, Ingresses, custom resources) are
skipped and counted, not warned about (DRA0004 fired for each, so --strict failed every build).
An unknown kind in a DRA API group, or a near miss of a kind dractl reads, is a DRA0004 error: the
API server's REST mapper rejects it ("no matches for kind"), so CI must not pass it."""

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


def test_unknown_kind_in_a_dra_group_is_an_error(tmp_path):
    result = validated(tmp_path, "apiVersion: resource.k8s.io/v1\nkind: ResourceClam\nmetadata: {name: x}\n")
    assert [(f.code, f.severity) for f in result.findings] == [("DRA0004", "error")]
    assert result.findings[0].message == ('no matches for kind "ResourceClam" in version '
                                          '"resource.k8s.io/v1"; did you mean ResourceClaim?')
    assert result.skipped == {}


def test_near_miss_of_a_read_kind_is_an_error_with_a_suggestion(tmp_path):
    result = validated(tmp_path, "apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n")
    assert [(f.code, f.severity) for f in result.findings] == [("DRA0004", "error")]
    assert result.findings[0].message.endswith("; did you mean Deployment?")


def test_skip_kinds_still_skips_a_near_miss_on_purpose(tmp_path):
    from dractl.validate.pipeline import KindFilter

    path = tmp_path / "repo.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n")
    result = validate_documents(load_paths([str(path)]), FeatureGates("1.37"),
                                kinds=KindFilter(skip=frozenset({"Deploymnet"})))
    assert result.findings == [] and result.skipped == {"Deploymnet": 1}


def test_kinds_a_release_serves_in_a_dra_group_are_skipped_not_reported(tmp_path):
    # scheduling.k8s.io/v1 PriorityClass is Kubernetes' own kind, not a typo (it was DRA0004).
    text = ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 10\n"
            "---\napiVersion: resource.k8s.io/v1alpha3\nkind: ResourcePoolStatusRequest\n"
            "metadata: {name: r}\n")
    result = validated(tmp_path, text)
    assert result.findings == []
    assert result.skipped == {"PriorityClass": 1, "ResourcePoolStatusRequest": 1}


def test_a_kind_of_another_release_names_the_releases(tmp_path):
    text = "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClass\nmetadata: {name: c}\n"
    result = validated(tmp_path, text)
    assert [f.message for f in result.findings] == [
        'no matches for kind "ResourceClass" in version "resource.k8s.io/v1alpha2": Kubernetes '
        '1.27 to 1.30 served it, 1.37 does not']


def test_custom_resources_named_like_a_read_kind_are_skipped(tmp_path):
    # The coscheduling plugin's and Volcano's PodGroup CRDs (were DRA0105 errors).
    text = ("apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: a}\n---\n"
            "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: b}\n")
    result = validated(tmp_path, text)
    assert result.findings == [] and result.skipped == {"PodGroup": 2}


def test_summary_line_and_json_carry_the_count(tmp_path):
    result = validated(tmp_path, GITOPS)
    line = summary_line(1, 5, 0, 0, result.skipped).plain
    assert line == "1 file, 5 documents: 0 errors, 0 warnings; 4 skipped (Service 2, Certificate 1, Ingress 1)"
    assert findings_document([], 1, 5, result.skipped)["summary"]["skipped"] == {
        "Certificate": 1, "Ingress": 1, "Service": 2}
    assert "skipped" not in findings_document([], 1, 5, {})["summary"]
