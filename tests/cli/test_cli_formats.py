"""validate/allocate -o junit|sarif|github|json|text: well-formed, schema-valid, same findings."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import jsonschema
import pytest
import xsd_check
from cli_helpers import DATA, HOSTILE

SARIF_SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
JUNIT_XSD = DATA / "junit-10.xsd"

ANNOTATION = re.compile(r"^::(error|warning|notice) ((?:[a-z]+=[^,:]*)(?:,[a-z]+=[^,:]*)*)::(.*)$")
LEVEL = {"error": "error", "warning": "warning", "note": "info", "notice": "info"}

POD_FAILS = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: too-many
  namespace: default
spec:
  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu.example.com
        count: 20
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: default
spec:
  resourceClaims:
  - name: gpus
    resourceClaimName: too-many
  containers:
  - name: main
    image: busybox
    resources:
      claims:
      - name: gpus
---
apiVersion: v1
kind: Pod
metadata:
  name: "evil%0A::warning::x,y:z]]>&<\\e[2J"
  namespace: default
spec:
  resourceClaims:
  - name: gpus
    resourceClaimName: missing-claim
  containers:
  - name: main
    image: busybox
    resources:
      claims:
      - name: gpus
"""


# -- parsers: each output back into (file, line, column, code, severity) ----------------------

def json_findings(text: str) -> set[tuple]:
    doc = json.loads(text)
    return {(f["file"], f["line"], f["column"], f["code"], f["severity"]) for f in doc["findings"]}


def unescape_property(v: str) -> str:
    return (v.replace("%3A", ":").replace("%2C", ",").replace("%0D", "\r").replace("%0A", "\n")
            .replace("%25", "%"))


def github_findings(text: str) -> set[tuple]:
    out = set()
    for line in text.splitlines():
        m = ANNOTATION.match(line)
        assert m, f"not a workflow command: {line!r}"
        props = dict(p.split("=", 1) for p in m.group(2).split(","))
        assert "\r" not in m.group(3) and "\x1b" not in m.group(3)
        out.add((unescape_property(props.get("file", "")), int(props.get("line", 0)),
                 int(props.get("col", 0)), unescape_property(props["title"]), LEVEL.get(m.group(1), m.group(1))))
    return out


def sarif_findings(text: str) -> set[tuple]:
    doc = json.loads(text)
    validator = jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len({r["id"] for r in rules}) == len(rules)
    out = set()
    for r in run["results"]:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        region = {}
        for loc in r.get("locations", []):
            region = loc.get("physicalLocation", {}).get("region", {})
        out.add((r.get("properties", {}).get("file", ""), region.get("startLine", 0),
                 region.get("startColumn", 0), r["ruleId"], LEVEL[r["level"]]))
    return out


_LISTED = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|info) (\S+) ", re.S)
_LISTED_NO_LINE = re.compile(r"^(.*?): (error|warning|info) (\S+) ", re.S)


def junit_findings(text: str, tmp_path) -> tuple[set[tuple], ET.Element]:
    path = tmp_path / "junit.xml"
    path.write_text(text, encoding="utf-8")
    assert xsd_check.validate(path, JUNIT_XSD) == []
    try:
        import xmlschema
    except ImportError:
        pass
    else:
        xmlschema.XMLSchema(str(JUNIT_XSD)).validate(str(path))
    root = ET.fromstring(text.encode("utf-8"))
    out = set()
    for case in root.iter("testcase"):
        for el in list(case):
            if el.tag not in ("failure", "system-out"):
                continue
            for line in (el.text or "").split("\n"):
                m = _LISTED.match(line)
                if m:
                    out.add((m.group(1), int(m.group(2)), int(m.group(3)), m.group(5), m.group(4)))
                else:
                    m = _LISTED_NO_LINE.match(line)
                    assert m, line
                    out.add((m.group(1), 0, 0, m.group(3), m.group(2)))
    return out, root


# -- validate -----------------------------------------------------------------------------------

def test_validate_every_format_carries_the_same_findings(dractl, tree, tmp_path):
    base = dractl("validate", tree.name, "-o", "json", cwd=tree.parent)
    assert base.code == 1, base.err
    expected = json_findings(base.out)
    assert {c for _, _, _, c, _ in expected} >= {"DRA0001", "DRA1002", "DRA1009"}
    assert any(s == "warning" for *_, s in expected)

    gh = dractl("validate", tree.name, "-o", "github", cwd=tree.parent)
    sarif = dractl("validate", tree.name, "-o", "sarif", cwd=tree.parent)
    junit = dractl("validate", tree.name, "-o", "junit", cwd=tree.parent)
    assert gh.code == sarif.code == junit.code == 1
    assert github_findings(gh.out) == expected
    assert sarif_findings(sarif.out) == expected
    listed, _ = junit_findings(junit.out, tmp_path)
    assert listed == expected

    text = dractl("validate", tree.name, cwd=tree.parent)
    assert text.code == 1
    for file, line, column, code, severity in expected:
        assert f"{file}:{line}:{column}  {code}  {severity}" in text.out


