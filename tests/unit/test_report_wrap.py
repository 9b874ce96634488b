"""Lines fitted to a terminal width (report/styled.py): nothing but the spaces at the breaks is
lost, every line fits (unless a prefix alone leaves too little room), styles stay on their text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.report.styled import Styled, StyledTree, cells, tree_lines, wrap

words = st.text(alphabet=st.sampled_from("ab-/=x界é\u0301"), min_size=1, max_size=30)
spaces = st.sampled_from([" ", "  "])


@st.composite
def styled_lines(draw):
    line = Styled()
    for _ in range(draw(st.integers(1, 12))):
        line.append(draw(words) + draw(spaces), draw(st.sampled_from(["", "bold", "red"])))
    return line


@settings(max_examples=300, deadline=None)
@given(styled_lines(), st.integers(20, 120))
def test_wrap_keeps_every_character_and_fits(line, width):
    out = wrap(line, width, "", "    ")
    assert "".join(piece.plain for piece in out).replace(" ", "") == line.plain.replace(" ", "")
    assert all(cells(piece.plain) <= width for piece in out)
    assert all(piece.plain.startswith("    ") for piece in out[1:])


def test_styles_follow_their_text():
    line = Styled().append("alpha beta ", "bold").append("gamma delta", "red")
    out = wrap(line, 14, "", "  ")
    assert [piece.segments for piece in out] == [
        [("", ""), ("alpha beta", "bold")], [("  ", ""), ("gamma delta", "red")]]


def test_a_word_longer_than_the_line_is_split_not_dropped():
    out = wrap(Styled().append("x" * 50), 20, "", "    ")
    assert [piece.plain for piece in out] == ["x" * 20, "    " + "x" * 16, "    " + "x" * 14]


def test_tree_lines_equal_plain_lines_when_everything_fits():
    tree = StyledTree(Styled().append("pod a"))
    tree.add("claim b").add("request c: d")
    tree.add("env e = f")
    assert [line.plain for line in tree_lines(tree, 80)] == tree.lines()


def test_tree_continuations_keep_the_guides():
    tree = StyledTree("root")
    tree.add("first child with a label that is much too long").add("grandchild")
    tree.add("last")
    assert [line.plain for line in tree_lines(tree, 30)] == [
        "root",
        "├── first child with a label",
        "│   │     that is much too",
        "│   │     long",
        "│   └── grandchild",
        "└── last",
    ]
