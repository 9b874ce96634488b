"""Styled one-line text that does not need rich until it reaches a terminal.

`validate` runs in pre-commit hooks and CI on every commit, where output goes to a pipe and
carries no colour; importing rich for that costs more than the check of a small file. Lines are
built as `Styled` segments: a rich console renders them through `__rich__` (colour, on
terminals), `PlainConsole` writes their text exactly as rich's no-colour console would.
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


class PlainConsole:
    """The subset of rich's Console that line reports use, writing plain text to a buffer."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()

    def print(self, *objects, **_options) -> None:
        self.buffer.write(" ".join(o.plain if isinstance(o, Styled) else str(o) for o in objects))
        self.buffer.write("\n")

    def getvalue(self) -> str:
        return self.buffer.getvalue()
