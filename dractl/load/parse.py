"""Bytes of one source -> Documents and loader findings. Never raises on user input."""

from __future__ import annotations

import codecs
import json
import re
import sys
from dataclasses import dataclass, field

import yaml

from dractl.findings import ERROR, WARNING, Finding, register
from dractl.load import fastread
from dractl.load.document import Document
from dractl.load.jsontext import (
    NonFiniteNumber,
    escaped,
    non_finite_position,
    refuse_constant,
    replace_lone_surrogates,
)
from dractl.load.limits import DEFAULT_LIMITS, Limits
from dractl.load.positions import PositionIndex, split_lines
from dractl.load.yamlsafe import ManifestLoader
from dractl.load.yamlstream import STREAM_FROM_BYTES, NeedsComposition, next_document, skip_document

C_SYNTAX = register("DRA0001", ERROR, "YAML or JSON syntax error", "loader")
C_NOT_MAPPING = register("DRA0002", ERROR, "a document is not a mapping (object)", "loader")
C_NO_TYPE = register("DRA0003", ERROR, "a document has no apiVersion or kind", "loader")
C_UNKNOWN_KIND = register("DRA0004", ERROR, "a kind the Kubernetes release does not serve in a DRA "
                          "API group, or a near miss of a kind dractl reads (no matches for kind)",
                          "loader")
C_DUPLICATE = register("DRA0005", ERROR, "a mapping repeats a key", "loader")
C_ENCODING = register("DRA0006", ERROR, "the file is not valid UTF-8 (or UTF-16/32 with a BOM)",
                      "loader")
C_EMPTY = register("DRA0007", WARNING, "the file holds no documents", "loader")
C_BINARY = register("DRA0008", ERROR, "the file is binary, not YAML or JSON", "loader")
C_TOO_LARGE = register("DRA0009", ERROR, "the file is over the size limit (--max-file-size)", "loader")
C_ALIASES = register("DRA0010", ERROR, "YAML aliases expand to an excessive size (alias bomb)",
                     "loader")
C_DEPTH = register("DRA0011", ERROR, "the document nests deeper than the limit", "loader")
C_IO = register("DRA0012", ERROR, "a path cannot be read", "loader")
C_SKIPPED = register("DRA0013", WARNING, "a path is not a regular file or directory, or a symlink "
                     "loop; skipped", "loader")
C_LIST_ITEM = register("DRA0014", ERROR, "an item of a List is not a mapping", "loader")
C_SURROGATE = register("DRA0016", WARNING, "a JSON string holds a lone UTF-16 surrogate escape "
                       "(read as U+FFFD, like the API server)", "loader")

_DOC_START = re.compile(r"^---(?:[ \t].*)?$", re.M)


@dataclass
class ParsedSource:
    name: str
    documents: list[Document] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    raw_documents: int = 0  # documents read, including ones that were skipped or broken


def parse_source(name: str, data: bytes, limits: Limits = DEFAULT_LIMITS) -> ParsedSource:
    out = ParsedSource(name)

    def problem(code, severity, message, line=0, column=0):
        out.findings.append(Finding(severity, code, message, file=name, line=line, column=column))

    text = _decode(data, name, problem)
    if text is None:
        return out
    if not text.strip():
        problem(C_EMPTY, WARNING, "file holds no documents")
        return out
    if name.endswith(".json") or text.lstrip()[:1] in ("{", "["):
        if _parse_json(text, out, limits):
            return out
        # Not JSON after all (e.g. a YAML flow mapping spread over documents): read it as YAML.
        out.findings.clear()
    # The fast reader first: it parses any depth without recursing, and the depth pre-check
    # (a scan of every line) is needed only on the libyaml path.
    if not (_all_printable(text) and _read_fast(text, out, limits)):
        _parse_yaml(text, out, limits, _too_deep(text, limits))
    if out.raw_documents == 0 and not out.findings:
        problem(C_EMPTY, WARNING, "file holds no documents")
    return out


def _decode(data: bytes, name: str, problem) -> str | None:
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                       (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec)
            except UnicodeDecodeError as exc:
                problem(C_ENCODING, ERROR, f"not valid {codec.upper()}: {exc.reason}")
                return None
    if b"\x00" in data[:8192] or b"\x00" in data:
        problem(C_BINARY, ERROR, "file contains NUL bytes: binary, not YAML or JSON")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        problem(C_ENCODING, ERROR, f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset "
                f"{exc.start}", line, column)
        return None
    return text


