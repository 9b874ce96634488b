"""Every reference in the repository resolves, and nothing points outside it.

Code, tests and docs explain *why* by citing the repository's own documents (`docs/spec/*.md#anchor`,
`docs/decisions/NNNN-*.md`, the other `docs/*.md`) or upstream permalinks. This module checks, over
every text file of the repository (like the README test does for the README):

* a cited document exists, and so does the cited anchor (an explicit `<a id="...">` or a heading);
* a link in a Markdown file resolves (relative to the file), anchors included;
* a repository path named in text (`dractl/...py`, `tests/...py`, `docs/...md`, ...) exists;
* nothing cites a document that is not in the repository (the background notes a fresh clone does
  not have), a dractl issue number instead of a decision record, or an absolute path of a machine;
* every identifier `docs/architecture.md` names exists in the code, and its recipes' placeholders
  stay free (the example code of "Adding an API-server rule" is not registered, the example gate
  and module do not exist), so that following a recipe works.
"""

from __future__ import annotations

import ast
import builtins
import functools
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
SCANNED_DIRS = ("dractl", "tests", "docs", "scripts", "benchmarks", "testdata", "examples",
                "completions", ".ci")
SCANNED_FILES = ("README.md", "pyproject.toml")
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".hypothesis", "out"}
SKIPPED_SUFFIXES = {".gz", ".pyc", ".png", ".jpg", ".pdf", ".prof"}
THIS = Path(__file__).resolve()
# Files that name missing paths on purpose: fixtures written into temporary directories, and this
# module's own examples.
NAMES_MISSING_PATHS = {"tests/unit/test_code_sizes.py", "tests/unit/test_doc_references.py"}

# Documents of the background notes that are not in the repository, and other citations a fresh
# clone cannot follow. `spec 9.3`-style section numbers cite those notes; "semver.org spec 2.0.0"
# is the API server's own message and stays.
OUTSIDE = {
    "allocator-semantics": re.compile(r"allocator-semantics"),
    "cel-notes": re.compile(r"cel-notes"),
    "upstream-1.3x notes": re.compile(r"upstream-1\.3\d"),
    "shared docs": re.compile(r"shared/docs"),
    "notes/": re.compile(r"(?<![\w-])notes/"),
    "product.md": re.compile(r"(?<![\w/.-])product\.md"),
    "cli.md": re.compile(r"(?<![\w/.-])cli\.md"),
    "section sign": re.compile("\u00a7"),
    "spec section": re.compile(r"(?<!semver\.org )\b[Ss]pec (?:\d+\.\d+|\d+[a-z]\b)"),
    "dractl issue": re.compile(r"\b[Ii]ssues? #?\d{1,3}\b"),
    "seed notes": re.compile(r"\bseed (?:review|discussion|example)s?\b"),
}
# A substring every match of each pattern contains.
OUTSIDE_HINT = {"allocator-semantics": "allocator-semantics", "cel-notes": "cel-notes",
                "upstream-1.3x notes": "upstream-1.3", "shared docs": "shared/docs", "notes/": "notes/",
                "product.md": "product.md", "cli.md": "cli.md", "section sign": "\u00a7",
                "spec section": "pec ", "dractl issue": "ssue", "seed notes": "seed "}
# An absolute path of a developer's or CI machine (container paths such as /var/run/cdi are data).
MACHINE_PATH = re.compile(r"(?<![\w.~$}])/(?:work|home|Users|root|tmp|mnt|srv|opt)/[\w.-]"
                          r"|\b[A-Z]:\\\\?Users\\")
MACHINE_HINT = re.compile(r"/(?:work|home|Users|root|tmp|mnt|srv|opt)/|:\\\\")
# Repository paths named in text; the first segment must be a top-level directory of the checkout.
REPO_PATH = re.compile(r"(?<![\w./-])((?:dractl|tests|docs|scripts|benchmarks|testdata|examples|completions)"
                       r"/[\w./-]*?\.(?:py|md|yaml|yml|json|toml|txt|sh))(?:#([\w-]+))?(?![\w/-])")
