"""Plain text output of `validate` (no rich) is byte for byte what rich's no-colour console
writes for the same lines, for any finding text (wide, combining, escaped control characters)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.cli import outputs
from dractl.findings import Finding
from dractl.report.findings_text import finding_line, print_findings, summary_line

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


def render_both(render) -> tuple[str, str]:
    return outputs.stable_text(render, plain=True), outputs.stable_text(render)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["error", "warning", "info"]), texts, texts, texts,
                          st.integers(0, 10**6)), max_size=5),
       st.integers(0, 10**4), st.booleans())
def test_plain_equals_rich(items, count, quiet):
    findings = [Finding(sev, "DRA0001", msg, ("spec", name), file=file or "f.yaml", line=line,
                        column=3, kind="Pod", name=name)
                for sev, msg, name, file, line in items]

    def render(console):
        print_findings(console, findings, quiet=quiet)
        console.print()
        console.print(summary_line(count, count + 1, count % 3, count % 2))

    plain, rich = render_both(render)
    assert plain == rich


def test_styles_reach_terminals():
    line = finding_line(Finding("error", "DRA0001", "bad", ("a",), file="f.yaml", line=1, column=2))
    text = line.__rich__()
    assert text.plain == line.plain and any(span.style for span in text.spans)


@st.composite
def trees(draw, depth=0):
    from dractl.report.sanitize import safe_line
    from dractl.report.styled import Styled, StyledTree

    def label():  # labels are always sanitized to one line, as plan_text does
        return Styled().append(safe_line(draw(texts)),
                               draw(st.sampled_from(["", "bold", "dim", "red"])))

    tree = StyledTree(label())
    if depth < 3:
        for _ in range(draw(st.integers(0, 3))):
            child = draw(trees(depth=depth + 1))
            tree.children.append(child)
    return tree


@settings(max_examples=300, deadline=None)
@given(st.lists(trees(), min_size=1, max_size=3))
def test_plain_trees_equal_rich_trees(forest):
    def render(console):
        for tree in forest:
            console.print(tree)
        console.print()

    plain, rich = render_both(render)
    assert plain == rich
