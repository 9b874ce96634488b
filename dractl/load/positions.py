"""Source positions for field paths, computed only for documents that have findings.

Parsing with positions costs several times more than a plain load, so the loader keeps only the
file's text and the line where each document starts; the first lookup in a document composes just
that document's lines into YAML nodes (which carry marks) and later lookups walk those nodes.
"""

from __future__ import annotations

import re

import yaml

from dractl.load.yamlsafe import NodeLoader

# YAML 1.1 line breaks, as libyaml counts lines for its marks.
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


class PositionIndex:
    """Positions for one parsed text segment (a whole file, or the part after a syntax error)."""

    def __init__(self, text: str, line_offset: int = 0):
        self._text = text
        self._offset = line_offset
        self._docs: list | None = None
        # 0-based line (within the segment) where each document's content starts, filled in by
        # the loader as it parses; lets a lookup compose one document instead of the whole file.
        self.doc_lines: list[int] = []
        self._lines: list[str] | None = None
        self._by_doc: dict[int, tuple] = {}

    def __getstate__(self) -> dict:
        # Pickled to worker processes (--jobs): ship the text and document starts, never the
        # composed YAML nodes, which are large and rebuilt on demand.
        return {"_text": self._text, "_offset": self._offset, "doc_lines": self.doc_lines,
                "_docs": None, "_lines": None, "_by_doc": {}}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def _doc_node(self, doc_index: int):
        """(node, line offset) of one document, composed from its own lines only."""
        cached = self._by_doc.get(doc_index)
        if cached is None:
            if self._lines is None:
                self._lines = _LINE_BREAK.split(self._text)
            start = self.doc_lines[doc_index]
            end = self.doc_lines[doc_index + 1] if doc_index + 1 < len(self.doc_lines) else None
            node = None
            try:
                loader = NodeLoader("\n".join(self._lines[start:end]))
                try:
                    if loader.check_node():
                        node = loader.get_node()
                finally:
                    loader.dispose()
            except (yaml.YAMLError, RecursionError, ValueError):
                node = None
            cached = self._by_doc[doc_index] = (node, start)
        return cached

    def _nodes(self) -> list:
        if self._docs is None:
            self._docs = []
            try:
                loader = NodeLoader(self._text)
                try:
                    while loader.check_node():
                        self._docs.append(loader.get_node())
                finally:
                    loader.dispose()
            except (yaml.YAMLError, RecursionError, ValueError):
                pass  # positions up to the error are kept
        return self._docs

    def locate(self, doc_index: int, path: tuple) -> tuple[int, int] | None:
        start = 0
        node = None
        if doc_index < len(self.doc_lines):
            node, start = self._doc_node(doc_index)
        if node is None:  # no recorded start, or the slice did not compose: whole segment
            docs = self._nodes()
            if doc_index >= len(docs):
                return None
            node, start = docs[doc_index], 0
        best = node
        for elem in path:
            nxt = None
            if isinstance(node, yaml.MappingNode) and isinstance(elem, str):
                for key_node, value_node in node.value:
                    if isinstance(key_node, yaml.ScalarNode) and key_node.value == elem:
                        best, nxt = key_node, value_node
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(elem, int) \
                    and not isinstance(elem, bool):
                if 0 <= elem < len(node.value):
                    nxt = best = node.value[elem]
            if nxt is None:
                break
            node = nxt
        mark = best.start_mark
        return mark.line + 1 + self._offset + start, mark.column + 1