MORE_ANCHORS = re.compile(r"(?:,[ \t]*(?:and[ \t]+)?#[\w-]+)*")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
ANCHOR_TAG = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _text_files() -> list[Path]:
    out = [REPO / name for name in SCANNED_FILES]
    for top in SCANNED_DIRS:
        for path in sorted((REPO / top).rglob("*")):
            rel = path.relative_to(REPO)
            if (path.is_file() and not SKIPPED_PARTS.intersection(rel.parts)
                    and path.suffix not in SKIPPED_SUFFIXES and not rel.parts[0].startswith(".venv")):
                out.append(path)
    return out


@functools.lru_cache(maxsize=1)
def _texts() -> dict[Path, str]:
    texts = {}
    for path in _text_files():
        try:
            texts[path] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path: Path) -> frozenset:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found, seen = set(ANCHOR_TAG.findall(text)), {}
    for _, title in HEADING.findall(text):
        slug = _slug(title)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return frozenset(found)


def _where(path: Path, text: str, pos: int) -> str:
    return f"{path.relative_to(REPO)}:{text.count(chr(10), 0, pos) + 1}"


def _check_target(target: Path, anchor: str | None) -> str | None:
    if not target.exists():
        return "no such file"
    if anchor and target.suffix == ".md" and anchor not in anchors(target):
        return f"no anchor #{anchor}"
    return None


def test_named_repository_paths_exist():
    """A path is checked when its directory exists here: `docs/user/x.md` in a comment about an
    upstream repository is not this repository's, `docs/api-and-scheduling.md` is."""
    problems = []
    for path, text in _texts().items():
        if path.relative_to(REPO).as_posix() in NAMES_MISSING_PATHS:
            continue
        for m in REPO_PATH.finditer(text):
            rel, anchor = m.group(1).rstrip("."), m.group(2)
            if (text[max(0, m.start() - 3):m.start()] == "../" or rel in RECIPE_PLACEHOLDERS
                    or re.search(r"\b(NNNN|NN|NAME)\b|\.NN\.", rel)):
                continue   # relative Markdown paths: test_markdown_links_resolve follows them
            if not (REPO / rel).parent.is_dir():
                continue
            # `docs/spec/allocator.md#a, #b`: the further anchors belong to the same document.
            more = re.findall(r"#([\w-]+)", MORE_ANCHORS.match(text, m.end()).group(0))
            for one in [anchor, *more] if anchor else [None]:
                problem = _check_target(REPO / rel, one)
                if problem:
                    problems.append(f"{_where(path, text, m.start())}: {m.group(0)}: {problem}")
    assert problems == []


def test_markdown_links_resolve():
    problems = []
    for path, text in _texts().items():
        if path.suffix != ".md":
            continue
        body = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        body = re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), body)
        for m in MD_LINK.finditer(body):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = (path.parent / file_part).resolve() if file_part else path
            problem = _check_target(resolved, anchor or None)
            if problem:
                problems.append(f"{_where(path, body, m.start())}: ({target}): {problem}")
    assert problems == []


def test_nothing_cites_documents_outside_the_repository():
    problems = []
    for path, text in _texts().items():
        if path == THIS:
            continue
        for name, pattern in OUTSIDE.items():
            if OUTSIDE_HINT[name] not in text:
                continue   # a plain substring test first: the scan covers 16 MB
            for m in pattern.finditer(text):
                problems.append(f"{_where(path, text, m.start())}: {name}: {text[m.start():m.start() + 40]!r}")
    assert problems == []


def test_no_absolute_machine_path_in_the_repository():
    problems = [f"{_where(path, text, m.start())}: {text[m.start():m.start() + 40]!r}"
                for path, text in _texts().items() if path != THIS and MACHINE_HINT.search(text)
                for m in MACHINE_PATH.finditer(text)]
    assert problems == []


