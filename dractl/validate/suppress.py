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

    def add(self, directive: Directive) -> None:
        self.by_file.setdefault(directive.file, []).append(directive)

    def extend(self, other: "Suppressions | None") -> None:
        if other is not None:
            for directives in other.by_file.values():
                for d in directives:
                    self.add(d)
            self.findings.extend(other.findings)
            self.suppressed += other.suppressed

    def covers(self, finding: Finding) -> bool:
        """Whether a located finding is suppressed (and count it used)."""
        directives = self.by_file.get(finding.file)
        if not directives or finding.code in (C_UNUSED, C_UNKNOWN):
            return False
        hit = False
        for d in directives:
            hit = d.covers(finding) or hit
        if hit:
            self.suppressed += 1
        return hit

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
    for number, line in enumerate(lines, 1):
        if "dractl:" in line:
            for m in _COMMENT.finditer(line):
                _comment(out, name, lines, number, m, starts)
    for doc in documents:
        _annotation(out, name, doc, starts, len(lines))
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


def _comment(out: Suppressions, name: str, lines: list[str], number: int, m, starts: list) -> None:
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
        first, last = _block_after(lines, number, starts)
        out.add(Directive(name, number, column, codes, first, last, "# dractl: ignore"))


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _block_after(lines: list[str], number: int, starts: list) -> tuple[int, int]:
    """The lines a comment alone on line `number` covers: the next content line and the block
    it opens, or the whole object when that line starts one (blank lines, comments and a `---`
    between them are passed over)."""
    target = number + 1
    while target <= len(lines):
        row = lines[target - 1].strip()
        if row and not row.startswith("#") and row not in ("---", "..."):
            break
        target += 1
    if target > len(lines):
        return number, number
    if target in starts:
        later = [s for s in starts if s > target]
        return target, (later[0] - 1 if later else len(lines))
    text = lines[target - 1]
    indent = len(text) - len(text.lstrip(" "))
    last = target
    for i in range(target + 1, len(lines) + 1):
        row = lines[i - 1]
        if not _is_content(row):
            continue
        if row.strip() in ("---", "...") or len(row) - len(row.lstrip(" ")) <= indent:
            break
        last = i
    return target, last


def _annotation(out: Suppressions, name: str, doc, starts: list, total: int) -> None:
    metadata = doc.data.get("metadata") if isinstance(doc.data, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    value = annotations.get(ANNOTATION) if isinstance(annotations, dict) else None
    if not isinstance(value, str):
        return
    line, column = doc.locate(("metadata", "annotations", ANNOTATION))
    codes = _codes(out, name, value, line, column)
    if codes:
        later = [s for s in starts if s > doc.line]
        out.add(Directive(name, line, column, codes, doc.line, later[0] - 1 if later else total,
                          f"annotation {ANNOTATION}"))
