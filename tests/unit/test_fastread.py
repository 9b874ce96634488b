"""The fast reader (rapidyaml + dractl's checks, dractl/load/fastread.py) against the libyaml path
it stands in for: the same documents, findings, document starts and located positions, on
generated YAML (valid and broken) and on every YAML file of the repository and of the realworld
corpus. Each comparison also counts how often the fast reader was taken, so a reader that gives
up on everything fails here too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.load import fastread, parse
from dractl.load.limits import DEFAULT_LIMITS, Limits
from tests.realworld_corpus import REPO, require_realworld

pytestmark = pytest.mark.skipif(not fastread.available(), reason="rapidyaml is not installed")


def setup_module():
    fastread.IMPORT_AFTER_BYTES = 0  # (a run takes the fast reader from its first byte)


def teardown_module():
    fastread.IMPORT_AFTER_BYTES = 64 * 1024


def _libyaml_only(monkeypatch_read, name: str, data: bytes, limits: Limits):
    saved = fastread.read
    fastread.read = monkeypatch_read
    try:
        return parse.parse_source(name, data, limits)
    finally:
        fastread.read = saved


def _leaf_paths(value, prefix=()):
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _leaf_paths(child, prefix + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _leaf_paths(child, prefix + (i,))
    yield prefix


def _summary(parsed, locate: bool):
    docs = []
    for d in parsed.documents:
        entry = [d.data, d.index, d.line, d.column, d.prefix, tuple(d.positions.doc_lines)]
        if locate:  # where findings would point, for every field
            entry.append([d.locate(p) for p in list(_leaf_paths(d.data))[:200]])
        docs.append(entry)
    return docs, [repr(f) for f in parsed.findings], parsed.raw_documents


def compare(text: str | bytes, name: str = "f.yaml", limits: Limits = DEFAULT_LIMITS,
            locate: bool = True) -> bool:
    """Assert both paths agree on `text`; True when the fast reader was taken."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    taken = []
    real = fastread.read

    def counting(t, depth):
        result = real(t, depth)
        taken.append(result is not None)
        return result

    fast = _libyaml_only(counting, name, data, limits)
    slow = _libyaml_only(lambda t, depth: None, name, data, limits)
    assert _summary(fast, locate) == _summary(slow, locate), text
    return any(taken)


# ---- generated YAML ---------------------------------------------------------------------------
_PLAIN = ["a", "gpu", "name", "yes", "No", "on", "OFF", "y", "n", "true", "True", "FALSE", "null",
          "Null", "~", "0", "00", "012", "08", "-0", "+1", "1", "-12", "123456789012345678901",
          "0x1F", "0o17", "0b101", "1_000", "1:20", "-1:20", "1.5", "-1.5", "1.", ".5", "-.5",
          "1e3", "1.0e+3", "1.5e3", "-1E-3", ".inf", "-.Inf", ".NaN", "inf", "nan", "Infinity",
          "2001-12-14", "2001-12-14t21:59:43.10-05:00", "<<", "=", "1Gi", "1.2.3", "v1",
          "a b", "a:b", "a#b", "http://x/y?z=1", "a && b", "!= x", "x * y", "-", "--x", "@", "%x",
          "é", "日本"]
_QUOTED = ["", "yes", "1", "1.5", "1.37", "1.10", "-0.5", "0.50", "1.0", "0x1F", "~", "true", "a'b", 'a"b', "a\\b", "\\t", "\\n",
           "\\x41", "\\u00e9", "\\e", "\\0", "\\N", "\\_", " lead", "trail ", "#", ": ", "1e3",
           "-.5", "012", "é"]
_KEYS = ["a", "b", "name", "kind", "1", "1.0", "1.10", "1.37", '"1.37"', '"1.10"', "-1.5", "yes", "on", "~", "null", "true", "0x1F", "-0",
         "1e3", "a b", '"q"', "'on'", '""', "<<", "x.y/z", "012"]


def _scalar():
    plain = st.sampled_from(_PLAIN)
    double = st.sampled_from(_QUOTED).map(lambda s: f'"{s}"')
    single = st.sampled_from(_QUOTED).map(lambda s: "'" + s.replace("'", "''").replace("\\", "") + "'")
    block = st.tuples(st.sampled_from(["|", "|-", "|+", ">", ">-", "|2"]),
                      st.lists(st.sampled_from(["x", "y z", "", "  indented", "#c"]),
                               min_size=1, max_size=3))
    return st.one_of(plain, double, single, block)


def _node(depth: int):
    if depth > 4:
        return _scalar()
    child = st.deferred(lambda: _node(depth + 1))
    return st.one_of(
        _scalar(),
        st.lists(st.tuples(st.sampled_from(_KEYS), child), min_size=1, max_size=4).map(
            lambda items: ("map", items)),
        st.lists(child, min_size=0, max_size=3).map(lambda items: ("seq", items)),
        st.lists(st.sampled_from(_PLAIN[:20] + _QUOTED[:3]), max_size=3).map(
            lambda items: ("flow", items)),
        st.tuples(st.sampled_from(["&a ", "!!str ", "!t ", "*a", "? ", "&a [", "!!map "]),
                  st.sampled_from(["x", "1", "{}"])).map(lambda p: ("raw", p[0] + p[1])),
    )