def test_junit_one_testcase_per_document(dractl, tree, tmp_path):
    result = dractl("validate", tree.name, "-o", "junit", cwd=tree.parent)
    _, root = junit_findings(result.out, tmp_path)
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"deploy/ok.yaml", "deploy/bad.yaml", "deploy/syntax.yaml",
                           "deploy/hostile, name:%.yaml"}
    ok = suites["deploy/ok.yaml"]
    assert [c.get("name") for c in ok.iter("testcase")] == ["DeviceClass gpu.example.com",
                                                            "ResourceClaim default/good"]
    assert ok.get("failures") == "0" and all(len(c) == 0 for c in ok.iter("testcase"))
    bad = list(suites["deploy/bad.yaml"].iter("testcase"))
    assert len(bad) == 1 and bad[0].get("name") == "ResourceClaim default/bad"
    failure = bad[0].find("failure")
    assert failure.get("type") == "DRA1002"
    assert "deploy/bad.yaml:12:9: error DRA1009" in failure.text
    # a file that does not parse is one test case of its own
    syntax = list(suites["deploy/syntax.yaml"].iter("testcase"))
    assert [c.get("name") for c in syntax] == ["(file)"]
    total = sum(int(s.get("tests")) for s in suites.values())
    assert root.get("tests") == str(total) == str(len(list(root.iter("testcase"))))
    assert root.get("failures") == "3"


def test_hostile_strings_stay_inert(dractl, tree, tmp_path):
    for fmt in ("github", "sarif", "junit", "json", "text"):
        result = dractl("validate", tree.name, "-o", fmt, cwd=tree.parent)
        assert result.code == 1, (fmt, result.err)
        assert "Traceback" not in result.err
        assert "\x1b" not in result.out and "\r" not in result.out and "\u202e" not in result.out
        assert "\x00" not in result.out
    gh = dractl("validate", tree.name, "-o", "github", cwd=tree.parent).out
    # the injected "::error::" stays inside the message of one annotation
    assert sum(1 for line in gh.splitlines() if line.startswith("::")) == len(gh.splitlines())
    hostile = [line for line in gh.splitlines() if "hostile" in line]
    assert hostile and all(line.startswith("::error file=deploy/hostile%2C name%3A%25.yaml,")
                           for line in hostile)
    assert "%250A::error::pwned" in gh  # the manifest's own "%0A" is escaped, not decoded


def test_non_utf8_file_name_in_every_format(dractl, tmp_path):
    import os

    root = tmp_path / "odd"
    root.mkdir()
    name = os.fsdecode(b"bad-\xff.yaml")
    (root / name).write_bytes(HOSTILE.encode())
    for fmt in ("github", "sarif", "junit", "json", "text"):
        result = dractl("validate", "odd", "-o", fmt, cwd=tmp_path)
        assert result.code == 1 and "internal error" not in result.err, (fmt, result.err)
    sarif = dractl("validate", "odd", "-o", "sarif", cwd=tmp_path).out
    assert "odd/bad-%FF.yaml" in sarif
    sarif_findings(sarif)
    junit_findings(dractl("validate", "odd", "-o", "junit", cwd=tmp_path).out, tmp_path)


def test_stdin_and_clean_inputs(dractl, tmp_path):
    from cli_helpers import CLAIM_OK

    result = dractl("validate", "-", "-o", "sarif", stdin=CLAIM_OK.encode(), cwd=tmp_path)
    assert result.code == 0
    assert json.loads(result.out)["runs"][0]["results"] == []
    sarif_findings(result.out)
    result = dractl("validate", "-", "-o", "junit", stdin=CLAIM_OK.encode(), cwd=tmp_path)
    assert result.code == 0
    _, root = junit_findings(result.out, tmp_path)
    assert [s.get("name") for s in root.iter("testsuite")] == ["<stdin>"]
    assert root.get("failures") == "0" and root.get("tests") == "2"
    assert dractl("validate", "-", "-o", "github", stdin=CLAIM_OK.encode(), cwd=tmp_path).out == ""


