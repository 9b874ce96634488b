"""Styled one-line text and trees that do not need rich until they reach a terminal.

`validate` runs in pre-commit hooks and CI on every commit, where output goes to a pipe and
carries no colour; importing rich for that costs more than the check of a small file, and
rendering a 5,000-pod plan through rich's layout engine took longer than the dry run. Lines are
built as `Styled` segments and plans as `StyledTree`s: a rich console renders them through
`__rich__` (colour, on terminals), `PlainConsole` writes their text exactly as rich's no-colour
console would (tests/unit/test_report_styled.py compares the two).
"""

from __future__ import annotations

import io


class Styled:
    """A line of text in styled segments (rich style names)."""

    __slots__ = ("segments",)

    def __init__(self) -> None:
        self.segments: list[tuple[str, str]] = []

    def append(self, text: str, style: str = "") -> "Styled":
        self.segments.append((text, style))
        return self

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.segments)

    def __rich__(self):
        from rich.text import Text

        out = Text()
        for text, style in self.segments:
            out.append(text, style=style or None)
        return out


class StyledTree:
    """A tree of Styled labels, drawn with rich's default guides."""

    __slots__ = ("label", "children")

    def __init__(self, label: Styled | str) -> None:
        self.label = label
        self.children: list[StyledTree] = []

    def add(self, label: Styled | str) -> "StyledTree":
        child = StyledTree(label)
        self.children.append(child)
        return child

    def lines(self) -> list[str]:
        """The drawn lines; like rich, without whitespace at the end of a line."""
        label = self.label
        out = [(label.plain if isinstance(label, Styled) else str(label)).rstrip()]
        last = len(self.children) - 1
        for i, child in enumerate(self.children):
            first, rest = ("└── ", "    ") if i == last else ("├── ", "│   ")
            sub = child.lines()
            out.append((first + sub[0]).rstrip())
            out.extend((rest + line).rstrip() for line in sub[1:])
        return out

    def __rich__(self):
        from rich.tree import Tree

        def build(node: "StyledTree", into) -> None:
            for child in node.children:
                build(child, into.add(_rich(child.label)))

        tree = Tree(_rich(self.label))
        build(self, tree)
        return tree


def _rich(label):
    return label.__rich__() if isinstance(label, Styled) else label


class PlainConsole:
    """The subset of rich's Console that line reports use, writing plain text to a buffer."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()

    def print(self, *objects, **_options) -> None:
        parts = []
        for o in objects:
            if isinstance(o, StyledTree):
                parts.append("\n".join(o.lines()))
            else:
                parts.append(o.plain if isinstance(o, Styled) else str(o))
        self.buffer.write(" ".join(parts))
        self.buffer.write("\n")

    def getvalue(self) -> str:
        return self.buffer.getvalue()
