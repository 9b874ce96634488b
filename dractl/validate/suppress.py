"""Inline suppression, ruff-style (dractl's own): a finding the manifest itself says to ignore.

    spec:
      deviceClassName: gpu.example.com   # dractl: ignore[DRA2003]   <- this line
    # dractl: ignore[DRA2003]                                         <- the next line, or the
    - name: gpu                                                        block or object it opens
    # dractl: ignore-file[DRA2003]                                    <- the whole file
    metadata:
      annotations:
        dractl.io/ignore: "DRA2003,DRA1417"                           <- the whole object

A comment at the end of a line covers findings on that line. A comment alone on its line covers
the next line that is not a comment and, when that line opens a mapping entry or list item, the
lines of that entry (those indented deeper); before an object's first line (or its `---`) it
covers the whole object. `ignore-file[...]` anywhere covers the file. The annotation survives
`kubectl get -o yaml`, so dumped cluster state keeps it. Without `[...]` every code is covered.

A suppression that covers no finding is itself a finding (DRA0017, like ruff's RUF100), and so is
a code that does not exist (DRA0018), so suppressions do not outlive their reason. YAML comments
are not in PyYAML's events: the text is scanned, only for files that contain "dractl" at all (a
byte search), so files without suppressions cost nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from dractl.findings import WARNING, Finding, register

C_UNUSED = register("DRA0017", WARNING, "a suppression (# dractl: ignore, dractl.io/ignore) that "
                    "covers no finding", "dractl")
C_UNKNOWN = register("DRA0018", WARNING, "a suppression names something that is not a finding code",
                     "dractl")

ANNOTATION = "dractl.io/ignore"
_COMMENT = re.compile(r"(?:^|(?<=\s))#\s*dractl:\s*(ignore-file|ignore)(?![\w-])(?:\[([^\]\n]*)\])?")
_SPLIT = re.compile(r"[\s,]+")
EVERY = "*"


@dataclass
class Directive:
    """One suppression: where it is written, which codes (EVERY for all), which lines of its
    file it covers, and the codes it suppressed so far."""

    file: str
    line: int
    column: int
    codes: tuple
    first: int
    last: int
    what: str                      # how it is written, for messages
    used: set = field(default_factory=set)

    def covers(self, finding: Finding) -> bool:
        if not (self.first <= finding.line <= self.last):
            return False
        if EVERY in self.codes:
            self.used.add(EVERY)
            return True
        if finding.code in self.codes:
            self.used.add(finding.code)
            return True
        return False


@dataclass
class Suppressions:
    """The suppressions of a run, by file; `findings`: DRA0018 for codes that do not exist."""

    by_file: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)
    suppressed: int = 0
    _index: dict = field(default_factory=dict, repr=False)  # file -> (firsts, directives, reach)

    def add(self, directive: Directive) -> None:
        self.by_file.setdefault(directive.file, []).append(directive)
        self._index.pop(directive.file, None)

    def extend(self, other: "Suppressions | None") -> None:
        if other is not None:
            for directives in other.by_file.values():
                for d in directives:
                    self.add(d)
            self.findings.extend(other.findings)
            self.suppressed += other.suppressed

    def covers(self, finding: Finding) -> bool:
        """Whether a located finding is suppressed (and count it used)."""
        if finding.file not in self.by_file or finding.code in (C_UNUSED, C_UNKNOWN):
            return False
        firsts, directives, reach = self._sorted(finding.file)
        hit = False
        # Directives starting at or before the line, newest first, as long as one of them (or
        # an earlier one) reaches it: disjoint objects and blocks are looked at once each.
        i = bisect_right(firsts, finding.line) - 1
        while i >= 0 and reach[i] >= finding.line:
            hit = directives[i].covers(finding) or hit
            i -= 1
        if hit:
            self.suppressed += 1
        return hit

    def _sorted(self, file: str) -> tuple:
        found = self._index.get(file)
        if found is None:
            directives = sorted(self.by_file[file], key=lambda d: (d.first, d.last))
            reach, furthest = [], 0
            for d in directives:
                furthest = max(furthest, d.last)
                reach.append(furthest)
            found = self._index[file] = ([d.first for d in directives], directives, reach)
        return found

    def unused(self, ignored_for) -> list[Finding]:
        """DRA0017 for every code of a suppression that covered nothing, except codes the run
        does not report for that file anyway (--ignore, --select, perPathIgnore)."""
        out = []
        for file, directives in self.by_file.items():
            ignored = ignored_for(file)
            for d in directives:
                idle = [c for c in d.codes if c not in d.used and c not in ignored]
                if idle:
                    what = "every code" if idle == [EVERY] else ", ".join(idle)
                    out.append(Finding(WARNING, C_UNUSED, f"unused suppression ({d.what}): no "
                                       f"finding of {what} here; remove it", file=file,
                                       line=d.line, column=d.column))
        return out


def scan(name: str, data: bytes, documents: list) -> Suppressions | None:
    """The suppressions of one file (None when it has none): its comments and its objects'
    dractl.io/ignore annotations. documents: the file's documents, for object ranges."""
    if b"dractl" not in data:
        return None
    text = data.decode("utf-8", "replace")
    lines = text.replace("\r\n", "\n").split("\n")
    out = Suppressions()
    starts = sorted(d.line for d in documents)
    targets = _Targets(lines, starts)
    for number, line in enumerate(lines, 1):
        if "dractl:" in line:
            for m in _COMMENT.finditer(line):
                _comment(out, name, lines, number, m, targets)
    for doc in documents:
        _annotation(out, name, doc, targets)
    return out if out.by_file or out.findings else None