def _render(node, indent: int) -> list[str]:
    """Lines of the node's block rendering, for a value position at `indent`."""
    pad = " " * indent
    if isinstance(node, tuple) and node[0] == "map":
        lines = []
        for key, child in node[1]:
            sub = _render(child, indent + 2)
            if len(sub) == 1 and not sub[0].startswith("\n"):
                lines.append(f"{pad}{key}: {sub[0].strip()}")
            else:
                lines.append(f"{pad}{key}:")
                lines.extend(line for line in sub)
        return lines
    if isinstance(node, tuple) and node[0] == "seq":
        if not node[1]:
            return [f"{pad}[]"]
        lines = []
        for child in node[1]:
            sub = _render(child, indent + 2)
            lines.append(f"{pad}- {sub[0].strip()}")
            lines.extend(sub[1:])
        return lines
    if isinstance(node, tuple) and node[0] == "flow":
        return [f"{pad}[{', '.join(node[1])}]"]
    if isinstance(node, tuple) and node[0] == "raw":
        return [pad + node[1]]
    if isinstance(node, tuple):  # a block scalar: header, then its lines one level in
        header, body = node
        return [f"{pad}{header}"] + [f"{pad}  {line}" if line else "" for line in body]
    return [pad + node]


def _document(node) -> str:
    lines = _render(node, 0)
    if lines and lines[0].lstrip().startswith(("|", ">")):
        lines = ["k: " + lines[0].strip()] + lines[1:]
    return "\n".join(lines)


_SEPARATORS = ["\n---\n", "\n--- # c\n", "\n---\n# only a comment\n", "\n---\n\n---\n", "\n"]


@st.composite
def yaml_texts(draw):
    docs = draw(st.lists(_node(0), min_size=1, max_size=3))
    text = draw(st.sampled_from(["", "---\n", "# head\n", "\n"]))
    for i, doc in enumerate(docs):
        if i:
            text += draw(st.sampled_from(_SEPARATORS))
        text += _document(doc)
    text += draw(st.sampled_from(["", "\n", "\n---\n", "\n# tail\n", "\n...\n"]))
    for _ in range(draw(st.integers(0, 2))):  # break it a little
        at = draw(st.integers(0, len(text)))
        edit = draw(st.one_of(
            st.sampled_from(["", " ", "\t", ":", "- ", "#", "\n", '"', "'", "[", "{", "]", "&",
                             "*", "!", "?", "\n  ", "x: y\n", "\r\n", "-.1", "|2 x", '"x"!']),
            st.text(alphabet=" -:[]{},#&*!|>'\"?%@`\nxy01.\\", max_size=3)))
        cut = draw(st.integers(0, 2))
        text = text[:at] + edit + text[at + cut:]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_texts())
def test_generated_yaml_reads_the_same(text):
    compare(text)


def test_generated_yaml_mostly_takes_the_fast_reader():
    """The generator is not all fallbacks: valid plain manifests take the fast reader."""
    texts = ["a: 1\nb: [x, 2]\n---\n- c\n- {d: e}\n", "k: |\n  x\n  y\nj: >-\n  a\n  b\n",
             "# c\n---\nname: 'it''s'\nv: \"\\u00e9\\n\"\nn: null\nt: true\ne:\n",
             "a:\n  b:\n    c: [1, -2, 0]\n  d: []\n  f: {}\n", "x: 'yes'\ny: \"~\"\n"]
    taken = [compare(t) for t in texts[:-1]]
    assert all(taken), taken
    assert compare(texts[-1]) is False  # a quoted `yes` may have been plain: libyaml reads it


# ---- specific cases -----------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "a: yes\n", "a: ~\n", "a: 0x1F\n", "a: 012\n", "a: 1_000\n", "a: 1:20\n", "a: .inf\n",
    "a: inf\n", "a: 1e3\n", "a: -.5\n", "a: +1\n", "a: 123456789012345678901234567890\n",
    "yes: 1\n", "1.10: x\n", "~: x\n", ": x\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "<<: {b: 1}\n",
    "a: 1\na: 2\n", "a:\n  b: 1\n  b: 2\n", "a: [b\n]\n", "a: b: c\n", "a:\tb\n", "a: 1\r\nb: 2\r\n",
    "%YAML 1.1\n---\na: 1\n", "a: 1\n...\n", "--- a\n", "--- |\n  x\n", "a: \"\\0\"\n",
    "a: \"\\e\"\n", "a: \"\\t\"\n", "a: \"x\\\n  y\"\n", "\ufeffa: 1\n", "a: \"x\u2028y\"\n",
    "? a\n: b\n", "a: @x\n", "a: `x`\n", "- - - - x\n", "[[[[[]]]]]\n", "a: 1\n---\n---\n",
    "---\n---\n", "", "# only\n", "\n\n", "hello\n", "- a\n- b\n", "  a: 1\n  b: 2\n",
])
def test_cases_read_the_same(text):
    compare(text)


