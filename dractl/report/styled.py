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


# -- fitting lines to a terminal ----------------------------------------------------------------
#
# On a terminal, rich crops a tree label at the right edge and breaks long lines mid-word; a
# plan or a finding that loses its end ("Scheduled on dra-") is worse than no report. Lines are
# therefore broken here, at spaces, before rich sees them: every piece fits the width, and the
# continuation pieces are indented so they read as part of the line above. Output that does not
# go to a terminal is never broken (files, pipes and golden tests keep one line per item).

CONTINUATION = "    "
_MIN_TEXT_CELLS = 12  # below this, a deep tree line overflows rather than one word per line


def terminal_width(console) -> int | None:
    """The width to fit lines to, or None when the console does not write to a terminal."""
    stream = getattr(console, "file", None)
    try:
        on_terminal = stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):
        on_terminal = False
    return console.width if on_terminal else None


def _cells():
    from rich.cells import get_character_cell_size  # only on terminals, where rich is loaded

    return get_character_cell_size


def wrap(line: Styled, width: int, first: str = "", rest: str = CONTINUATION) -> list[Styled]:
    """`line` broken at spaces into lines of at most `width` cells: the first starts with
    `first`, the others with `rest` (unstyled prefixes). A word longer than a line is split.
    Nothing is dropped except the spaces at the breaks."""
    size = _cells()
    styles = [style for text, style in line.segments for _ in text]
    plain = line.plain
    out: list[list[tuple[int, int]]] = [[]]  # per line: (start, end) ranges of `plain`
    used = cells(first)
    limit = max(width, used + _MIN_TEXT_CELLS, cells(rest) + _MIN_TEXT_CELLS)
    pending: tuple[int, int] | None = None  # spaces kept only if the next word fits after them
    i, n = 0, len(plain)
    while i < n:
        j = i
        is_space = plain[i] == " "
        while j < n and (plain[j] == " ") == is_space:
            j += 1
        if is_space:
            if i == 0:  # the line's own indentation stays
                out[-1].append((0, j))
                used += j
            else:
                pending = (i, j)
            i = j
            continue
        word_cells = sum(size(c) for c in plain[i:j])
        gap = pending[1] - pending[0] if pending and out[-1] else 0
        if used + gap + word_cells > limit and out[-1]:
            fits_alone = cells(rest) + word_cells <= limit
            if fits_alone or used + gap + size(plain[i]) > limit:
                out.append([])
                used, gap = cells(rest), 0
        if gap:
            out[-1].append(pending)
            used += gap
        pending = None
        while i < j:  # the word, split wherever it meets the edge
            k, taken = i, 0
            while k < j and (used + taken + size(plain[k]) <= limit or (k == i and not out[-1])
                             or size(plain[k]) == 0):
                taken += size(plain[k])
                k += 1
            if k == i:  # nothing fits on this line: continue on the next
                out.append([])
                used = cells(rest)
                continue
            out[-1].append((i, k))
            used += taken
            i = k
            if i < j:
                out.append([])
                used = cells(rest)
    lines = []
    for index, ranges in enumerate(out):
        piece = Styled().append(first if index == 0 else rest)
        for start, end in ranges:
            _append_range(piece, plain, styles, start, end)
        lines.append(piece)
    return lines


def _append_range(into: Styled, plain: str, styles: list[str], start: int, end: int) -> None:
    k = start
    while k < end:
        style = styles[k]
        m = k
        while m < end and styles[m] == style:
            m += 1
        if into.segments and into.segments[-1][1] == style:  # one escape sequence per run
            into.segments[-1] = (into.segments[-1][0] + plain[k:m], style)
        else:
            into.append(plain[k:m], style)
        k = m


def cells(text: str) -> int:
    size = _cells()
    return sum(size(c) for c in text)


def fit(line: Styled, width: int | None, rest: str = CONTINUATION) -> list[Styled]:
    """The line as it should be printed: unchanged off a terminal or when it fits."""
    if width is None or cells(line.plain) <= width:
        return [line]
    return wrap(line, width, "", rest)


def tree_lines(tree: StyledTree, width: int) -> list[Styled]:
    """The tree drawn like StyledTree.lines, every label wrapped to fit `width`; a label's
    continuation lines keep the guides of the tree and are indented under the label."""
    out: list[Styled] = []
    _draw(tree, "", "", width, out)
    return out


def _draw(node: StyledTree, first: str, rest: str, width: int, out: list[Styled]) -> None:
    label = node.label if isinstance(node.label, Styled) else Styled().append(str(node.label))
    below = rest + ("│   " if node.children else "    ")
    for piece in wrap(label, width, first, below + "  "):
        out.append(_rstrip(piece))
    last = len(node.children) - 1
    for i, child in enumerate(node.children):
        guide, more = ("└── ", "    ") if i == last else ("├── ", "│   ")
        _draw(child, rest + guide, rest + more, width, out)


def _rstrip(line: Styled) -> Styled:
    segments = list(line.segments)
    while segments and not segments[-1][0].rstrip():
        segments.pop()
    if segments:
        text, style = segments[-1]
        segments[-1] = (text.rstrip(), style)
    out = Styled()
    out.segments = segments
    return out


def print_fitted(console, item: "Styled | StyledTree | str", rest: str = CONTINUATION) -> None:
    """Print a line or a tree, fitted to the terminal when the console writes to one."""
    width = terminal_width(console)
    if width is None:
        console.print(item, soft_wrap=True) if not isinstance(item, StyledTree) else console.print(item)
        return
    if isinstance(item, StyledTree):
        lines = tree_lines(item, width)
    else:
        lines = fit(item if isinstance(item, Styled) else Styled().append(item), width, rest)
    for line in lines:
        console.print(line, soft_wrap=True)
