"""-o yaml: libyaml's emitter is taken only where it writes exactly what PyYAML's writes."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.report import plan_yaml

ascii_line = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=160)
tricky = st.sampled_from(["", " ", "x  ", "- x", "? x", ": x", "#x", "x #y", "x: y", "'", '"',
                          "\\", "yes", "null", "~", "1", "0x1", "1e3", "2024-01-01", "<<", "*a",
                          "&a", "!x", "%x", "@x", "`x", "|", ">", "{", "[", ",x"])
strings = ascii_line | tricky
documents = st.recursive(
    st.none() | st.booleans() | st.integers(-10**9, 10**9) | strings,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=4),
    max_leaves=30)


def dump(docs, dumper) -> str:
    return yaml.dump_all(docs, Dumper=dumper, sort_keys=False, default_flow_style=False,
                         explicit_start=True, allow_unicode=False, width=100)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.dictionaries(strings, documents, min_size=1, max_size=5), min_size=1,
                max_size=3))
def test_both_emitters_agree_where_the_fast_one_is_used(docs):
    chosen = plan_yaml._dumper_for(docs)
    assert dump(docs, chosen) == dump(docs, plan_yaml._Dumper)


def test_anything_else_keeps_pyyaml():
    for odd in ("multi\nline", "tab\there", "é", "\x1b[31m", "\u2028"):
        assert plan_yaml._dumper_for([{"a": [{"b": odd}]}]) is plan_yaml._Dumper
        assert plan_yaml._dumper_for([{odd: 1}]) is plan_yaml._Dumper
    assert plan_yaml._dumper_for([{"": 1}]) is plan_yaml._Dumper
    if plan_yaml._CDumper is not None:
        assert plan_yaml._dumper_for([{"kind": "Pod", "spec": [{"a": "b c"}]}]) is plan_yaml._CDumper


def test_yaml_aliases_of_the_input_are_printed_as_stored(tmp_path):
    """The API server stores JSON: a map used twice through a YAML alias is printed twice."""
    from dractl.api.versions import parse_feature_gates
    from dractl.load.loader import load_paths
    from dractl.simulate.scheduler import Options, simulate
    from dractl.validate.pipeline import validate_documents

    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\n"
                    "  labels: &l {app: x}\n  annotations: *l\nspec:\n"
                    "  containers: [{name: c, image: x}]\n---\napiVersion: v1\nkind: Node\n"
                    "metadata: {name: n}\nstatus: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n")
    gates = parse_feature_gates("", "1.37")
    validated = validate_documents(load_paths([str(path)]), gates)
    text = plan_yaml.render(simulate(validated.documents, gates, Options(), validated.invalid))
    assert "&id" not in text and "*id" not in text
    assert "  labels:\n    app: x\n  annotations:\n    app: x\n" in text
