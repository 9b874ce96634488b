"""Documents built straight from libyaml's events, for big files: no node tree in memory.

Composing a document first (ManifestLoader's path) keeps a Python node, with two source marks,
for every scalar, map and list until the document is built: about 45 times the size of the text
(a 55 MB claim with a million requests needed 5 GB). Built from the event stream, a document
costs its values and nothing else. parse.py uses this for files over STREAM_FROM_BYTES; the
values, the duplicate-key findings and the errors are the same as on the composed path
(tests/unit/test_yamlstream.py compares the two on the fuzz seeds).
"""

from __future__ import annotations

import yaml

from dractl.load.yamlsafe import (
    _MAP,
    _MERGE,
    _SEQ,
    _STR,
    DuplicateKey,
    ManifestLoader,
    _json_key,
)

STREAM_FROM_BYTES = 256 * 1024

_SCALAR, _ALIAS = yaml.ScalarEvent, yaml.AliasEvent
_MAP_START, _SEQ_START = yaml.MappingStartEvent, yaml.SequenceStartEvent
_MAP_END, _SEQ_END = yaml.MappingEndEvent, yaml.SequenceEndEvent
# Collection tags that go-yaml reads as the plain collection they are written as.
_AS_MAP = {None, "!", _MAP, "tag:yaml.org,2002:set"}
_AS_SEQ = {None, "!", _SEQ, "tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs"}
_SCALAR_TAGS = {_STR, "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null",
                "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:binary"}


class _Map:
    """A mapping being built: its value, where each key was first set, the pending key."""

    __slots__ = ("value", "first_line", "key", "key_mark")

    def __init__(self):
        self.value: dict = {}
        self.first_line: dict = {}
        self.key = None
        self.key_mark = None


def next_document(loader: ManifestLoader):
    """(value, start mark) of the next document, or None at the end of the stream.

    Raises yaml.YAMLError (with marks) like the composed path does."""
    while True:
        event = loader.get_event()
        if isinstance(event, yaml.StreamEndEvent):
            return None
        if isinstance(event, yaml.DocumentStartEvent):
            break
    loader.alias_uses = 0
    loader.deepest = 0
    loader.begin_document()
    anchors: dict = {}
    first = loader.peek_event()
    value = _build(loader, anchors)
    loader.get_event()  # DocumentEndEvent
    return value, first.start_mark


def _build(loader: ManifestLoader, anchors: dict):
    """One node's value, iteratively (a stack of open maps and lists)."""
    stack: list = []   # open containers: _Map or list
    while True:
        event = loader.get_event()
        cls = event.__class__
        if cls is _SCALAR:
            value = _scalar(loader, event)
            if event.anchor is not None:
                anchors[event.anchor] = value
        elif cls is _ALIAS:
            if event.anchor not in anchors:
                raise yaml.composer.ComposerError(None, None, "found undefined alias",
                                                  event.start_mark)
            value = anchors[event.anchor]
            if isinstance(value, (dict, list)):
                loader.alias_uses += 1
        elif cls is _MAP_START or cls is _SEQ_START:
            _check_collection_tag(event, cls is _MAP_START)
            container = _Map() if cls is _MAP_START else []
            if event.anchor is not None:
                anchors[event.anchor] = container.value if cls is _MAP_START else container
            stack.append(container)
            if len(stack) > loader.deepest:
                loader.deepest = len(stack)
            continue
        elif cls is _MAP_END:
            value = stack.pop().value
        elif cls is _SEQ_END:
            value = stack.pop()
        else:  # pragma: no cover - libyaml emits nothing else inside a document
            raise yaml.composer.ComposerError(None, None, f"unexpected {cls.__name__}",
                                              event.start_mark)
        if not stack:
            return value
        _add(loader, stack[-1], value, event)


def _scalar(loader: ManifestLoader, event):
    tag = event.tag
    if tag is None or tag == "!":
        tag = _STR if not event.implicit[0] or tag == "!" else loader.resolve(
            yaml.ScalarNode, event.value, event.implicit)
    if tag == _STR:
        return event.value
    if tag == _MERGE:
        # Merge keys are left to the composed path, which reports the overridden keys exactly
        # as kubectl's strict decoding does (sigs.k8s.io/yaml#46): the file is read again there.
        raise NeedsComposition()
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        return loader._scalar(node, tag)  # plain ints, bools, nulls decoded at once
    finally:
        # PyYAML keeps every node it constructed (for aliases, which _build resolves itself):
        # kept, the 6,000,000 numbers of one flow list held 2 GB of nodes and marks.
        loader.constructed_objects.pop(node, None)


class NeedsComposition(Exception):
    """The file uses a feature only the composed path reads (merge keys)."""


def _check_collection_tag(event, is_map: bool) -> None:
    tag = event.tag
    if tag in (_AS_MAP if is_map else _AS_SEQ):
        return
    kind = "mapping" if is_map else "sequence"
    if tag in _SCALAR_TAGS:
        problem = f"expected a scalar node, but found {kind}"
    elif tag in _AS_MAP or tag in _AS_SEQ:
        problem = f"expected a {'sequence' if is_map else 'mapping'} node, but found {kind}"
    else:
        problem = f"could not determine a constructor for the tag {tag!r}"
    raise yaml.constructor.ConstructorError(None, None, problem, event.start_mark)


def _add(loader: ManifestLoader, parent, value, event) -> None:
    if isinstance(parent, list):
        parent.append(value)
        return
    if parent.key is None:
        parent.key = loader.keys.setdefault(value, value) if isinstance(value, str) else _json_key(
            value if not isinstance(value, (dict, list)) else str(value))
        parent.key_mark = event.start_mark
        return
    key, mark = parent.key, parent.key_mark
    parent.key = None
    if key in parent.first_line:
        loader.note_duplicate(DuplicateKey(key, mark.line + 1, mark.column + 1,
                                           parent.first_line[key]))
    else:
        parent.first_line[key] = mark.line + 1
    parent.value[key] = value


def skip_document(loader: ManifestLoader) -> None:
    """After an error inside a document: read on to its end, so the next one can be read."""
    while True:
        event = loader.get_event()
        if isinstance(event, (yaml.DocumentEndEvent, yaml.StreamEndEvent)):
            return