def _too_deep(text: str, limits: Limits) -> bool:
    """Too deep to hand to the parser (cheap bound first, then the real scans)."""
    return _nesting_bound(text) > limits.max_depth * 20 and (
        _flow_depth(text) > limits.max_depth or _max_indent(text) > limits.max_depth * 20)


def _nesting_bound(text: str) -> int:
    """A cheap upper bound of the nesting depth: flow brackets plus the longest line."""
    longest = max(map(len, text.split("\n")), default=0)
    return text.count("[") + text.count("{") + longest


_FLOW_TOKENS = re.compile(r"""[\[\]{}]|"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|#[^\n]*""")


def _flow_depth(text: str) -> int:
    depth = deepest = 0
    for m in _FLOW_TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(0, depth - 1)
    return deepest


def _max_indent(text: str) -> int:
    return max((len(line) - len(line.lstrip(" -")) for line in text.split("\n")), default=0)


def _check_shape(value, limits: Limits) -> str | None:
    """Walk a loaded document once: depth and alias-expanded size. Returns a problem or None."""
    sizes: dict[int, int] = {}
    # Iterative post-order walk; shared (aliased) containers are sized once and counted per use.
    stack: list[tuple[object, int, bool]] = [(value, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        if depth > limits.max_depth:
            return f"nesting is deeper than the limit of {limits.max_depth} levels"
        key = id(node)
        if done:
            children = node.values() if isinstance(node, dict) else node
            total = 1
            for child in children:
                total += sizes.get(id(child), 1) if isinstance(child, (dict, list)) else 1
            sizes[key] = total
            if total > limits.max_expanded_nodes:
                return (f"aliases expand the document to more than {limits.max_expanded_nodes} "
                        "nodes (excessive aliasing)")
            continue
        if key in sizes:
            continue
        stack.append((node, depth, True))
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, (dict, list)) and id(child) not in sizes:
                stack.append((child, depth + 1, False))
    return None


def _add_document(out: ParsedSource, value, positions: PositionIndex, index: int,
                  line: int, column: int, limits: Limits, check_shape: bool) -> None:
    out.raw_documents += 1
    name = out.name
    if value is None:
        out.raw_documents -= 1  # an empty document between separators is not a document
        return
    if check_shape:
        shape = _check_shape(value, limits) if isinstance(value, (dict, list)) else None
        if shape:
            code = C_ALIASES if "alias" in shape else C_DEPTH
            out.findings.append(Finding(ERROR, code, shape, file=name, line=line, column=column))
            return
    if not isinstance(value, dict):
        out.findings.append(Finding(ERROR, C_NOT_MAPPING,
                                    f"document is a {_type_name(value)}, not a mapping",
                                    file=name, line=line, column=column))
        return
    doc = Document(value, name, index, line, column, (), positions)
    kind = value.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(value.get("items"), list):
        _add_list_items(out, doc, limits)
        return
    out.documents.append(doc)


def _add_list_items(out: ParsedSource, list_doc: Document, limits: Limits) -> None:
    kind = list_doc.kind
    api_version = list_doc.api_version
    item_kind = kind[:-4] if kind != "List" else ""
    for i, item in enumerate(list_doc.data["items"]):
        line, column = list_doc.locate(("items", i)) if not isinstance(item, dict) else (0, 0)
        if not isinstance(item, dict):
            out.findings.append(Finding(ERROR, C_LIST_ITEM, f"item is a {_type_name(item)}, not a "
                                        "mapping", ("items", i), out.name, line, column,
                                        api_version, kind))
            continue
        if item_kind:  # typed lists from the API omit the items' apiVersion/kind
            item.setdefault("kind", item_kind)
            item.setdefault("apiVersion", api_version)
        doc = Document(item, out.name, list_doc.index, list_doc.line, list_doc.column,
                       ("items", i), list_doc.positions)
        out.documents.append(doc)


def _type_name(value) -> str:
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


# ---- JSON -------------------------------------------------------------------------------------
class _JsonDuplicate(Exception):
    pass


# The JSON decoder recurses in C: under this recursion limit, absurd nesting is a RecursionError
# (a finding), never a C stack overflow, even after the allocator raised the limit for itself.
_JSON_RECURSION_LIMIT = 2000


def _parse_json(text: str, out: ParsedSource, limits: Limits) -> bool:
    duplicates: list[str] = []

    def pairs(items):
        obj = {}
        for k, v in items:
            if k in obj:
                duplicates.append(k)
            obj[k] = v
        return obj

    recursion_limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(min(recursion_limit, _JSON_RECURSION_LIMIT))
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=refuse_constant)
    except NonFiniteNumber:
        if out.name.endswith(".json"):
            line, column, token = non_finite_position(text)
            out.findings.append(Finding(ERROR, C_SYNTAX, f"invalid JSON: {token} is not a JSON "
                                        "number", file=out.name, line=line, column=column))
            out.raw_documents += 1
            return True
        return False
    except RecursionError:
        out.findings.append(Finding(ERROR, C_DEPTH, "nesting is too deep to parse", file=out.name,
                                    line=1, column=1))
        out.raw_documents += 1
        return True
    except json.JSONDecodeError as exc:
        if out.name.endswith(".json"):
            out.findings.append(Finding(ERROR, C_SYNTAX, f"invalid JSON: {exc.msg}", file=out.name,
                                        line=exc.lineno, column=exc.colno))
            out.raw_documents += 1  # a broken document is still a document read
            return True
        return False
    except ValueError:  # an integer over Python's limit for int(str) (4300 digits)
        if out.name.endswith(".json"):
            out.findings.append(Finding(ERROR, C_SYNTAX, "invalid JSON: an integer is too large",
                                        file=out.name, line=1, column=1))
            out.raw_documents += 1
            return True
        return False  # the YAML reader reports it with its position
    finally:
        sys.setrecursionlimit(recursion_limit)
    positions = PositionIndex(text)
    value, lone = replace_lone_surrogates(value, text)
    for where in lone:
        out.findings.append(Finding(
            WARNING, C_SURROGATE, f"Invalid value: {escaped(where.value)}: holds a lone UTF-16 "
            "surrogate, which is not a Unicode character; the API server's JSON decoder reads it "
            "as U+FFFD (\\ufffd), and so does dractl", where.path, out.name, where.line,
            where.column))
    for key in duplicates:
        out.findings.append(Finding(ERROR, C_DUPLICATE, f'duplicate field "{key}"', file=out.name,
                                    line=1, column=1))
    if _deeper_than(value, limits.max_depth):  # JSON has no aliases: depth is all to check
        out.findings.append(Finding(ERROR, C_DEPTH, f"nesting is deeper than the limit of "
                                    f"{limits.max_depth} levels", file=out.name, line=1, column=1))
        out.raw_documents += 1
        return True
    _add_document(out, value, positions, 0, 1, 1, limits, check_shape=False)
    return True