def test_depth_limit_reads_the_same():
    limits = Limits(max_depth=5)
    for text in ["a:\n  b:\n    c:\n      d:\n        e:\n          f: 1\n",
                 "a: [[[[[1]]]]]\n", "a: [[[[1]]]]\n", "a: {b: {c: {d: {e: {}}}}}\n",
                 "- - - - - - x\n", "a:\n  b:\n    c:\n      d:\n        e: 1\n"]:
        compare(text, limits=limits)
    deep = "".join(" " * (2 * i) + f"k{i}:\n" for i in range(40)) + " " * 80 + "v: 1\n"
    # the fast reader measures it (rapidyaml's layout says it may be deep), then not
    assert compare(deep, limits=Limits(max_depth=30))
    assert compare(deep, limits=Limits(max_depth=50))
    deeper = "".join(" " * (2 * i) + f"k{i}:\n" for i in range(120)) + " " * 240 + "v: 1\n"
    assert not compare(deeper)  # rapidyaml writes no JSON deeper than 64 levels: libyaml reads it


def test_values_of_the_benchmark_shapes_take_the_fast_reader():
    from benchmarks import scenarios
    texts = [scenarios.node_doc(1), scenarios.node_slice_doc(1, 4), scenarios.device_class_doc(),
             scenarios.claim_template_doc("init"), scenarios.pod_doc(3, "test"),
             scenarios.deployment_doc("test", 3), scenarios.allocated_claim_doc(1, "n", "d")]
    assert compare("---\n".join(texts))


# ---- files ----------------------------------------------------------------------------------------
def _yaml_files(root: Path):
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()
                  and ".venv" not in p.parts and "out" not in p.parts)


def _compare_files(files, locate_every: int = 1) -> tuple[int, int]:
    """Documents and findings of every file; the located positions of every field of every
    `locate_every`-th file (they follow from the document starts, compared for all)."""
    taken = 0
    for i, path in enumerate(files):
        data = path.read_bytes()
        taken += compare(data, name=str(path), locate=len(data) < 200_000 and i % locate_every == 0)
    return taken, len(files)


def test_repository_files_read_the_same():
    files = [p for sub in ("examples", "testdata", "tests", "dractl/inventories")
             for p in _yaml_files(REPO / sub)]
    taken, total = _compare_files(files, locate_every=7)
    assert total > 500 and taken > total // 2, (taken, total)


def test_realworld_files_read_the_same():
    taken, total = _compare_files(_yaml_files(require_realworld()))
    assert total > 100 and taken > total // 3, (taken, total)


def test_without_rapidyaml_libyaml_reads_everything(tmp_path):
    """rapidyaml failing to import is not an error: every file takes the libyaml path."""
    manifest = tmp_path / "m.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n")
    code = ("import sys; sys.modules['ryml'] = None\n"
            "from dractl.load import fastread, parse\n"
            "fastread.IMPORT_AFTER_BYTES = 0\n"
            "assert not fastread.available()\n"
            f"r = parse.parse_source('m.yaml', open({str(manifest)!r}, 'rb').read())\n"
            "print(r.documents[0].data['metadata'], r.findings)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "{'name': 'p'} []"


def test_a_small_run_does_not_import_rapidyaml(tmp_path):
    """One small file: rapidyaml is not imported (start-up); past 64 KiB of text it is."""
    small = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
    code = ("import sys\nfrom dractl.load import parse\n"
            f"parse.parse_source('a.yaml', {small.encode()!r})\n"
            "print('ryml' in sys.modules)\n"
            f"parse.parse_source('b.yaml', {(small * 2000).encode()!r})\n"
            "print('ryml' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.split() == ["False", "True"], out.stderr


def test_rapidyaml_errors_print_nothing(capfd):
    assert compare("a: b: c\n") is False
    assert capfd.readouterr().err == ""


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_texts())
def test_a_file_read_in_parts_reads_the_same(text):
    """Big files are parsed a part at a time, cut at `---` lines: cut at every one of them."""
    saved, fastread.PART_BYTES = fastread.PART_BYTES, 1
    try:
        compare(text)
    finally:
        fastread.PART_BYTES = saved


def test_parts_of_a_big_file_take_the_fast_reader(monkeypatch):
    from benchmarks import scenarios
    monkeypatch.setattr(fastread, "PART_BYTES", 2000)
    text = "\n---\n".join(scenarios.pod_doc(i, "test") for i in range(200)) + "\n---\n"
    assert len(fastread._parts(text, fastread._markers(text))) > 10
    assert compare(text)
