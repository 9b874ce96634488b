"""Hints that name the fix: apiVersion did-you-mean, the shape of another
apiVersion, indentation (the key's column against its siblings', like yamllint), removed fields
with the release that removed them and their replacement. Each failed before its hint existed."""

from __future__ import annotations

import pytest

from dractl.api.versions import FeatureGates
from dractl.load.loader import load_paths
from dractl.validate.pipeline import validate_documents


def findings(tmp_path, text, version="1.37"):
    path = tmp_path / "m.yaml"
    path.write_text(text)
    return validate_documents(load_paths([str(path)]), FeatureGates(version)).findings


CLAIM_HEAD = "apiVersion: {av}\nkind: ResourceClaim\nmetadata:\n  name: c\nspec:\n  devices:\n    requests:\n"


@pytest.mark.parametrize("api_version", ["resources.k8s.io/v1", "resource.k8s.io/v2"])
def test_an_apiversion_no_release_serves_gets_a_did_you_mean(tmp_path, api_version):
    found = findings(tmp_path, CLAIM_HEAD.format(av=api_version) + "    - name: gpu\n")
    assert [f.code for f in found] == ["DRA0105"]
    assert found[0].message.endswith("; did you mean resource.k8s.io/v1?")
    assert "--kube-version" not in found[0].message and "(no Kubernetes release serves it)" in found[0].message


def test_a_removed_apiversion_names_the_releases_that_served_it(tmp_path):
    found = findings(tmp_path, CLAIM_HEAD.format(av="resource.k8s.io/v1alpha3") + "    - name: gpu\n")
    assert [f.code for f in found] == ["DRA0105"]
    assert "Kubernetes 1.31 to 1.33 served it" in found[0].message
    assert "--kube-version" not in found[0].message


V1_REQUEST = "    - name: gpu\n      exactly:\n        deviceClassName: gpu.example.com\n"
V1BETA1_REQUEST = "    - name: gpu\n      deviceClassName: gpu.example.com\n"


def test_v1_shape_under_v1beta1_is_one_error_naming_the_apiversion(tmp_path):
    found = [f for f in findings(tmp_path, CLAIM_HEAD.format(av="resource.k8s.io/v1beta1") + V1_REQUEST)
             if f.severity == "error"]
    # Not "exactly one of `exactly` or `firstAvailable` is required" plus "unknown field exactly".
    assert [(f.code, f.field, f.line) for f in found] == [("DRA0107", "apiVersion", 1)]
    assert found[0].message.endswith("change apiVersion to resource.k8s.io/v1")


def test_v1beta1_shape_under_v1_names_v1beta1(tmp_path):
    found = [f for f in findings(tmp_path, CLAIM_HEAD.format(av="resource.k8s.io/v1") + V1BETA1_REQUEST)
             if f.severity == "error"]
    assert [f.code for f in found] == ["DRA0107"]
    assert "resource.k8s.io/v1beta1 shape" in found[0].message


def test_the_other_shape_is_checked_as_that_apiversion(tmp_path):
    text = CLAIM_HEAD.format(av="resource.k8s.io/v1beta1") + V1_REQUEST + "        count: -1\n"
    found = findings(tmp_path, text)
    assert {f.code for f in found if f.severity == "error"} == {"DRA0107", "DRA1009"}


def test_a_field_indented_as_a_sibling_of_its_parent(tmp_path):
    text = CLAIM_HEAD.format(av="resource.k8s.io/v1") + V1_REQUEST + (
        "        selectors:\n        - cel:\n          expression: device.driver == \"x\"\n")
    unknown = [f for f in findings(tmp_path, text) if f.code == "DRA0101"]
    assert len(unknown) == 1 and (unknown[0].line, unknown[0].column) == (13, 11)
    assert unknown[0].message.endswith('; wrong indentation: expected 13 but found 11: "expression" '
                                       'is a field of "cel" (line 12)')


def test_a_field_indented_too_deep(tmp_path):
    text = CLAIM_HEAD.format(av="resource.k8s.io/v1") + V1_REQUEST + (
        "        selectors:\n        - cel:\n            expression: device.driver == \"x\"\n"
        "          count: 2\n")
    unknown = [f for f in findings(tmp_path, text) if f.code == "DRA0101"]
    assert [f.field for f in unknown] == ["spec.devices.requests[0].exactly.selectors[0].count"]
    assert unknown[0].message.endswith('; wrong indentation: expected 9 but found 11: "count" is a '
                                       'field of spec.devices.requests[0].exactly')


POD_WITH_SOURCE = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
                   "    image: x\n  resourceClaims:\n  - name: gpu\n    source:\n"
                   "      resourceClaimTemplateName: t\n")


def test_a_removed_field_names_the_release_and_its_replacement(tmp_path):
    unknown = [f for f in findings(tmp_path, POD_WITH_SOURCE) if f.code == "DRA0101"]
    assert unknown[0].message == (
        'unknown field "spec.resourceClaims[0].source"; "source" was removed in Kubernetes 1.31 '
        '(Kubernetes 1.26 to 1.30 had it): set resourceClaimName or resourceClaimTemplateName on '
        'the entry itself (kubernetes/kubernetes#125116)')


def test_a_field_of_other_releases_says_which(tmp_path):
    text = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  workloadRef: {name: w}\n"
            "  containers:\n  - name: c\n    image: x\n")
    assert any('"workloadRef" was removed in Kubernetes 1.36 (Kubernetes 1.35 had it): set '
               "spec.schedulingGroup.podGroupName" in f.message for f in findings(tmp_path, text))
    assert any('"workloadRef" is a field of Kubernetes 1.35, not of 1.34' in f.message
               for f in findings(tmp_path, text, "1.34"))


@pytest.mark.parametrize("text,expected", [
    ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n"
     "     image: x\n", '; wrong indentation: expected 7 but found 6 (in "     image: x")'),
    ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  annotations:\n    a: |\n      text\n"
     "        more\n   b: c\n", '; wrong indentation: expected 5 but found 4 (in "   b: c")'),
])
def test_a_yaml_indentation_error_says_expected_and_found_like_yamllint(tmp_path, text, expected):
    found = findings(tmp_path, text)
    assert [f.code for f in found] == ["DRA0001"]
    assert found[0].message.endswith(expected)


def test_other_syntax_errors_get_no_indentation_hint(tmp_path):
    found = findings(tmp_path, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "p\n')
    assert [f.code for f in found] == ["DRA0001"] and "indentation" not in found[0].message


def test_the_field_path_is_printed_once_on_unknown_field_lines(tmp_path):
    from dractl.report.findings_text import finding_line

    unknown = [f for f in findings(tmp_path, POD_WITH_SOURCE) if f.code == "DRA0101"][0]
    line = finding_line(unknown).plain
    assert line.count("spec.resourceClaims[0].source") == 1