def test_the_patterns_catch_what_they_are_for():
    cited = "see allocator-semantics \u00a73.4, issue #16 and /work/shared/docs/cel-notes.md; spec 3.6.4"
    assert {name for name, p in OUTSIDE.items() if p.search(cited)} == {
        "allocator-semantics", "cel-notes", "shared docs", "section sign", "spec section", "dractl issue"}
    assert not OUTSIDE["dractl issue"].search("upstream #141307 (issue #141323)")
    assert OUTSIDE["dractl issue"].search("Issue 6: PodGroups") and OUTSIDE["spec section"].search("spec 7a")
    assert not OUTSIDE["spec section"].search("must be a string compatible with semver.org spec 2.0.0")
    assert MACHINE_PATH.search("CORPUS = Path('/home/ci/corpus')") and MACHINE_HINT.search("/home/ci")
    assert set(OUTSIDE) == set(OUTSIDE_HINT)
    assert not MACHINE_PATH.search("mounted at /var/run/cdi and $TMPDIR/x")
    assert _slug("Big trees: `--jobs` and progress") == "big-trees---jobs-and-progress"
    spec = REPO / "docs" / "spec" / "allocator.md"
    assert _check_target(spec, "pool-order") is None and _check_target(spec, "no-such-anchor")
    assert MORE_ANCHORS.match("docs/x.md#a, #b and more", 11).group(0) == ", #b"


def test_spec_anchors_are_unique():
    for path in sorted((REPO / "docs" / "spec").glob("*.md")):
        ids = ANCHOR_TAG.findall(path.read_text(encoding="utf-8"))
        assert len(ids) == len(set(ids)), path.name


def test_decision_records_are_complete_and_listed():
    folder = REPO / "docs" / "decisions"
    index = (folder / "README.md").read_text(encoding="utf-8")
    records = sorted(p for p in folder.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert records
    for number, record in enumerate(records, start=1):
        assert record.name.startswith(f"{number:04d}-"), record.name
        text = record.read_text(encoding="utf-8")
        assert [h for h in re.findall(r"^## (.+)$", text, re.M)] == ["Context", "Decision", "Consequences"], record.name
        assert f"({record.name})" in index, record.name


# --- docs/architecture.md --------------------------------------------------------------------

ARCHITECTURE = REPO / "docs" / "architecture.md"
# Placeholders of the recipes: they must *not* exist, or following the recipe would collide.
RECIPE_PLACEHOLDERS = {"DRANewThing", "C_MY_CHECK", "dractl/report/names.py"}
# Kubernetes' own names that architecture.md quotes (status codes and Go functions upstream).
UPSTREAM_NAMES = {"Unschedulable", "UnschedulableAndUnresolvable", "Error", "FitError"}
# `dractl.io/ignore`, `resource.kubernetes.io/...`: annotation and label keys, not modules.
LABEL_KEY = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+/")
IDENT = re.compile(r"^[A-Za-z_][\w]*$")
BUILTINS = frozenset(dir(builtins))


@functools.lru_cache(maxsize=1)
def _defined_names() -> frozenset:
    """Every name dractl and its tests define: functions, classes, assignments, attributes,
    parameters, and the release switches (strings in the release table)."""
    names: set[str] = set()
    for path in list((REPO / "dractl").rglob("*.py")) + list((REPO / "tests").rglob("*.py")):
        if path.resolve() == THIS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[-1])
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and IDENT.match(node.value):
                if path.name in ("releases.py", "registry.py") or node.value.isupper():
                    names.add(node.value)
    return frozenset(names)


