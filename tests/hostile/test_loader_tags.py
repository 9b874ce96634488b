"""A YAML tag on the wrong kind of node (`spec: !!seq {a: 1}`, `!!map [1, 2]`, `!!map x`, in a list,
under a merge key, written verbatim) is a DRA0001 finding at that node: every command runs to its
end, and the other documents and files keep their findings."""

from __future__ import annotations

import json

import pytest
from cli_harness import assert_ok, run_inproc

CLAIM = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {{name: {name}}}\n{body}\n"
GOOD = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: good}\n"
        "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: nope}}]}}\n")

MISMATCHES = {
    "seq-on-mapping": ("spec: !!seq {a: 1}", 4, 7, "expected a sequence node, but found mapping"),
    "map-on-sequence": ("spec: !!map [1, 2]", 4, 7, "expected a mapping node, but found sequence"),
    "verbatim-seq": ("spec: !<tag:yaml.org,2002:seq> {a: 1}", 4, 7,
                     "expected a sequence node, but found mapping"),
    "verbatim-map": ("spec: !<tag:yaml.org,2002:map> [1]", 4, 7,
                     "expected a mapping node, but found sequence"),
    "map-on-scalar": ("spec: !!map x", 4, 7, "expected a mapping node, but found scalar"),
    "seq-on-empty": ('spec: {devices: !!seq ""}', 4, 17, "expected a sequence node, but found scalar"),
    "in-a-list": ("spec: {devices: {requests: [{name: a}, !!map [1]]}}", 4, 40,
                  "expected a mapping node, but found sequence"),
    "under-merge-key": ("spec:\n  <<: {devices: !!seq {a: 1}}", 5, 17,
                        "expected a sequence node, but found mapping"),
    "set-on-sequence": ("spec: !!set [a]", 4, 7, "expected a mapping node, but found sequence"),
    "omap-on-mapping": ("spec: !!omap {a: 1}", 4, 7, "expected a sequence node, but found mapping"),
}


@pytest.mark.parametrize("name", sorted(MISMATCHES))
@pytest.mark.parametrize("command", ["validate", "allocate", "env"])
def test_mismatched_tag_is_a_finding_and_the_run_goes_on(name, command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    body, line, column, message = MISMATCHES[name]
    (tmp_path / "a.yaml").write_text(CLAIM.format(name="bad", body=body) + "---\n" + GOOD)
    (tmp_path / "b.yaml").write_text(GOOD.replace("good", "other"))
    args = [command, "a.yaml", "b.yaml", "-o", "json"]
    if command != "validate":
        args += ["-i", "builtin:example-gpu"]
    run = run_inproc(args)
    assert_ok(run, "json")
    assert run.code == 1, run.err
    findings = json.loads(run.out)["findings"]
    assert {"code": "DRA0001", "message": message, "file": "a.yaml", "line": line,
            "column": column} in [{k: f[k] for k in ("code", "message", "file", "line", "column")}
                                  for f in findings]
    # both good claims (one after the bad document, one in the other file) are still checked
    names = {f["name"] for f in findings if f["code"] == "DRA2001" or f["code"].startswith("DRA5")}
    if command == "validate":
        assert {f["file"] for f in findings if f["code"] != "DRA0001"} == {"a.yaml", "b.yaml"}
    else:
        assert names or any(f["file"] == "b.yaml" for f in findings), findings


def test_streamed_big_file_reports_the_same(tmp_path, monkeypatch):
    """A file over the event-stream threshold is read by the other path: same finding."""
    monkeypatch.chdir(tmp_path)
    from dractl.load import parse

    monkeypatch.setattr(parse, "STREAM_FROM_BYTES", 0)
    text = "".join(CLAIM.format(name=f"c{i}", body=MISMATCHES[k][0]) + "---\n"
                   for i, k in enumerate(sorted(MISMATCHES)))
    parsed = parse.parse_source("x.yaml", (text + GOOD).encode())
    assert [f.message for f in parsed.findings] == [MISMATCHES[k][3] for k in sorted(MISMATCHES)]
    assert [d.name for d in parsed.documents] == ["good"]
