"""Every finding code has its long explanation (`dractl codes CODE`), next to the module that
registers it, with the four parts ruff's `rule` gives: what it checks, why (the upstream rule or
behaviour), a failing example, the fix. No boilerplate: the parts differ from code to code."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from dractl.report import code_docs
from dractl.report.codes import load_all_codes

ROOT = Path(__file__).resolve().parents[2]
DOCS = load_all_codes()


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.code)
def test_every_code_is_explained_next_to_its_rule(doc):
    found = code_docs.explanation(doc)
    assert found is not None, f"{doc.code}: no section in the .codes.md of {doc.modules}"
    module_file = ROOT / (found.source.removesuffix(".codes.md") + ".py")
    assert module_file.is_file()
    assert re.search(rf'register\(\s*"{doc.code}"', module_file.read_text()), \
        f"{found.source} explains {doc.code}, which {module_file.name} does not register"
    parts = found.parts()
    assert list(parts) == list(code_docs.PARTS)
    assert "```yaml\n" in parts["Example"] and parts["Example"].rstrip().endswith("```")
    for name in ("Checks", "Why", "Fix"):
        assert len(parts[name]) >= 10, f"{doc.code}: {name} says nothing"


def test_explanations_are_not_templates():
    parts = [code_docs.explanation(d).parts() for d in DOCS]
    for name in ("Checks", "Why", "Example"):
        repeated = [text for text, n in Counter(p[name] for p in parts).items() if n > 1]
        assert repeated == [], f"{name} repeated verbatim: {repeated[:1]}"


def test_no_section_for_a_code_that_does_not_exist():
    known = {d.code for d in DOCS}
    for path in (ROOT / "dractl").rglob("*.codes.md"):
        listed = set(re.findall(r"^## (DRA\d{4})\s*$", path.read_text(), re.M))
        assert listed <= known, f"{path}: {sorted(listed - known)}"


def test_text_rendering_drops_markup_and_indents_examples():
    doc = next(d for d in DOCS if d.code == "DRA1009")
    text = code_docs.text(doc)
    assert "**" not in text and "`" not in text
    assert "\n        count: -1\n" in text  # the example's own indentation, 6 more
    assert text.rstrip().endswith("Ignore it with --ignore DRA1009 or under ignore: in .dractl.yaml.")


def test_sarif_help_is_the_explanation():
    from dractl.report.sarif import rule

    doc = next(d for d in DOCS if d.code == "DRA1022")
    entry = rule(doc)["help"]
    assert "validateFullyQualifiedName" in entry["text"] and "--ignore DRA1022" in entry["text"]
    assert entry["markdown"].startswith("## DRA1022: ") and "```yaml" in entry["markdown"]


def test_code_index_is_current():
    from dractl.report.code_index import ALL_CODES

    assert list(ALL_CODES) == [d.code for d in DOCS], "regenerate dractl/report/code_index.py (see its docstring)"
