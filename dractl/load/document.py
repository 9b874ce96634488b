"""A parsed manifest plus what is needed to point at any of its fields in the source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dractl.load.positions import PositionIndex


@dataclass(eq=False)
class Document:
    data: dict[str, Any]
    file: str
    index: int                 # position of the document in its file (0-based), for messages
    line: int                  # 1-based line where the document (or List item) starts
    column: int
    # For List items: where the item sits inside the parsed document (("items", 3)).
    prefix: tuple = ()
    positions: "PositionIndex | None" = field(default=None, repr=False)

    @property
    def api_version(self) -> str:
        v = self.data.get("apiVersion")
        return v if isinstance(v, str) else ""

    @property
    def kind(self) -> str:
        v = self.data.get("kind")
        return v if isinstance(v, str) else ""

    @property
    def group(self) -> str:
        av = self.api_version
        return av.rpartition("/")[0] if "/" in av else ""

    @property
    def metadata(self) -> dict:
        m = self.data.get("metadata")
        return m if isinstance(m, dict) else {}

    @property
    def name(self) -> str:
        v = self.metadata.get("name")
        return v if isinstance(v, str) else ""

    @property
    def namespace(self) -> str:
        v = self.metadata.get("namespace")
        return v if isinstance(v, str) else ""

    def locate(self, path: tuple) -> tuple[int, int]:
        """(line, column), 1-based, of the field at `path`, or of its nearest existing parent."""
        if self.positions is None:
            return self.line, self.column
        found = self.positions.locate(self.index, self.prefix + tuple(path))
        return found if found else (self.line, self.column)

    def locate_many(self, paths: list[tuple]) -> list[tuple[int, int]]:
        """locate() for several paths at once (one pass over a big document)."""
        if self.positions is None:
            return [(self.line, self.column)] * len(paths)
        found = self.positions.locate_many(self.index, [self.prefix + tuple(p) for p in paths])
        return [f if f else (self.line, self.column) for f in found]

    def describe(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}".strip()