def _deeper_than(value, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        kind = type(node)
        if kind is dict:
            stack.extend((child, depth + 1) for child in node.values()
                         if type(child) is dict or type(child) is list)
        elif kind is list:
            stack.extend((child, depth + 1) for child in node
                         if type(child) is dict or type(child) is list)
    return False


# ---- YAML -------------------------------------------------------------------------------------
# What YAML's reader refuses anywhere in a stream (libyaml and go-yaml alike).
_NOT_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


# The printable ASCII characters of _NOT_PRINTABLE's complement (tab, line feed, carriage
# return, space to tilde), as bytes for bytes.translate.
_PRINTABLE_ASCII = b"\t\n\r" + bytes(range(0x20, 0x7f))


def _all_printable(text: str) -> bool:
    """Whether _NOT_PRINTABLE finds nothing in `text`. ASCII text -- nearly every manifest --
    is checked by deleting its printable characters in C and seeing whether any is left,
    about ten times faster than the expression's scan."""
    if text.isascii():
        return not text.encode("ascii").translate(None, _PRINTABLE_ASCII)
    return _NOT_PRINTABLE.search(text) is None


def _parse_yaml(text: str, out: ParsedSource, limits: Limits, split_deep: bool = False) -> None:
    if not split_deep and _all_printable(text):
        error_line = _parse_yaml_segment(text, 0, out, limits)
        if error_line is None:
            return
        first = max(error_line, 1)   # go on with the documents after the broken one
    else:
        first = 0                    # libyaml would refuse the whole stream, or too deep a part
    # Recovery, one document at a time (kubectl also splits a stream at `---` lines before it
    # decodes anything): a broken document hides none of the others, and the cost stays linear
    # in the size of the file however many documents are broken.
    lines = split_lines(text)
    bounds = [i for i in range(first, len(lines)) if (i == 0 or _DOC_START.match(lines[i]))]
    for k, lo in enumerate(bounds):
        hi = bounds[k + 1] if k + 1 < len(bounds) else len(lines)
        chunk = "\n".join(lines[lo:hi])
        if split_deep and _too_deep(chunk, limits):  # this document only, not the whole file
            out.findings.append(Finding(ERROR, C_DEPTH, f"nesting is deeper than the limit of "
                                        f"{limits.max_depth} levels; document not parsed",
                                        file=out.name, line=lo + 1, column=1))
            out.raw_documents += 1
            continue
        bad = _NOT_PRINTABLE.search(chunk)
        if bad is None:
            _parse_yaml_segment(chunk, lo, out, limits)
            continue
        line0 = chunk.count("\n", 0, bad.start())
        column = bad.start() - (chunk.rfind("\n", 0, bad.start()) + 1) + 1
        out.findings.append(Finding(ERROR, C_SYNTAX, f"unacceptable character #x{ord(bad.group()):04x}: "
                                    "control characters are not allowed", file=out.name,
                                    line=lo + line0 + 1, column=column))
        out.raw_documents += 1


def _read_fast(text: str, out: ParsedSource, limits: Limits) -> bool:
    """The documents of the fast reader (fastread.py), kept as the libyaml path keeps its own;
    False when the text must take the libyaml path."""
    read = fastread.read(text, limits.max_depth)
    if read is None:
        return False
    positions = PositionIndex(text)
    positions.doc_lines = [line for _, line, _ in read.documents]
    for index, (value, line, column) in enumerate(read.documents):
        if read.may_be_deep and type(value) in (dict, list) and \
                _deeper_than(value, limits.max_depth):
            out.findings.append(Finding(
                ERROR, C_DEPTH, f"nesting is deeper than the limit of {limits.max_depth} "
                "levels", file=out.name, line=line + 1, column=column + 1))
            out.raw_documents += 1
            continue
        _add_document(out, value, positions, index, line + 1, column + 1, limits,
                      check_shape=False)
    return True


def _char_at(text: str, line: int, column: int) -> str:
    """The character at a 0-based line and column of a YAML error mark ("" when out of range)."""
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    row = text[start:end if end >= 0 else len(text)]
    return row[column] if 0 <= column < len(row) else ""


def _parse_yaml_segment(segment: str, offset: int, out: ParsedSource,
                        limits: Limits) -> int | None:
    """Parse one segment; returns the absolute 0-based line of a syntax error, or None."""
    if _has_big_document(segment):
        mark = (len(out.documents), len(out.findings), out.raw_documents)
        try:
            return _parse_yaml_events(segment, offset, out, limits)
        except NeedsComposition:  # merge keys: read the segment again, composed
            del out.documents[mark[0]:], out.findings[mark[1]:]
            out.raw_documents = mark[2]
    positions = PositionIndex(segment, offset)
    loader = ManifestLoader(segment)
    index = 0
    try:
        while True:
            try:
                if not loader.check_node():
                    return None
                node = loader.get_node()
            except yaml.YAMLError as exc:
                return _syntax_error(exc, offset, out, segment)
            positions.doc_lines.append(node.start_mark.line)
            line = node.start_mark.line + 1 + offset
            column = node.start_mark.column + 1
            before = len(loader.duplicates)
            try:
                value = loader.construct_document(node)
            except (RecursionError, yaml.YAMLError) as exc:
                _construct_error(exc, line, column, offset, out)
                index += 1
                continue
            _finish_document(out, loader, before, value, positions, index, line, column, offset,
                             limits)
            index += 1
    finally:
        loader.dispose()


def _has_big_document(segment: str) -> bool:
    """Whether some document of the segment may be over STREAM_FROM_BYTES. Composing holds one
    document's nodes at a time (about 45 times its text), so a big file of small documents is
    composed -- about a fifth faster than building from events -- and only a big document is
    built from the event stream. Documents are told apart by their `---` lines, as the recovery
    below does: a misjudged boundary costs memory, never a different result (both paths build
    the same values, tests/unit/test_yamlstream.py)."""
    if len(segment) <= STREAM_FROM_BYTES:
        return False
    last = 0
    for start in _DOC_START.finditer(segment):
        if start.start() - last > STREAM_FROM_BYTES:
            return True
        last = start.start()
    return len(segment) - last > STREAM_FROM_BYTES


def _parse_yaml_events(segment: str, offset: int, out: ParsedSource,
                       limits: Limits) -> int | None:
    """_parse_yaml_segment for big segments: documents built from the event stream (no node
    tree in memory, see yamlstream.py); the same documents, findings and errors."""
    positions = PositionIndex(segment, offset)
    loader = ManifestLoader(segment)
    index = 0
    try:
        while True:
            before = len(loader.duplicates)
            try:
                loader.peek_event()
                if loader.check_event(yaml.StreamStartEvent):
                    loader.get_event()
                if loader.check_event(yaml.StreamEndEvent):
                    return None
                start = loader.peek_event().start_mark
                found = next_document(loader)
            except (yaml.scanner.ScannerError, yaml.parser.ParserError, yaml.reader.ReaderError,
                    yaml.composer.ComposerError) as exc:
                return _syntax_error(exc, offset, out, segment)
            except (RecursionError, yaml.YAMLError) as exc:
                _construct_error(exc, start.line + 1 + offset, start.column + 1, offset, out)
                positions.doc_lines.append(start.line)
                index += 1
                try:
                    skip_document(loader)
                except yaml.YAMLError as exc2:
                    return _syntax_error(exc2, offset, out, segment)
                continue
            if found is None:
                return None
            value, mark = found
            positions.doc_lines.append(mark.line)
            _finish_document(out, loader, before, value, positions, index, mark.line + 1 + offset,
                             mark.column + 1, offset, limits)
            index += 1
    finally:
        loader.dispose()


def _syntax_error(exc: yaml.YAMLError, offset: int, out: ParsedSource, segment: str = "") -> int:
    if not isinstance(exc, yaml.MarkedYAMLError):
        out.findings.append(Finding(ERROR, C_SYNTAX, str(exc).splitlines()[0], file=out.name,
                                    line=offset + 1, column=1))
        return offset
    mark = exc.problem_mark or exc.context_mark
    line = (mark.line if mark else 0) + offset
    column = (mark.column + 1) if mark else 1
    problem = exc.problem or "syntax error"
    if mark is not None and _char_at(segment, mark.line, mark.column) == "\t":
        problem += ": a tab (YAML indents with spaces only)"
    context = f" ({exc.context})" if exc.context else ""
    if mark is not None and segment and not problem.endswith("spaces only)"):
        from dractl.load.indentation import hint  # only for files with a syntax error

        context += hint(segment, mark.line)
    # libyaml's own depth guard is a nesting finding, not a syntax error.
    code = C_DEPTH if "nesting depth" in problem else C_SYNTAX
    out.findings.append(Finding(ERROR, code, f"{problem}{context}", file=out.name,
                                line=line + 1, column=column))
    out.raw_documents += 1
    return line


def _construct_error(exc: BaseException, line: int, column: int, offset: int,
                     out: ParsedSource) -> None:
    """A document that parses but cannot be built (a tag with an impossible value, ...)."""
    out.raw_documents += 1
    if isinstance(exc, RecursionError):
        out.findings.append(Finding(ERROR, C_DEPTH, "nesting is too deep to read",
                                    file=out.name, line=line, column=column))
        return
    mark = getattr(exc, "problem_mark", None)
    out.findings.append(Finding(
        ERROR, C_SYNTAX, getattr(exc, "problem", None) or str(exc).splitlines()[0],
        file=out.name, line=(mark.line + 1 + offset) if mark else line,
        column=(mark.column + 1) if mark else column))


def _finish_document(out: ParsedSource, loader: ManifestLoader, before: int, value,
                     positions: PositionIndex, index: int, line: int, column: int, offset: int,
                     limits: Limits) -> None:
    for dup in loader.duplicates[before:]:
        out.findings.append(Finding(
            ERROR, C_DUPLICATE, f'duplicate field "{dup.key}" (first set on line '
            f'{dup.first_line + offset})', file=out.name, line=dup.line + offset,
            column=dup.column))
    # The builder measured the depth; the walk over the value is needed only when an alias
    # made parts of it shared (expanded size, depth through the alias).
    if loader.deepest > limits.max_depth and not loader.alias_uses:
        out.findings.append(Finding(
            ERROR, C_DEPTH, f"nesting is deeper than the limit of {limits.max_depth} "
            "levels", file=out.name, line=line, column=column))
        out.raw_documents += 1
        return
    _add_document(out, value, positions, index, line, column, limits,
                  check_shape=loader.alias_uses > 0)