def _codes(out: Suppressions, name: str, text: str | None, line: int, column: int) -> tuple:
    if text is None:
        return (EVERY,)
    from dractl.report.code_index import ALL_CODES

    known = []
    for token in _SPLIT.split(text.strip()):
        if not token:
            continue
        code = token.upper()
        if code in ALL_CODES:
            known.append(code)
            continue
        from dractl.suggest import closest_match

        guess = closest_match(code, ALL_CODES)
        hint = f"; did you mean {guess}?" if guess else ""
        out.findings.append(Finding(WARNING, C_UNKNOWN, f"{token!r} in a suppression is not a "
                                    f"finding code (see dractl codes){hint}", file=name, line=line,
                                    column=column))
    return tuple(dict.fromkeys(known))


def _comment(out: Suppressions, name: str, lines: list[str], number: int, m, targets) -> None:
    column = m.start() + 1
    codes = _codes(out, name, m.group(2), number, column)
    if not codes:
        return
    line = lines[number - 1]
    if m.group(1) == "ignore-file":
        out.add(Directive(name, number, column, codes, 1, len(lines), "# dractl: ignore-file"))
    elif line[:m.start()].strip():
        out.add(Directive(name, number, column, codes, number, number, "# dractl: ignore"))
    else:
        first, last = targets.block_after(number)
        out.add(Directive(name, number, column, codes, first, last, "# dractl: ignore"))


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#") and stripped not in ("---", "...")


class _Targets:
    """What a comment alone on a line covers, computed once per file and per target line, so
    that a file of many suppression comments is read in linear time."""

    def __init__(self, lines: list[str], starts: list[int]) -> None:
        self.lines, self.starts = lines, starts
        self._next: list[int] | None = None
        self._blocks: dict[int, tuple[int, int]] = {}

    def object_end(self, line: int) -> int:
        """The last line of the object starting at `line` (before the next one starts)."""
        i = bisect_right(self.starts, line)
        return self.starts[i] - 1 if i < len(self.starts) else len(self.lines)

    def _next_content(self) -> list[int]:
        if self._next is None:  # next[n]: the first content line after line n (one backward pass)
            nxt = [0] * (len(self.lines) + 2)
            following = len(self.lines) + 1
            for n in range(len(self.lines), 0, -1):
                nxt[n] = following
                if _is_content(self.lines[n - 1]):
                    following = n
            nxt[0] = following
            self._next = nxt
        return self._next

    def block_after(self, number: int) -> tuple[int, int]:
        """The next content line after `number` and the block it opens, or the whole object when
        that line starts one (blank lines, comments and a `---` between them passed over)."""
        target = self._next_content()[number]
        if target > len(self.lines):
            return number, number
        found = self._blocks.get(target)
        if found is None:
            found = self._blocks[target] = self._block(target)
        return found

    def _block(self, target: int) -> tuple[int, int]:
        i = bisect_right(self.starts, target) - 1
        if i >= 0 and self.starts[i] == target:
            return target, self.object_end(target)
        text = self.lines[target - 1]
        indent = len(text) - len(text.lstrip(" "))
        last, row = target, self._next_content()[target]
        while row <= len(self.lines):
            line = self.lines[row - 1]
            if len(line) - len(line.lstrip(" ")) <= indent:
                break
            last, row = row, self._next_content()[row]
        end = self.object_end(target)
        return target, min(last, end)


def _annotation(out: Suppressions, name: str, doc, targets: _Targets) -> None:
    metadata = doc.data.get("metadata") if isinstance(doc.data, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    value = annotations.get(ANNOTATION) if isinstance(annotations, dict) else None
    if not isinstance(value, str):
        return
    line, column = doc.locate(("metadata", "annotations", ANNOTATION))
    codes = _codes(out, name, value, line, column)
    if codes:
        out.add(Directive(name, line, column, codes, doc.line, targets.object_end(doc.line),
                          f"annotation {ANNOTATION}"))
