"""Plain text output of `validate` (no rich) is byte for byte what rich's no-colour console
writes for the same lines, for any finding text (wide, combining, escaped control characters)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.cli import outputs
from dractl.report.findings_text import finding_line, print_findings, summary_line
from dractl.validate.findings import Finding

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
