"""Loader: files, directories, stdin, Lists, positions, and every kind of bad input."""

from __future__ import annotations

import io
import os
import time

import pytest

from dractl.load.limits import Limits
from dractl.load.loader import load_paths
from dractl.load.parse import parse_source

POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: busybox
"""


def codes(result):
    return [f.code for f in result.findings]


def test_multi_document_yaml_with_positions():
    text = POD + "---\n" + POD.replace("name: p", "name: q")
    parsed = parse_source("x.yaml", text.encode())
    assert [d.name for d in parsed.documents] == ["p", "q"]
    second = parsed.documents[1]
    assert second.line == 10
    # the container name of the second document: line 10 + 6, column 5 ("- name" -> "name")
    assert second.locate(("spec", "containers", 0, "name")) == (16, 5)
    # a missing field points at its nearest existing parent
    assert second.locate(("spec", "nodeName")) == (14, 1)


def test_json_document():
    parsed = parse_source("p.json", b'{"apiVersion": "v1", "kind": "Pod",\n "metadata": {"name": "j"}}')
    assert [d.name for d in parsed.documents] == ["j"]
    assert parsed.documents[0].locate(("metadata", "name")) == (2, 15)


def test_kind_list_and_typed_list():
    text = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimList
items:
- metadata: {name: c1, namespace: default}
"""
    parsed = parse_source("l.yaml", text.encode())
    assert [(d.kind, d.name) for d in parsed.documents] == [
        ("Node", "n1"), ("DeviceClass", "gpu"), ("ResourceClaim", "c1")]
    assert parsed.documents[2].api_version == "resource.k8s.io/v1"
    assert parsed.documents[1].locate(("metadata", "name")) == (9, 14)


def test_syntax_error_has_position_and_later_documents_still_load():
    text = POD + "---\nmetadata: [unclosed\n---\n" + POD.replace("name: p", "name: after")
    parsed = parse_source("s.yaml", text.encode())
    assert codes(parsed) == ["DRA0001"]
    assert parsed.findings[0].line >= 10
    assert [d.name for d in parsed.documents] == ["p", "after"]


@pytest.mark.parametrize("data,code", [
    (b"- a\n- b\n", "DRA0002"),
    (b"just a string\n", "DRA0002"),
    (b"", "DRA0007"),
    (b"# only a comment\n", "DRA0007"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "DRA0008"),
    (b"kind: Pod\nname: caf\xe9\n", "DRA0006"),
    (b"a: 1\na: 2\n", "DRA0005"),
])
def test_bad_inputs_are_findings(data, code):
    parsed = parse_source("bad.yaml", data)
    assert code in codes(parsed)
    assert parsed.documents == [] or code == "DRA0005"


def test_non_utf8_position_is_reported():
    parsed = parse_source("bad.yaml", b"a: 1\nb: caf\xe9\n")
    f = parsed.findings[0]
    assert (f.code, f.line, f.column) == ("DRA0006", 2, 7)


