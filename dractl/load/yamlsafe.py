"""YAML loading that behaves like Kubernetes' YAML-to-JSON decoding, on libyaml's C parser.

Why PyYAML's C loader: it parses ~4x faster than ruamel.yaml's C loader on many small documents
(measured: 10,000 ResourceClaims, 1.1 s vs 4.8 s), and load speed dominates `validate` on big trees.

Kubernetes decodes YAML 1.1 (go-yaml) into JSON: timestamps stay strings, map keys become
strings, and a repeated key is an error. The constructor here does the same.
"""

from __future__ import annotations

import yaml

try:  # libyaml; fall back to the pure-Python parser where the wheel has no C extension
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on the platform's PyYAML build
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

C_ACCELERATED = _BaseLoader.__name__.startswith("C")


class _AnyCharacter:
    def __contains__(self, _item) -> bool:
        return True


class DuplicateKey(Exception):
    def __init__(self, key: str, line: int, column: int, first_line: int):
        super().__init__(key)
        self.key, self.line, self.column, self.first_line = key, line, column, first_line


_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"
_ScalarNode, _MappingNode = yaml.ScalarNode, yaml.MappingNode


class ManifestLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader: JSON-compatible values only, duplicate keys recorded, aliases counted.

    libyaml composes the nodes; the values are built by `construct_document` below rather than
    PyYAML's generic constructor, which costs about 2 µs per node (generators, a memo entry per
    scalar, a constructor lookup per node): plain strings, maps and sequences -- nearly every
    node of a manifest -- take a short path, anything else (other tags, merge keys) PyYAML's.
    """

    def __init__(self, stream):
        super().__init__(stream)
        self.duplicates: list[DuplicateKey] = []
        self.alias_uses = 0       # container nodes reached again through an alias
        self.deepest = 0          # nesting depth of the last document built
        self._built: dict = {}    # container node -> its value, for aliases (per document)
        # An alias is written `*name`: in a text without "*" (nearly every manifest) no node is
        # reached twice, and the bookkeeping in _built -- two dict operations per map and list
        # -- is skipped.
        self._aliases = not isinstance(stream, str) or "*" in stream
        self._plain_tags: dict[str, str] = {}
        # Field names repeat in every object ("name", "deviceClassName", ...): one string each
        # for the whole file, not one per occurrence (a fifth of a big document's memory).
        self.keys: dict[str, str] = {}
        # The composer reports every step down and up the tree to the path resolvers, which
        # manifests never use: builtins that take the same arguments and do nothing.
        self.descend_resolver = slice   # (parent, index) -> ignored
        self.ascend_resolver = tuple    # () -> ignored

    # -- tag resolution: libyaml's composer asks for every untagged node --------------------
    def resolve(self, kind, value, implicit):
        if kind is _ScalarNode:
            if not implicit[0]:
                return _STR  # quoted: always a string
            # Plain scalars repeat (names, quantities, "true"): resolve each distinct text once.
            tag = self._plain_tags.get(value)
            if tag is None:
                if value and value[0] not in _RESOLVED_FIRST:
                    tag = _STR  # no implicit resolver starts with this character
                else:
                    tag = super().resolve(kind, value, implicit)
                self._plain_tags[value] = tag
            return tag
        return _MAP if kind is _MappingNode else _SEQ

    # -- construction ----------------------------------------------------------------------
    def construct_document(self, node):
        self.alias_uses = 0
        self.deepest = 0
        try:
            return self._value(node, 1)
        finally:
            self._built.clear()
            self.constructed_objects.clear()
            self.recursive_objects.clear()

    def _value(self, node, depth: int):
        tag = node.tag
        if node.__class__ is _ScalarNode:
            return node.value if tag == _STR else self._scalar(node, tag)
        if self._aliases:
            built = self._built.get(node)
            if built is not None:
                self.alias_uses += 1
                return built
        if depth > self.deepest:
            self.deepest = depth
        if tag == _MAP:
            return self._mapping(node, depth)
        if tag == _SEQ:
            items: list = []
            if self._aliases:
                self._built[node] = items
            append = items.append
            for child in node.value:
                append(child.value if child.__class__ is _ScalarNode and child.tag == _STR
                       else self._value(child, depth + 1))
            return items
        value = self.construct_object(node, deep=True)  # another tag: PyYAML decides
        self._built[node] = value
        return value

    def _mapping(self, node, depth: int) -> dict:
        mapping: dict = {}
        if self._aliases:
            self._built[node] = mapping
        reported = len(self.duplicates)
        intern = self.keys.setdefault
        for key_node, value_node in node.value:
            if key_node.__class__ is _ScalarNode and key_node.tag == _STR:
                key = intern(key_node.value, key_node.value)
            elif key_node.tag == _MERGE:  # `<<: *base`: PyYAML's merge, with our duplicate checks
                del self.duplicates[reported:]  # the mapping is read again from the start
                mapping = self.construct_object(node, deep=True)
                self._built[node] = mapping
                return mapping
            else:
                key = self._value(key_node, depth + 1)
                if not isinstance(key, str):
                    key = _json_key(key)
            if key in mapping:
                self._duplicate(node, key, key_node)
            mapping[key] = (value_node.value
                            if value_node.__class__ is _ScalarNode and value_node.tag == _STR
                            else self._value(value_node, depth + 1))
        return mapping

    def _scalar(self, node, tag: str):
        """A scalar that is not a string (an int, a bool, null, ...). The ones whose tag was
        resolved from their plain text, as nearly all are, are decoded here directly; PyYAML's
        construct_object (a memo, a recursion guard, a constructor lookup) takes the rest."""
        if node.style == "" and self._plain_tags.get(node.value) == tag:
            decode = _PLAIN_DECODERS.get(tag)
            if decode is not None and node not in self.constructed_objects:
                value = decode(self, node)
                self.constructed_objects[node] = value  # as construct_object: aliases count
                return value
        return self.construct_object(node)

    def _duplicate(self, node, key: str, key_node) -> None:
        # Rare: find where the key was first set (`on` and `yes` are both the key "true").
        first = next(k for k, _ in node.value if self._key_text(k) == key)
        self.duplicates.append(DuplicateKey(
            key, key_node.start_mark.line + 1, key_node.start_mark.column + 1,
            first.start_mark.line + 1))

    def _key_text(self, key_node) -> str:
        if key_node.tag == _STR and key_node.__class__ is _ScalarNode:
            return key_node.value
        key = self.construct_object(key_node, deep=True)
        return key if isinstance(key, str) else _json_key(key)

    # PyYAML's path, for the nodes the short path hands over.
    def construct_object(self, node, deep=False):
        if node in self.constructed_objects:
            self.alias_uses += 1
        return super().construct_object(node, deep)

    def construct_mapping(self, node, deep=False):
        if not isinstance(node, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a mapping node, but found {node.id}", node.start_mark)
        self.flatten_mapping(node)  # YAML merge keys (<<), which go-yaml also honours
        mapping: dict = {}
        first_seen: dict = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, str):
                key = _json_key(key)
            if key in mapping:
                self.duplicates.append(DuplicateKey(
                    key, key_node.start_mark.line + 1, key_node.start_mark.column + 1,
                    first_seen[key]))
            else:
                first_seen[key] = key_node.start_mark.line + 1
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


# The first characters for which PyYAML has implicit resolvers (digits, signs, the letters of
# true/null/yes/...): a plain scalar starting with any other character is a string, as PyYAML's
# resolve finds after trying no expression, here without the call (names, "gpu", "bench", ...:
# a third of the distinct plain scalars of a manifest). Resolvers for any first character
# (None) would make every scalar need the full resolution.
_RESOLVED_FIRST = (frozenset(ManifestLoader.yaml_implicit_resolvers)
                   if None not in ManifestLoader.yaml_implicit_resolvers else _AnyCharacter())


def _json_key(key) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)


def _construct_str(loader, node):
    return loader.construct_scalar(node)


_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"


def _short(tag: str) -> str:
    return "!!" + tag.rpartition(":")[2]


def _checked_scalar(loader, node):
    """A scalar with an explicit !!int/!!float/!!bool/!!null tag, decoded like go-yaml does:
    the text must resolve to that type by itself (`!!float 'x'`, `!!bool ''`, `!!int ''` are
    "cannot decode !!str `x` as a !!float"), except that an integer may be tagged !!float."""
    text = loader.construct_scalar(node)
    explicit = node.tag
    implicit = loader._plain_tags.get(text)  # plain scalars: resolved (and cached) already
    if implicit is None:
        implicit = loader._plain_tags[text] = _BaseLoader.resolve(loader, _ScalarNode, text,
                                                                  (True, False))
    if implicit != explicit and not (explicit == _FLOAT and implicit == _INT):
        raise yaml.constructor.ConstructorError(
            None, None, f"cannot decode {_short(implicit)} `{text[:80]}` as a {_short(explicit)}",
            node.start_mark)
    if explicit == _INT:
        return _construct_int(loader, node)
    if explicit == _FLOAT:
        value = float(_construct_int(loader, node)) if implicit == _INT \
            else yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
        if value != value or value in (float("inf"), float("-inf")):
            # YAML has .nan and .inf, JSON has neither: kubectl's YAML-to-JSON step fails
            # ("json: unsupported value: NaN"), so the document never reaches the API server.
            raise yaml.constructor.ConstructorError(
                None, None, f"{text} cannot be represented in JSON (json: unsupported value: "
                f"{'NaN' if value != value else '+Inf' if value > 0 else '-Inf'})",
                node.start_mark)
        return value
    if explicit == _BOOL:
        return yaml.constructor.SafeConstructor.construct_yaml_bool(loader, node)
    return None


def _construct_int(loader, node):
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
    except ValueError:  # over Python's limit for int(str) (4300 digits): a finding, not a crash
        raise yaml.constructor.ConstructorError(
            None, None, f"integer is too large ({len(node.value)} characters)",
            node.start_mark) from None


def _construct_as_mapping(loader, node):
    """`!!set {a, b}`: go-yaml decodes it as the mapping it is (keys with null values)."""
    if not isinstance(node, yaml.MappingNode):
        raise yaml.constructor.ConstructorError(
            None, None, f"expected a mapping node, but found {node.id}", node.start_mark)
    return loader.construct_mapping(node, deep=True)


def _construct_as_sequence(loader, node):
    """`!!omap` / `!!pairs`: go-yaml decodes them as the plain sequence they are written as
    (PyYAML would build tuples, which no JSON document holds)."""
    if not isinstance(node, yaml.SequenceNode):
        raise yaml.constructor.ConstructorError(
            None, None, f"expected a sequence node, but found {node.id}", node.start_mark)
    return [loader.construct_object(child, deep=True) for child in node.value]


# Decoders of plain scalars whose tag was resolved from their own text (ManifestLoader._scalar):
# what _checked_scalar does for them once it has found the text resolves to the tag.
_PLAIN_DECODERS = {
    _INT: _construct_int,
    _FLOAT: _checked_scalar,  # (NaN and infinities are refused there)
    _BOOL: yaml.constructor.SafeConstructor.construct_yaml_bool,
    _NULL: lambda _loader, _node: None,
}

# Timestamps stay strings (as in Kubernetes' YAML->JSON conversion).
ManifestLoader.add_constructor(_INT, _checked_scalar)
ManifestLoader.add_constructor(_FLOAT, _checked_scalar)
ManifestLoader.add_constructor(_BOOL, _checked_scalar)
ManifestLoader.add_constructor(_NULL, _checked_scalar)
ManifestLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_str)
ManifestLoader.add_constructor("tag:yaml.org,2002:binary", _construct_str)
ManifestLoader.add_constructor("tag:yaml.org,2002:set", _construct_as_mapping)
ManifestLoader.add_constructor("tag:yaml.org,2002:omap", _construct_as_sequence)
ManifestLoader.add_constructor("tag:yaml.org,2002:pairs", _construct_as_sequence)


class NodeLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Composes nodes only (for source positions, which compare the text of keys and never
    read a tag): implicit tags are not resolved -- PyYAML's resolve tries regular expressions on
    every plain scalar -- and the path resolvers, which manifests never use, are not told of
    every step down and up the tree. The same nodes, marks and errors otherwise."""

    def __init__(self, stream):
        super().__init__(stream)
        self.descend_resolver = slice   # (parent, index) -> ignored
        self.ascend_resolver = tuple    # () -> ignored

    def resolve(self, kind, value, implicit):
        return _MAP if kind is _MappingNode else _SEQ if kind is yaml.SequenceNode else _STR


def plain_tag(text: str) -> str:
    """The tag the YAML 1.1 resolver gives a plain scalar of this text, as ManifestLoader's
    resolve does (fastread.py asks it of the strings rapidyaml writes)."""
    if text and text[0] not in _RESOLVED_FIRST:
        return _STR
    return yaml.resolver.Resolver.resolve(ManifestLoader, _ScalarNode, text, (True, False))
