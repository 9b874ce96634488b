"""Inline suppression in the manifest, ruff-style (docs/decisions/0009-linter-habits.md): `# dractl: ignore[CODE]` at
the end of the reported line or alone before a line, block or object, `# dractl:
ignore-file[CODE]`, the `dractl.io/ignore` annotation; unused (DRA0017) and unknown (DRA0018)
suppressions are findings themselves. Before, a repository had to turn a code off for a path."""

from __future__ import annotations

import json

from cli_helpers import REPO, run

from dractl.validate.suppress import scan

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: {name}
spec:
  devices:
    requests:
    - name: {request}
      exactly:
        deviceClassName: gpu.example.com{comment}
"""


def findings(tmp_path, text, *args):
    (tmp_path / "m.yaml").write_text(text)
    result = run("validate", "m.yaml", "-o", "json", "--no-config", *args, cwd=tmp_path)
    doc = json.loads(result.out)
    return result.code, [(f["code"], f["line"], f["name"]) for f in doc["findings"]], doc["summary"]


def test_without_suppression_the_findings_are_there(tmp_path):
    code, found, _ = findings(tmp_path, CLAIM.format(name="a", request="GPU", comment=""))
    assert code == 1 and found == [("DRA1002", 8, "a"), ("DRA2003", 10, "a")]


def test_end_of_line_comment_covers_that_line_only(tmp_path):
    text = CLAIM.format(name="a", request="GPU", comment="   # dractl: ignore[DRA2003]")
    code, found, summary = findings(tmp_path, text)
    assert found == [("DRA1002", 8, "a")] and summary["suppressed"] == 1
    text = CLAIM.format(name="a", request="GPU  # dractl: ignore[dra1002]", comment="")
    assert findings(tmp_path, text)[:2] == (0, [("DRA2003", 10, "a")])  # codes in any case


def test_comment_before_a_list_item_covers_the_item_not_its_neighbour(tmp_path):
    text = CLAIM.format(name="a", request="gpu", comment="") .replace(
        "    - name: gpu\n", "    # dractl: ignore[DRA2003]\n    - name: gpu\n") + (
        "    - name: other\n      exactly:\n        deviceClassName: gpu.example.com\n")
    _, found, _ = findings(tmp_path, text)
    assert found == [("DRA2003", 14, "a")]


def test_comment_before_an_object_covers_the_object(tmp_path):
    text = ("# dractl: ignore[DRA1002,DRA2003]\n" + CLAIM.format(name="a", request="GPU", comment="")
            + "# dractl: ignore[DRA2003]\n---\n" + CLAIM.format(name="b", request="GPU", comment=""))
    code, found, summary = findings(tmp_path, text)
    assert found == [("DRA1002", 21, "b")] and summary["suppressed"] == 3


def test_ignore_file_and_the_annotation(tmp_path):
    text = ("# dractl: ignore-file[DRA2003]\n" + CLAIM.format(name="a", request="gpu", comment="")
            + "---\n" + CLAIM.format(name="b", request="GPU", comment=""))
    assert findings(tmp_path, text)[1] == [("DRA1002", 20, "b")]
    annotated = CLAIM.format(name="a", request="GPU", comment="").replace(
        "  name: a\n", '  name: a\n  annotations:\n    dractl.io/ignore: "DRA1002, DRA2003"\n')
    assert findings(tmp_path, annotated)[:2] == (0, [])


def test_unused_and_unknown_suppressions_are_findings(tmp_path):
    text = CLAIM.format(name="a", request="gpu", comment="  # dractl: ignore[DRA2003, DRA1009, DRA20003]")
    code, found, _ = findings(tmp_path, text)
    assert code == 0 and found == [("DRA0017", 10, ""), ("DRA0018", 10, "")]
    (tmp_path / "m.yaml").write_text(text)
    messages = [f["message"] for f in json.loads(run("validate", "m.yaml", "-o", "json", "--no-config",
                                                     cwd=tmp_path).out)["findings"]]
    assert "no finding of DRA1009 here; remove it" in messages[0]
    assert "did you mean DRA2003?" in messages[1]


def test_a_code_the_run_ignores_is_not_unused(tmp_path):
    text = CLAIM.format(name="a", request="gpu", comment="  # dractl: ignore[DRA2003, DRA1009]")
    assert findings(tmp_path, text, "--ignore", "DRA1009")[1] == []
    assert findings(tmp_path, text, "--select", "DRA2")[1] == []


def test_a_suppressed_error_does_not_keep_the_object_out_of_the_dry_run(tmp_path):
    pod = ("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n"
           "  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]\n"
           "  resourceClaims: [{name: gpu, resourceClaimName: a}]\n")
    claim = CLAIM.format(name="a", request="GPU_0", comment="").replace("  name: a\n", "  name: a\n  namespace: default\n")
    args = ("allocate", "-i", "builtin:example-gpu", "c.yaml", "--no-config", "-o", "json")
    (tmp_path / "c.yaml").write_text(claim + pod)
    before = run(*args, cwd=tmp_path)
    assert before.code == 1 and "DRA5016" in before.out  # the claim is left out: invalid
    (tmp_path / "c.yaml").write_text(claim.replace("- name: GPU_0", "- name: GPU_0  # dractl: ignore[DRA1002]") + pod)
    after = run(*args, cwd=tmp_path)
    doc = json.loads(after.out)
    assert after.code == 0, after.out
    assert [p["status"] for p in doc["pods"]] == ["Scheduled"]


def test_inventory_lints_can_be_suppressed(tmp_path):
    (tmp_path / "pods.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n"
        "  devices:\n    requests:\n    - name: r\n      exactly:\n        deviceClassName: gpu.example.com\n"
        "        selectors:\n        - cel:\n            expression: device.attributes[\"gpu.example.com\"]."
        "modle == \"x\"  # dractl: ignore[DRA7101]\n")
    plain = run("validate", "-i", "builtin:example-gpu", "pods.yaml", "--no-config", "-o", "json",
                cwd=tmp_path)
    codes = [f["code"] for f in json.loads(plain.out)["findings"]]
    assert "DRA0017" not in codes and "DRA7101" not in codes, codes


def test_the_same_with_worker_processes(tmp_path):
    for i in range(210):
        (tmp_path / f"m{i:03}.yaml").write_text(
            CLAIM.format(name=f"c{i}", request="gpu", comment="  # dractl: ignore[DRA2003]" if i % 2 else ""))
    serial = run("validate", ".", "-o", "json", "--no-config", "--jobs", "1", cwd=tmp_path).out
    parallel = run("validate", ".", "-o", "json", "--no-config", "--jobs", "2", cwd=tmp_path).out
    assert serial == parallel
    assert json.loads(serial)["summary"]["suppressed"] == 105


def test_files_without_dractl_are_not_scanned():
    assert scan("x.yaml", b"apiVersion: v1\nkind: Pod\n# ignore[DRA2003]\n", []) is None
    assert scan("x.yaml", (REPO / "examples" / "broken.yaml").read_bytes(), []) is None
