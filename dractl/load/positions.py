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


def split_lines(text: str) -> list[str]:
    """text split at YAML line breaks; str.split when "\n" is the only one (nearly always:
    the same list, ~20 times faster than the regular expression)."""
    if "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        return _LINE_BREAK.split(text)
    return text.split("\n")


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
            start = self.doc_lines[doc_index]
            node = None
            try:
                loader = NodeLoader(self._doc_text(doc_index))
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

    def locate_many(self, doc_index: int, paths: list[tuple]) -> list[tuple[int, int] | None]:
        """locate() for several paths of one document. A big document is not composed into
        nodes (about 45 times its text in memory): one pass over its parse events finds every
        path, in memory proportional to its nesting depth."""
        if doc_index < len(self.doc_lines) and doc_index not in self._by_doc:
            text = self._doc_text(doc_index)
            if len(text) > STREAM_LOCATE_BYTES:
                start = self.doc_lines[doc_index]
                found = locate_in_events(text, paths)
                if found is not None:  # None: a path goes through an alias (rare): compose
                    return [(line + 1 + self._offset + start, column + 1) if line is not None
                            else None for line, column in found]
        return [self.locate(doc_index, path) for path in paths]

    def _doc_text(self, doc_index: int) -> str:
        if doc_index == 0 and len(self.doc_lines) == 1 and self.doc_lines[0] == 0:
            return self._text  # the whole segment: no copy (libyaml counts lines the same)
        if self._lines is None:
            self._lines = split_lines(self._text)
        start = self.doc_lines[doc_index]
        end = self.doc_lines[doc_index + 1] if doc_index + 1 < len(self.doc_lines) else None
        return "\n".join(self._lines[start:end])

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


# Documents larger than this are located from their parse events, never composed.
STREAM_LOCATE_BYTES = 1024 * 1024


def locate_in_events(text: str, paths: list[tuple]) -> list[tuple] | None:
    """(line, column), 0-based, of each path in the first document of `text`, with locate()'s
    rules: a map entry is found at its key, a list item at the item, and a path that does not
    exist at its deepest existing parent; (None, None) when the text does not parse. None when
    a path goes on through an alias: the composed node tree follows it to its anchor."""
    wanted = {()}
    for path in paths:
        for i in range(1, len(path) + 1):
            wanted.add(_norm(path[:i]))
    marks: dict[tuple, tuple[int, int]] = {}
    try:
        if not _walk_events(NodeLoader(text), wanted, marks):
            return None
    except (yaml.YAMLError, ValueError):
        pass  # the marks found before the error stand
    out = []
    for path in paths:
        path = _norm(path)
        best = marks.get(())
        for i in range(1, len(path) + 1):
            found = marks.get(path[:i])
            if found is None:
                break
            best = found
        out.append(best if best is not None else (None, None))
    return out


def _norm(path: tuple) -> tuple:
    return tuple(e if isinstance(e, int) and not isinstance(e, bool) else str(e) for e in path)


def _walk_events(loader, wanted: set, marks: dict) -> bool:
    """Record the marks of the wanted paths; subtrees no path goes into are skipped. False when
    a wanted path goes through an alias."""
    starts = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    try:
        while not loader.check_event(yaml.DocumentStartEvent, yaml.StreamEndEvent):
            loader.get_event()
        if loader.check_event(yaml.StreamEndEvent):
            return True
        loader.get_event()
        # frames: [path, is_map, next index or pending key, expecting a key]
        stack: list[list] = []
        while True:
            event = loader.get_event()
            if isinstance(event, ends):
                stack.pop()
                if not stack:
                    return True
                continue
            if isinstance(event, yaml.DocumentEndEvent):
                return True
            if not stack:
                path = ()
            else:
                frame = stack[-1]
                if frame[1] and frame[3]:  # a key of a mapping
                    frame[3] = False
                    key = event.value if isinstance(event, yaml.ScalarEvent) else None
                    frame[2] = key
                    if key is not None and frame[0] + (key,) in wanted:
                        marks[frame[0] + (key,)] = (event.start_mark.line, event.start_mark.column)
                    if isinstance(event, starts):
                        _skip(loader)
                    continue
                if frame[1]:
                    frame[3] = True
                    path = frame[0] + (frame[2],) if frame[2] is not None else None
                else:
                    path = frame[0] + (frame[2],)
                    frame[2] += 1
                    if path in wanted:
                        marks[path] = (event.start_mark.line, event.start_mark.column)
            if path == ():
                marks[()] = (event.start_mark.line, event.start_mark.column)
            if isinstance(event, yaml.AliasEvent) and path is not None and \
                    any(len(w) > len(path) and w[:len(path)] == path for w in wanted):
                return False
            if isinstance(event, starts):
                if path is None or path not in wanted:
                    _skip(loader)
                    continue
                stack.append([path, isinstance(event, yaml.MappingStartEvent),
                              None if isinstance(event, yaml.MappingStartEvent) else 0, True])
            elif not stack:
                return True
    finally:
        loader.dispose()


def _skip(loader) -> None:
    """Read past the collection just started."""
    depth = 1
    while depth:
        event = loader.get_event()
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