def test_sarif_rules_come_from_the_code_table(dractl, tree):
    from dractl.cli.common import all_codes

    doc = json.loads(dractl("validate", tree.name, "-o", "sarif", cwd=tree.parent).out)
    driver = doc["runs"][0]["tool"]["driver"]
    table = {r.code: r for r in all_codes()}
    # Only the rules that fired (the whole table made 550 KB for 13 findings), each in full.
    assert [r["id"] for r in driver["rules"]] == sorted({r["ruleId"] for r in doc["runs"][0]["results"]})
    assert "DRA1002" in table and len(driver["rules"]) < len(table)
    rule = next(r for r in driver["rules"] if r["id"] == "DRA1002")
    assert table["DRA1002"].summary.lower() in rule["shortDescription"]["text"].lower()
    assert "--ignore DRA1002" in rule["help"]["text"]
    assert rule["defaultConfiguration"]["level"] == "error"
    result = next(r for r in doc["runs"][0]["results"] if r["ruleId"] == "DRA1009")
    loc = result["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"] == {"uri": "deploy/bad.yaml", "uriBaseId": "%SRCROOT%"}
    assert loc["physicalLocation"]["region"] == {"startLine": 12, "startColumn": 9}
    assert loc["logicalLocations"][0]["fullyQualifiedName"] == "ResourceClaim/default/bad"


def test_strict_turns_warnings_into_errors_in_every_format(dractl, tree):
    parse = {"github": github_findings, "sarif": sarif_findings, "json": json_findings}
    for fmt, found in parse.items():
        lax = found(dractl("validate", tree.name, "-o", fmt, cwd=tree.parent).out)
        strict = found(dractl("validate", tree.name, "-o", fmt, "--strict", cwd=tree.parent).out)
        assert any(s == "warning" for *_, s in lax)
        assert strict == {(*rest, "error") for *rest, _ in lax}


# -- allocate -----------------------------------------------------------------------------------

def test_allocate_ci_formats_report_scheduling_failures(dractl, tmp_path):
    (tmp_path / "pods.yaml").write_text(POD_FAILS)
    args = ("allocate", "pods.yaml", "-i", "builtin:example-gpu")
    gh = dractl(*args, "-o", "github", cwd=tmp_path)
    sarif = dractl(*args, "-o", "sarif", cwd=tmp_path)
    junit = dractl(*args, "-o", "junit", cwd=tmp_path)
    assert gh.code == sarif.code == junit.code == 1, (gh.err, sarif.err, junit.err)
    found = github_findings(gh.out)
    assert found == sarif_findings(sarif.out)
    listed, root = junit_findings(junit.out, tmp_path)
    assert listed == found
    codes = {code for _, _, _, code, _ in found}
    assert {"DRA5001"} <= codes
    # the unschedulable pod is reported at its own document
    assert ("pods.yaml", 19, 1, "DRA5001", "error") in found
    # every validation finding of the JSON output is among them
    plain = json_findings(dractl(*args, "-o", "json", cwd=tmp_path).out)
    assert plain <= found
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    # Inventory objects without findings are cluster state, not test cases of the manifests.
    assert list(suites) == ["pods.yaml"] and "site-packages" not in junit.out
    pod_cases = {c.get("name"): c for c in suites["pods.yaml"].iter("testcase")}
    assert pod_cases["Pod default/trainer"].find("failure") is not None
    assert pod_cases["ResourceClaim default/too-many"].find("failure") is None
    assert not any(line.startswith("::") and "\x1b" in line for line in gh.out.splitlines())


def test_allocate_ci_formats_pass_when_everything_schedules(dractl, tmp_path):
    text = POD_FAILS.split("---\n")[0].replace("count: 20", "count: 1")
    (tmp_path / "claim.yaml").write_text(text)
    for fmt in ("github", "sarif", "junit"):
        result = dractl("allocate", "claim.yaml", "-i", "builtin:example-gpu", "-o", fmt, cwd=tmp_path)
        assert result.code == 0, (fmt, result.out, result.err)
        if fmt == "junit":
            assert ET.fromstring(result.out).get("failures") == "0"


@pytest.mark.parametrize("fmt", ["json", "junit", "sarif", "github", "text", "concise", "gitlab"])
def test_unreadable_path_is_a_usage_error_in_every_format(dractl, tmp_path, fmt):
    result = dractl("validate", "does-not-exist.yaml", "-o", fmt, cwd=tmp_path)
    assert result.code == 2 and "Traceback" not in result.err
    if fmt in ("text", "concise"):
        # shown once: the finding on standard output is not repeated on standard error
        assert "does-not-exist.yaml" in result.out and "does-not-exist.yaml" not in result.err
    else:
        assert "does-not-exist.yaml" in result.err
