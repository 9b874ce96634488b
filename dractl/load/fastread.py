"""The fast reading path: rapidyaml parses, orjson builds the values, dractl checks the result.

Why: libyaml composing Python nodes is most of dractl's load stage; rapidyaml parses the same
text in C++ into its own tree and writes it as JSON, which orjson turns into Python objects,
together about a fifth of the libyaml path's time (benchmarks/README.md, "the reader").

What rapidyaml does not do the way Kubernetes' decoder (go-yaml, YAML 1.1) and dractl's libyaml
path (yamlsafe.ManifestLoader) do, and how this module keeps the result identical:

* Plain scalars: rapidyaml's JSON writes a plain scalar bare when it reads as a YAML 1.2 / JSON
  number, `true`, `false` or `null`, and quoted otherwise. A quoted JSON string whose text the
  YAML 1.1 resolver would make something else (`yes`, `~`, `0x1F`, `012`, `1_000`, `1:20`,
  `.inf`, ...) may have been plain or quoted in the source: such a file is read by libyaml.
  Bare floats are not trusted either (`1e3` is a string in YAML 1.1, and rapidyaml rewrites
  `-.5` as `-0.5`): a source with a number written with an exponent, `-.`, or 19 digits or more
  is read by libyaml. What is left, bare `true`/`false`/`null` and decimal integers, YAML 1.1
  reads the same way.
* Tags, anchors, aliases, complex keys, directives, `...`, tabs, CR and the YAML 1.1 line breaks
  (NEL, LS, PS): rapidyaml's JSON drops tags and anchors and leaves aliases unresolved; any of
  them at the start of a token sends the file to libyaml (a conservative test on the text: a `!`
  or `*` after `: ` inside a plain scalar sends it too).
* Duplicate keys: orjson keeps the last value like the libyaml path, but only the libyaml path
  reports them; the keys rapidyaml wrote are counted against the keys of the built values, and
  a difference sends the file to libyaml.
* Positions: rapidyaml's Python binding gives none. Findings are located later from the text
  (positions.py); the start of each document's root node, which the libyaml path takes from its
  composer, is found here from the text (the first character after a `---` line that is neither
  blank nor a comment), and the document count must agree with rapidyaml's.
* Errors: any text rapidyaml rejects (it prints its message on file descriptor 2, silenced here)
  or whose JSON orjson rejects is read by libyaml, which gives today's findings and positions.

read() returns None for every such file; tests/unit/test_fastread.py checks both paths give the
same documents, findings and positions (generated YAML, the repository's manifests and goldens,
the realworld corpus).
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

ryml = orjson = None   # imported on first use: see available()
_import_tried = False
_bytes_seen = 0
# rapidyaml's import costs ~6 ms of CPU; the fast path saves ~0.1 ms per KiB of YAML. A run
# imports it once it has seen this much text (a one-file `validate` starts as fast as before).
IMPORT_AFTER_BYTES = 64 * 1024


def available() -> bool:
    """Whether rapidyaml (and orjson) import; a failure of any kind means the libyaml path for
    everything, never an error."""
    global ryml, orjson, _import_tried
    if not _import_tried:
        _import_tried = True
        try:
            import orjson as orjson_module
            import ryml as ryml_module
        except Exception:  # noqa: BLE001
            return False
        ryml, orjson = ryml_module, orjson_module
    return ryml is not None

# Characters rapidyaml and libyaml treat differently, or that rapidyaml's JSON cannot carry.
_UNSUPPORTED_CHARACTERS = ("\t", "\r", "\x85", "\u2028", "\u2029", "\ufeff")
# Node properties (tag `!`, anchor `&`, alias `*`), complex keys `?`, directives `%`, the
# reserved `@` and backquote, block scalars' headers, and flow indicators no plain scalar starts with (rapidyaml reads
# `]a` as a string; libyaml refuses it): what they mean only at the start of a token, that is
# after one of _TOKEN_BEFORE (a closing bracket right after its opening one is an empty
# collection).
_INDICATORS = re.compile(r"[!&*?%@`\]},|>]")
_FLOW_EMPTY_KEY_OR_VALUE = re.compile(r"[\[{,][ \n]*:|:[\]},]")
# A block scalar's header: chomping and indentation indicators, then at most a comment.
_BLOCK_HEADER = re.compile(r"[|>](?:[-+][1-9]?|[1-9][-+]?)?(?:[ ]+(?:#.*)?)?")
_TOKEN_BEFORE = frozenset("\n:-?,[{")
_CLOSING_BEFORE = frozenset("\n:-?,")
# (at the start of a line, `|| x` and `>= 0` go on a plain scalar; a document that is one
# block scalar is read by libyaml anyway)
_HEADER_BEFORE = frozenset(":-?,[{")
# Numbers whose YAML 1.1 reading rapidyaml's JSON does not keep (see the module's docstring).
_NUMBER_SHAPE = bytes(48 if 48 <= b <= 57 else 101 if b in (69, 101) else 32 for b in range(256))
_NUMBER_TOKEN = re.compile(rb"[-+]?(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9_]+)[eE][-+]?[0-9]+")
_TOKEN_BYTES = frozenset(b"0123456789.eE+-_")
_NUMBER_BEFORE = frozenset(b" \n:[{,'\"")  # (a quote: the same text quoted is no risk, but cheap)

_MARKER_TAIL = re.compile(r"[ \t]*(?:#.*)?")
_CONTENT = re.compile(r"^ *([^\s#])", re.M)

# JSON strings whose text the YAML 1.1 resolver may read as something other than a string;
# each candidate is checked exactly by _changes_when_plain.
_CANDIDATE = re.compile(r'"([-+.0-9~<=][^"\\]*|[yY]es|YES|[nN]o|NO|[oO]n|ON|[oO]ff|OFF|True|TRUE'
                        r'|False|FALSE|Null|NULL)"')
# Plain texts that rapidyaml writes bare and YAML 1.1 reads the same way, as values and as keys:
# a JSON string with this text was quoted in the source.
_WRITTEN_BARE = re.compile(r"true|false|null|0|-?[1-9][0-9]*")
_WRITTEN_BARE_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")


def read(text: str, max_depth: int) -> Read | None:
    """Each document of `text` (empty documents as None) with where its root node starts, or
    None when the text must be read by libyaml."""
    global _bytes_seen
    if ryml is None:
        _bytes_seen += len(text)
        if _bytes_seen < IMPORT_AFTER_BYTES or not available():
            return None
    if _needs_libyaml(text):
        return None
    markers = _markers(text)
    if markers is None:
        return None
    starts = document_starts(text, markers)
    if not starts:
        return None
    values: list = []
    may_be_deep = False
    tree = ryml.Tree()  # one tree for every part: its memory is reused, not mapped anew
    for begin, end in _parts(text, markers):
        if end - begin > LARGEST_PART:
            return None  # a big document: libyaml builds it from its events, in less memory
        try:  # (a part at a time: no copy of the whole text is held)
            part = text[begin:end].encode("utf-8")
        except UnicodeEncodeError:
            return None
        if _has_reinterpreted_number(part):
            return None
        read_part = _read_part(part, max_depth, tree)
        if read_part is None:
            return None
        values.extend(read_part[0])
        may_be_deep = may_be_deep or read_part[1]
    if len(values) != len(starts):
        return None
    return Read([(v, line, column) for v, (line, column) in zip(values, starts, strict=True)],
                may_be_deep)


# rapidyaml's tree takes about 40 times the text it parses: a big file is parsed a part at a
# time, cut at `---` lines (which end any scalar, or make it an error in both parsers), so the
# tree of one part is all there is at any moment.
PART_BYTES = 256 * 1024
# A part that cannot be cut small (one document this big) is read by libyaml, whose event path
# holds nothing but the values (yamlstream.py; tests/hostile's 4.5 MB claim within 20x its size).
LARGEST_PART = 2 * PART_BYTES


def _parts(text: str, markers: list[tuple[int, int]]) -> list[tuple[int, int]]:
    bounds = [0]
    for start, _ in markers:
        if start - bounds[-1] >= PART_BYTES:
            bounds.append(start)
    bounds.append(len(text))
    return list(zip(bounds, bounds[1:], strict=False))


def _read_part(data: bytes, max_depth: int, tree) -> tuple[list, bool] | None:
    found = _json_of(data, tree)
    if found is None:
        return None
    written, stream = found
    if _has_ambiguous_string(written):
        return None
    try:
        value = orjson.loads(written)
    except orjson.JSONDecodeError:
        return None
    values = value if stream else [value]
    # A document that is one scalar is a finding anyway, and rapidyaml reads `"x"!` there
    # as "" where libyaml finds a syntax error: libyaml reads such files.
    if any(type(v) is not dict and type(v) is not list and v is not None for v in values):
        return None
    if _keys_written(written) != _keys_built(values):
        return None
    return values, _may_nest_deeper(written, max_depth)


class Read(NamedTuple):
    documents: list  # (value, 0-based line, 0-based column) per document
    may_be_deep: bool  # whether some document may nest deeper than the limit (then measure)


def _may_nest_deeper(written: str, limit: int) -> bool:
    """A bound on the nesting from rapidyaml's JSON layout: a container written over several
    lines indents its entries two more spaces, and the containers written within one line open
    one bracket each. So a document nests at most (widest indentation) / 2 + (most brackets on
    one line) deep. The brackets and line breaks alone, kept in C, are searched for a run."""
    brackets = min(_INLINE_BRACKETS, limit)
    layout = written.encode("utf-8").translate(_BRACKET_SHAPE, _NOT_BRACKET)
    if b"[" * brackets in layout:
        return True
    return ("\n" + " " * max(0, 2 * (limit - brackets))) in written


_INLINE_BRACKETS = 8
_BRACKET_SHAPE = bytes(91 if b == 123 else b for b in range(256))  # `{` read as `[`
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[{\n")


def _needs_libyaml(text: str) -> bool:
    if any(c in text for c in _UNSUPPORTED_CHARACTERS):
        return True
    if "\n..." in text or text.startswith("..."):
        return True
    if ("[" in text or "{" in text) and _FLOW_EMPTY_KEY_OR_VALUE.search(text):
        return True  # `[:`, `[a:]`: rapidyaml reads an empty key or value, libyaml refuses
    if not text.endswith("\n") and ("|" in text or ">" in text):
        return True  # a block scalar on the last line: libyaml keeps no line break, rapidyaml one
    for match in _INDICATORS.finditer(text):
        char = match.group()
        if not _at_token_start(text, match.start(), _CLOSING_BEFORE if char in "]}" else
                               _HEADER_BEFORE if char in "|>" else _TOKEN_BEFORE):
            continue
        if char not in "|>":
            return True
        end = text.find("\n", match.start())
        if not _BLOCK_HEADER.fullmatch(text, match.start(), end if end >= 0 else len(text)):
            return True  # rapidyaml reads `|2  x` as an empty string, libyaml refuses it
    return False


def _at_token_start(text: str, position: int, token_before: frozenset) -> bool:
    before = position - 1
    while before >= 0 and text[before] == " ":
        before -= 1
    if before < 0:
        return True
    # `: x`, `- x` and `? x` start a token only with a space between (`a:>`, `->` do not)
    return text[before] in token_before and (before < position - 1 or text[before] not in ":-?")


def _has_reinterpreted_number(data: bytes) -> bool:
    """A plain scalar that may be a number with an exponent, a `-.5`-style float or a very long
    integer: conservative (the same text in a string sends the file to libyaml too). The text's
    digits and exponent letters, mapped to b"0" and b"e" in C, are searched without a regular
    expression over the whole text."""
    if b"-." in data and re.search(rb"(?:^|[\s:\[,{])-\.[0-9]", data, re.M):
        return True
    shape = data.translate(_NUMBER_SHAPE)
    if b"0" * 19 in shape:
        return True
    at = shape.find(b"0e")
    while at >= 0:
        start = end = at
        while start > 0 and data[start - 1] in _TOKEN_BYTES:
            start -= 1
        while end < len(data) and data[end] in _TOKEN_BYTES:
            end += 1
        if (start == 0 or data[start - 1] in _NUMBER_BEFORE) and \
                _NUMBER_TOKEN.fullmatch(data, start, end):
            return True
        at = shape.find(b"0e", end)
    return False


def document_starts(text: str, markers: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """0-based (line, column) where each document's root node starts, as libyaml marks it:
    the first character that is not blank or a comment; for an empty document, where the
    next token starts (the next `---`, or the end of the stream). `markers`: _markers(text)."""
    starts: list[tuple[int, int]] = []
    position, line = 0, 0  # a position and its line, advanced together (linear in the text)

    def line_of(offset: int) -> int:
        nonlocal position, line
        line += text.count("\n", position, offset)
        position = offset
        return line

    first_end = markers[0][0] if markers else len(text)
    found = _CONTENT.search(text, 0, first_end)
    if found is not None:
        starts.append((line_of(found.start(1)), found.start(1) - found.start()))
    for k, (_, end_of_line) in enumerate(markers):
        end = markers[k + 1][0] if k + 1 < len(markers) else len(text)
        after = end_of_line + 1
        if after < end and text[after] not in " #\n":  # content at the start of the next line
            starts.append((line_of(after), 0))
            continue
        found = _CONTENT.search(text, end_of_line, end)
        if found is not None:
            starts.append((line_of(found.start(1)), found.start(1) - found.start()))
        elif k + 1 < len(markers):
            starts.append((line_of(end), 0))
        else:  # libyaml's stream end: the line after the last character
            starts.append((line_of(len(text)) + (0 if text.endswith("\n") else 1), 0))
    return starts


def _markers(text: str) -> list[tuple[int, int]] | None:
    """(start, end of line) of each `---` line; None when one has content after the marker."""
    markers = []
    candidate = 0 if text.startswith("---") else text.find("\n---") + 1 or -1
    while candidate >= 0:
        after = candidate + 3
        if after == len(text) or text[after] in " \t\n":
            end_of_line = text.find("\n", after)
            if end_of_line < 0:
                end_of_line = len(text)
            if after < end_of_line and not _MARKER_TAIL.fullmatch(text, after, end_of_line):
                return None
            markers.append((candidate, end_of_line))
        candidate = text.find("\n---", after) + 1 or -1
    return markers


def _json_of(data: bytes, tree) -> tuple[str, bool] | None:
    """rapidyaml's JSON of the text, and whether it is a stream (a JSON list of documents)."""
    saved = _silence_stderr()
    try:
        tree.clear()
        tree.clear_arena()
        ryml.parse_in_arena(data, tree)
        if tree.size() == 0:
            return None
        # (its emitter refuses to nest deeper than 64 levels: libyaml reads those)
        return ryml.emit_json(tree), tree.is_stream(tree.root_id())
    except Exception:  # noqa: BLE001 - rapidyaml refuses the text: libyaml reports why
        return None
    finally:
        _restore_stderr(saved)


