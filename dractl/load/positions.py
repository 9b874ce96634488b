"""Source positions for field paths, computed only for documents that have findings.

Parsing with positions costs several times more than a plain load, so the loader keeps only the
file's text; the first lookup in a file composes it once into YAML nodes (which carry marks)
and later lookups walk those nodes.
"""

from __future__ import annotations

import yaml

from dractl.load.yamlsafe import NodeLoader


class PositionIndex:
    """Positions for one parsed text segment (a whole file, or the part after a syntax error)."""

    def __init__(self, text: str, line_offset: int = 0):
        self._text = text
        self._offset = line_offset
        self._docs: list | None = None

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
        docs = self._nodes()
        if doc_index >= len(docs):
            return None
        node = best = docs[doc_index]
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
        return mark.line + 1 + self._offset, mark.column + 1