def test_duplicate_key_position():
    parsed = parse_source("dup.yaml", b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n")
    f = parsed.findings[0]
    assert (f.code, f.line, f.column) == ("DRA0005", 5, 3)
    assert '"name"' in f.message


def test_utf16_with_bom_is_read():
    parsed = parse_source("u.yaml", "\ufeff".encode("utf-16-le")[:0] + b"\xff\xfe"
                          + "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n".encode("utf-16-le"))
    assert [d.name for d in parsed.documents] == ["n"]


def test_yaml_11_semantics_like_kubernetes():
    parsed = parse_source("t.yaml", b"apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n"
                          b"  labels: {a: 2024-01-01, on: yes}\n")
    labels = parsed.documents[0].data["metadata"]["labels"]
    assert labels == {"a": "2024-01-01", "true": True}


def test_billion_laughs_is_bounded():
    bomb = "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\na: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
    prev = "a"
    for n in "bcdefghi":
        bomb += f"{n}: &{n} [" + ",".join(["*" + prev] * 9) + "]\n"
        prev = n
    start = time.monotonic()
    parsed = parse_source("bomb.yaml", bomb.encode())
    assert codes(parsed) == ["DRA0010"]
    assert parsed.documents == []
    assert time.monotonic() - start < 30  # generous: the point is that it ends


@pytest.mark.parametrize("text", [
    "a: " + "[" * 100_000 + "]" * 100_000,          # would crash libyaml's recursive composer
    "".join("  " * i + "k:\n" for i in range(3000)),
    "{\"a\":" * 5000 + "1" + "}" * 5000,
])
def test_absurd_nesting_is_a_finding(text):
    parsed = parse_source("deep.yaml", text.encode())
    assert "DRA0011" in codes(parsed)


def test_moderate_aliases_are_fine():
    text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  labels: &l {a: b}\n  annotations: *l\n"
    parsed = parse_source("alias.yaml", text.encode())
    assert parsed.findings == []


def test_directory_walk_sorted_recursive_and_symlink_loop(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a.yaml").write_text(POD.replace("name: p", "name: first"))
    (tmp_path / "b" / "c.yml").write_text(POD.replace("name: p", "name: second"))
    (tmp_path / "b" / "d.json").write_text('{"apiVersion":"v1","kind":"Node","metadata":{"name":"third"}}')
    (tmp_path / "b" / "notes.txt").write_text("ignored")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.yaml").write_text(POD)
    (tmp_path / ".gitlab-ci.yml").write_text("stages: [lint]\n")  # tool config, not a manifest
    os.symlink(tmp_path, tmp_path / "b" / "loop")
    result = load_paths([str(tmp_path)])
    assert [d.name for d in result.documents] == ["first", "second", "third"]
    assert result.files == 3
    assert "DRA0013" in codes(result)
    assert not result.usage_errors


def test_missing_path_is_usage_error(tmp_path):
    result = load_paths([str(tmp_path / "nope.yaml")])
    assert result.usage_errors and codes(result) == ["DRA0012"]


def test_special_files_are_not_opened(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    result = load_paths([str(fifo), "/dev/zero"])
    # Named on the command line: unreadable paths (DRA0012, an error as the code table says, and
    # exit status 2), not DRA0013's warning for special files met while walking.
    assert codes(result) == ["DRA0012", "DRA0012"]
    assert all(f.severity == "error" for f in result.findings)
    assert len(result.usage_errors) == 2


def test_size_limit(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text(POD * 10)
    result = load_paths([str(big)], Limits(max_file_bytes=100))
    assert codes(result) == ["DRA0009"]
    assert result.documents == []


def test_stdin():
    result = load_paths(["-"], stdin=io.BytesIO(POD.encode()))
    assert [d.name for d in result.documents] == ["p"]
    assert result.documents[0].file == "<stdin>"


def test_unreadable_file_in_directory(tmp_path):
    if os.geteuid() == 0:
        # root reads everything; simulate with a dangling symlink instead
        os.symlink(tmp_path / "gone.yaml", tmp_path / "dangling.yaml")
        result = load_paths([str(tmp_path)])
        assert codes(result) == ["DRA0013"]
        return
    f = tmp_path / "secret.yaml"
    f.write_text(POD)
    f.chmod(0)
    result = load_paths([str(tmp_path)])
    assert codes(result) == ["DRA0012"]


def test_ten_thousand_documents_load():
    text = "---\n".join(POD.replace("name: p", f"name: p{i}") for i in range(10_000))
    parsed = parse_source("many.yaml", text.encode())
    assert len(parsed.documents) == 10_000 and parsed.findings == []


# ---- the short-path value builder (yamlsafe.ManifestLoader.construct_document) -------------
def test_merge_keys_and_their_duplicates_take_pyyaml_path():
    text = (b"apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  labels: &base {a: '1', b: '2'}\n"
            b"  annotations:\n    <<: *base\n    b: '3'\n    c: x\n    c: y\n")
    parsed = parse_source("merge.yaml", text)
    data = parsed.documents[0].data["metadata"]
    assert data["annotations"] == {"a": "1", "b": "3", "c": "y"}
    dup = [f for f in parsed.findings if f.code == "DRA0005"]
    assert (10, 5) in [(f.line, f.column) for f in dup]
    assert any("first set on line 9" in f.message for f in dup)


def test_recursive_anchor_is_a_finding_not_a_hang():
    parsed = parse_source("rec.yaml", b"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nx: &a [*a]\n")
    assert codes(parsed) in (["DRA0011"], ["DRA0001"])   # libyaml may refuse it outright


def test_depth_over_limit_without_aliases_is_found_by_the_builder():
    deep = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nx: " + "[" * 101 + "]" * 101 + "\n"
    parsed = parse_source("deep.yaml", deep.encode())
    assert codes(parsed) == ["DRA0011"] and parsed.findings[0].line == 1
    ok = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nx: " + "[" * 90 + "]" * 90 + "\n"
    assert parse_source("ok.yaml", ok.encode()).findings == []


def test_builder_matches_pyyaml_on_every_scalar_type():
    import yaml
    text = ("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nv:\n  s: plain\n  q: 'quoted'\n"
            "  i: 42\n  h: 0x1F\n  o: 017\n  f: 1.5e3\n  b: yes\n  n: ~\n  t: 2024-01-01\n"
            "  e: ''\n  l: [1, two, 3.0, null, {k: v}]\n  2: int key\n  true: bool key\n"
            "  tagged: !!str 12\n")
    built = parse_source("types.yaml", text.encode()).documents[0].data["v"]
    reference = yaml.safe_load(text)["v"]
    reference["t"] = "2024-01-01"  # timestamps stay strings, as in Kubernetes
    expected = {("true" if k is True else str(k)): v for k, v in reference.items()}
    assert built == expected


def test_keys_that_mean_the_same_are_duplicates_with_the_first_line():
    parsed = parse_source("b.yaml", b"apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n"
                          b"  labels:\n    on: a\n    yes: b\n    1: c\n    '1': d\n")
    dup = sorted((f.line, f.message) for f in parsed.findings if f.code == "DRA0005")
    assert dup == [(7, 'duplicate field "true" (first set on line 6)'),
                   (9, 'duplicate field "1" (first set on line 8)')]


def test_a_merge_key_after_a_duplicate_reports_it_once():
    text = (b"apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  labels: &l {x: '1'}\n"
            b"  annotations:\n    a: '1'\n    a: '2'\n    <<: *l\n")
    parsed = parse_source("m.yaml", text)
    assert [f.line for f in parsed.findings if f.code == "DRA0005"] == [8]
    assert parsed.documents[0].data["metadata"]["annotations"] == {"a": "2", "x": "1"}


# ---- the builder against PyYAML's own constructor, on random documents -----------------------
def _reference_load(text: str):
    """What the loader produced before its short path: PyYAML's SafeLoader constructor with
    Kubernetes' conventions (timestamps stay strings, keys become strings)."""
    import yaml

    class Reference(yaml.SafeLoader):
        pass

    Reference.add_constructor("tag:yaml.org,2002:timestamp", lambda l, n: l.construct_scalar(n))

    def keys_as_text(value):
        if isinstance(value, dict):
            return {("true" if k is True else "false" if k is False else "null" if k is None
                     else k if isinstance(k, str) else str(k)): keys_as_text(v)
                    for k, v in value.items()}
        if isinstance(value, list):
            return [keys_as_text(v) for v in value]
        return value

    return [keys_as_text(d) for d in yaml.load_all(text, Loader=Reference)]


def test_builder_equals_pyyaml_on_random_documents():
    import yaml
    from hypothesis import given, settings
    from hypothesis import strategies as st

    scalars = (st.none() | st.booleans() | st.integers(-10**12, 10**12)
               | st.floats(allow_nan=False, allow_infinity=False)
               | st.sampled_from(["yes", "no", "on", "off", "~", "null", "0x1F", "017", "1e3",
                                  "2024-01-01", "1Gi", "true", "", "a: b", "- x", "#c", "'q'"])
               | st.text(max_size=12))
    keys = st.text(min_size=1, max_size=8) | st.sampled_from(["on", "yes", "1", "null"])
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(keys, inner, max_size=4), max_leaves=25)

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.dictionaries(keys, values, min_size=1, max_size=5), min_size=1,
                    max_size=3), st.booleans(), st.booleans())
    def check(docs, flow, anchors):
        text = yaml.safe_dump_all(docs, default_flow_style=flow, allow_unicode=True)
        if anchors:  # the same object twice: the dumper writes an anchor and an alias
            text = yaml.safe_dump_all([{"a": docs[0], "b": docs[0]}], default_flow_style=flow)
        parsed = parse_source("r.yaml", text.encode("utf-8"))
        if any(f.code in ("DRA0001", "DRA0010", "DRA0011") for f in parsed.findings):
            return  # the reference has no such limits
        got = [d.data for d in parsed.documents]
        assert got == _reference_load(text)

    check()


def test_deep_json_is_a_finding_even_after_the_recursion_limit_was_raised():
    """The allocator raises the recursion limit for its search; the JSON decoder recurses in C,
    so the loader caps the limit while decoding (in a child process: a failure would crash)."""
    import subprocess
    import sys

    code = ("import sys; sys.setrecursionlimit(500000)\n"
            "from dractl.load.parse import parse_source\n"
            "text = '{\"a\":' * 200000 + '1' + '}' * 200000\n"
            "parsed = parse_source('deep.json', text.encode())\n"
            "print(sorted({f.code for f in parsed.findings}), sys.getrecursionlimit())\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-500:]
    assert run.stdout.split() == ["['DRA0011']", "500000"]


def test_json_depth_over_the_limit_and_under_it():
    deep = '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "x": ' + \
        "[" * 150 + "]" * 150 + "}"
    assert codes(parse_source("d.json", deep.encode())) == ["DRA0011"]
    ok = deep.replace("[" * 150 + "]" * 150, "[" * 90 + "]" * 90)
    assert parse_source("ok.json", ok.encode()).findings == []