def _silence_stderr() -> int | None:
    """rapidyaml's default error handler prints to file descriptor 2 before it raises: point
    the descriptor at /dev/null while it parses (dractl reports the libyaml path's finding)."""
    try:
        saved = os.dup(2)
    except OSError:
        return None
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)
    return saved


def _restore_stderr(saved: int | None) -> None:
    if saved is not None:
        os.dup2(saved, 2)
        os.close(saved)


_verdicts: dict[str, bool] = {}


def _has_ambiguous_string(written: str) -> bool:
    verdicts = _verdicts
    for text in _CANDIDATE.findall(written):
        verdict = verdicts.get(text)
        if verdict is None:
            verdict = verdicts[text] = _changes_when_plain(text)
        if verdict:
            return True
    # an empty key: `: v` is the key null ("null") in YAML 1.1, "" in rapidyaml
    return '"": ' in written


def _changes_when_plain(text: str) -> bool:
    """Whether `text`, written as a JSON string by rapidyaml, could be a plain scalar that the
    libyaml path reads as something other than this string (as a value or as a key)."""
    from dractl.load.yamlsafe import plain_tag
    if plain_tag(text) in _STRING_TAGS or _WRITTEN_BARE.fullmatch(text):
        return False
    # rapidyaml writes a plain `1.37` bare too; as a key YAML 1.1 makes it the float's text
    return not (_WRITTEN_BARE_FLOAT.fullmatch(text) and repr(float(text)) == text)


_STRING_TAGS = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:timestamp")


def _keys_written(written: str) -> int | None:
    """Keys in rapidyaml's JSON: every key is followed by `": `; inside a string a quote is
    escaped, `\\": `. None when a string ends in an escaped backslash before `": ` (ambiguous)."""
    if '\\\\": ' in written:
        return None
    return written.count('": ') - written.count('\\": ')


def _keys_built(values) -> int | None:
    dumped = orjson.dumps(values)
    if b'\\\\":' in dumped:
        return -1
    return dumped.count(b'":') - dumped.count(b'\\":')
