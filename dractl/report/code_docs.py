"""`dractl codes CODE`: the long explanation of a finding code, as `ruff rule` gives it.

Every code's explanation lives next to the module that registers it, in `<module>.codes.md`
(dractl/validate/rules/claims.py -> dractl/validate/rules/claims.codes.md), one section per
code:

    ## DRA1009

    **Checks.** what the rule looks at.

    **Why.** the API-server rule or scheduler behaviour it mirrors, with the upstream function.

    **Example.**

    ```yaml
    a failing manifest (fragment)
    ```

    **Fix.** what to change.

tests/unit/test_code_docs.py requires one for every registered code, with all four parts. The
files are read only here (not on every `validate`), as text or Markdown, and by `-o sarif`
for each rule's `help`.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

from dractl.findings import RuleDoc

PARTS = ("Checks", "Why", "Example", "Fix")
_SECTION = re.compile(r"^## (DRA\d{4})[ \t]*$", re.M)
_LABEL = re.compile(r"^\*\*(Checks|Why|Example|Fix)\.\*\*[ \t]*", re.M)


@dataclass(frozen=True)
class Explanation:
    code: str
    markdown: str          # the section body, without its heading
    source: str            # the .codes.md file it comes from (relative to the package)

    def parts(self) -> dict[str, str]:
        """{'Checks': text, 'Why': ..., 'Example': ..., 'Fix': ...} (Markdown of each part)."""
        out: dict[str, str] = {}
        matches = list(_LABEL.finditer(self.markdown))
        for i, m in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(self.markdown)
            out[m.group(1)] = self.markdown[m.end():end].strip()
        return out


def docs_path(module: str) -> Path | None:
    """`<module>.codes.md` next to the module's source file."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin[: -len(".py")] + ".codes.md")


def parse(text: str, source: str) -> dict[str, Explanation]:
    out: dict[str, Explanation] = {}
    matches = list(_SECTION.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        code = m.group(1)
        if code in out:
            raise ValueError(f"{source}: {code} is explained twice")
        out[code] = Explanation(code, text[m.end():end].strip(), source)
    return out


@functools.lru_cache(maxsize=None)
def _module_explanations(module: str) -> dict[str, Explanation]:
    path = docs_path(module)
    if path is None or not path.is_file():
        return {}
    package_root = Path(importlib.util.find_spec("dractl").origin).parent.parent
    try:
        source = path.relative_to(package_root).as_posix()
    except ValueError:
        source = path.name
    return parse(path.read_text(encoding="utf-8"), source)


def explanation(doc: RuleDoc) -> Explanation | None:
    """The explanation of a code from the files of the modules that register it."""
    for module in doc.modules:
        found = _module_explanations(module).get(doc.code)
        if found is not None:
            return found
    return None


# -- rendering ---------------------------------------------------------------------------------

def _heading(doc: RuleDoc) -> str:
    return f"{doc.code} ({doc.severity}, {doc.origin}): {doc.summary}"


def markdown(doc: RuleDoc) -> str:
    """`## CODE: summary`, severity and origin, then the explanation as written."""
    found = explanation(doc)
    body = found.markdown if found else "(no explanation written yet)"
    return (f"## {doc.code}: {doc.summary}\n\n*Severity:* {doc.severity}. *From:* {doc.origin}. "
            f"*Ignore it:* `--ignore {doc.code}`.\n\n{body}\n")


def text(doc: RuleDoc) -> str:
    """The explanation for a terminal: the part labels as headings, Markdown emphasis and code
    spans removed, code blocks indented."""
    found = explanation(doc)
    lines = [_heading(doc), ""]
    if found is None:
        return "\n".join(lines + ["(no explanation written yet)", ""])
    names = {"Checks": "What it checks", "Why": "Why", "Example": "Example", "Fix": "Fix"}
    for part, content in found.parts().items():
        lines.append(names[part])
        lines.extend(_plain_block(content))
        lines.append("")
    lines.append(f"Ignore it with --ignore {doc.code} or under ignore: in .dractl.yaml.")
    return "\n".join(lines) + "\n"


def _plain_block(markdown_text: str) -> list[str]:
    out: list[str] = []
    in_code = False
    for line in markdown_text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            out.append("      " + line if line else "")
        else:
            out.append(("  " + plain_inline(line)).rstrip())
    return out


def plain_inline(line: str) -> str:
    """Markdown inline markup to plain text: `code` and **bold**/*emphasis* markers dropped."""
    line = re.sub(r"\*\*([^*]+)\*\*", r"\1", line)
    line = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\1", line)
    line = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1 (\2)", line)
    return line.replace("`", "")


def plain(doc: RuleDoc) -> str:
    """One block of plain text (SARIF `help.text`)."""
    return text(doc)