def _module_file(dotted: str) -> Path | None:
    base = REPO / "dractl" / Path(*dotted.split("/"))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _resolve_identifier(token: str) -> str | None:
    """None when `token` names something that exists, else why not."""
    token = token.split("(", 1)[0].strip()
    if not token or token.startswith(("-", '"', "'")) or any(c in token for c in ' ="[<>*,'):
        return None
    if (token in RECIPE_PLACEHOLDERS or token.split(".")[0] in UPSTREAM_NAMES or token.endswith(".go")
            or LABEL_KEY.match(token)):
        return None
    if token.endswith("/"):
        return None if _path_exists(token.rstrip("/")) else "no such directory"
    if re.search(r"\.(py|md|yaml|yml|json|txt)$|\.\{", token):
        return None if all(_path_exists(p) for p in _expand_braces(token)) else "no such file"
    if "/" in token:                              # module/path.attr.attr
        module, _, attrs = token.partition(".")
        path = _module_file(module)
        if path is None:
            return "no such module"
        source = path.read_text(encoding="utf-8")
        missing = [a for a in attrs.split(".") if not re.search(rf"\b{re.escape(a)}\b", source)]
        return f"not in {path.relative_to(REPO)}: {missing}" if missing else None
    parts = token.split(".")
    if parts[0] == "dractl":
        found = _module_file("/".join(parts[1:-1])) or _module_file("/".join(parts[1:]))
        return None if found else "no such module"
    if len(parts) == 1 and not (token[:1].isupper() or "_" in token):
        return None                               # a plain lower-case word of the prose
    # The first part of `cluster.touch` is a variable of the prose; a class (`Result.failed`) is
    # checked. lowerCamelCase parts are Kubernetes fields or Go names (`spec.nodeName`).
    checked = parts if parts[0][:1].isupper() or len(parts) == 1 else parts[1:]
    missing = [p for p in checked if IDENT.match(p) and not re.search(r"^[a-z]+[A-Z]", p)
               and p not in _defined_names() and p not in BUILTINS]
    return f"not defined in dractl/ or tests/: {missing}" if missing else None


def _expand_braces(token: str) -> list[str]:
    m = re.search(r"\{([^}]*)\}", token)
    if not m:
        return [token]
    return [token[:m.start()] + choice + token[m.end():] for choice in m.group(1).split(",")]


def _path_exists(token: str) -> bool:
    """A path from the repository root, from dractl/, or the tail of a path somewhere in it
    (architecture.md names `shortcuts.py` in the section on dractl/simulate/)."""
    if (REPO / token).exists() or (REPO / "dractl" / token).exists():
        return True
    name = token.rsplit("/", 1)[-1]
    return any(p.as_posix().endswith("/" + token) for top in ("dractl", "tests")
               for p in (REPO / top).rglob(name))


def test_every_identifier_architecture_md_names_exists():
    text = FENCE.sub("", ARCHITECTURE.read_text(encoding="utf-8"))
    problems = []
    for m in re.finditer(r"`([^`\n]+)`", text):
        why = _resolve_identifier(m.group(1))
        if why:
            problems.append(f"docs/architecture.md:{text.count(chr(10), 0, m.start()) + 1}: `{m.group(1)}`: {why}")
    assert problems == []


def test_the_identifier_check_notices_what_is_gone():
    assert _resolve_identifier("_GATE_DEFAULTS") and _resolve_identifier("_LOCKED")
    assert _resolve_identifier("pipeline/sources.no_such_function")
    assert _resolve_identifier("dractl/no_such_module.py")
    assert _resolve_identifier("Result.failed") is None and _resolve_identifier("ALLOCATOR_GATES") is None
    assert _resolve_identifier("gates.key()") is None and _resolve_identifier("shortcuts.py") is None
    assert _resolve_identifier("dractl.io/ignore") is None and _resolve_identifier("FitError.Error()") is None


def _recipe(title: str) -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


@functools.lru_cache(maxsize=1)
def _registered_codes() -> frozenset:
    from dractl.cli.app import app

    result = CliRunner().invoke(app, ["codes", "-o", "json"])
    assert result.exit_code == 0, result.output
    return frozenset(entry["code"] for entry in json.loads(result.stdout))


def test_the_rule_recipe_uses_a_free_code():
    codes = set(re.findall(r"DRA\d{4}", _recipe("Adding an API-server rule")))
    assert len(codes) == 1, codes
    code = codes.pop()
    assert code.startswith("DRA10"), "the example is a ResourceClaim rule (codes 10xx)"
    assert "DRA1001" in _registered_codes() and code not in _registered_codes(), code


@pytest.mark.parametrize("placeholder", sorted(RECIPE_PLACEHOLDERS))
def test_recipe_placeholders_stay_free(placeholder):
    if "/" in placeholder:
        assert not (REPO / placeholder).exists()
    else:
        assert placeholder not in _defined_names()
    assert placeholder in ARCHITECTURE.read_text(encoding="utf-8")
