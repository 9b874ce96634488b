"""The release table (dractl/api/releases.py): its mechanics, the one version parser, the generated
docs/releases.md, and that no code compares releases by itself. (Each switch's effect on both
sides of its release: tests/conformance/test_release_switches.py.)"""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from dractl.api import releases
from dractl.api.releases import (
    ALLOCATOR,
    CHANGES,
    Change,
    CherryPick,
    UnknownChangeError,
    changes_in_force,
    in_force,
    normalize,
    release_key,
)
from dractl.api.versions import KUBE_VERSIONS

REPO = Path(__file__).resolve().parents[2]


def test_docs_releases_md_is_generated_from_the_table():
    doc = (REPO / "docs" / "releases.md").read_text(encoding="utf-8")
    assert doc == releases.markdown(), \
        "docs/releases.md is stale: python -m dractl.api.releases > docs/releases.md"


@pytest.mark.parametrize("text, key", [("1.37", (1, 37)), ("v1.37", (1, 37)), ("1.37.2", (1, 37)),
                                       ("1.37.0-rc.1", (1, 37)), (" 1.9 ", (1, 9)), ("1.100", (1, 100))])
def test_release_key_reads_every_form(text, key):
    assert release_key(text) == key
    assert normalize(text) == f"{key[0]}.{key[1]}"


@pytest.mark.parametrize("text", ["", "1", "1.x", "one.two", "1.37.2.1", None, 1.37])
def test_release_key_rejects_what_is_not_a_version(text):
    with pytest.raises(ValueError):
        release_key(text)
    assert normalize(text) is None


def test_minor_versions_compare_as_numbers():
    assert release_key("1.9") < release_key("1.10") < release_key("2.0")


def test_first_release_and_cherry_picks_decide():
    row = Change("x", "1.38", "kubernetes/kubernetes#1", ALLOCATOR, "m",
                 (CherryPick("1.36", "kubernetes/kubernetes#2"),))
    assert [row.in_force(v) for v in ("1.35", "1.36", "1.37", "1.38", "1.39")] == \
        [False, True, False, True, True]


def test_unknown_switch_is_a_programming_error():
    with pytest.raises(UnknownChangeError):
        in_force("no_such_switch", "1.37")


def test_table_rows_are_well_formed():
    names = [c.name for c in CHANGES]
    assert len(names) == len(set(names))
    for c in CHANGES:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", c.name), c.name
        assert c.area in releases.AREAS, c
        assert c.meaning and c.upstream, c
        release_key(c.since)
        for pick in c.cherry_picks:
            assert release_key(pick.release) < release_key(c.since), c
            assert re.fullmatch(r"kubernetes/kubernetes#\d+", pick.pr), pick


def test_changes_in_force_per_release_matches_rows():
    for version in KUBE_VERSIONS:
        assert changes_in_force(version) == {c.name for c in CHANGES if c.in_force(version)}


def test_allocator_compat_has_one_field_per_allocator_row():
    from dractl.allocator import Compat
    from dractl.allocator.features import FIX_SWITCHES

    rows = {c.name for c in CHANGES if c.area == ALLOCATOR}
    assert {f.name for f in fields(Compat)} == rows
    assert set(FIX_SWITCHES.values()) == rows
    assert Compat() == Compat(**{name: False for name in rows})     # the snapshot: all off


def test_every_switch_is_read_by_dractl():
    """A switch nobody reads is a row that documents behaviour dractl does not have."""
    sources = {p: p.read_text(encoding="utf-8") for p in (REPO / "dractl").rglob("*.py")
               if p.name != "releases.py" and "schemas" not in p.parts}
    from dractl.allocator import Compat
    compat_fields = {f.name for f in fields(Compat)}
    for c in CHANGES:
        quoted = re.compile(rf"[\"']{c.name}[\"']")
        readers = [p for p, text in sources.items() if quoted.search(text)]
        if c.name in compat_fields:   # read as Compat attributes by the allocator
            readers += [p for p, text in sources.items() if f".{c.name}" in text]
        assert readers, f"no code reads release switch {c.name}"


# Release arithmetic that is not a behaviour switch: the gate table's own resolution
# (versions.py) and --min-compatibility-version's allowed window (component-base's rule).
_PARSER_USERS = {"dractl/api/releases.py", "dractl/api/versions.py", "dractl/cli/common.py"}
_RAW = [
    (re.compile(r"\bat_least\("), "Emitter.at_least (use em.in_force)"),
    (re.compile(r"\b(version_tuple|release_key)\("), "a release parsed for a comparison"),
    (re.compile(r"[<>=!]=?\s*\(\s*1\s*,\s*\d{2}\s*\)|\(\s*1\s*,\s*\d{2}\s*\)\s*[<>=!]=?"), "a (1, NN) tuple compare"),
    (re.compile(r"""[<>]=?\s*["']1\.\d+["']|["']1\.\d+["']\s*[<>]=?"""), "a release string compare"),
    (re.compile(r"""\.split\(["']\.["']\)\[:2\]"""), "a hand-made version parser"),
]


def test_no_raw_release_comparisons_outside_the_table():
    found = []
    for path in sorted((REPO / "dractl").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if "schemas" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            for pattern, what in _RAW:
                if pattern.search(code) and not (rel in _PARSER_USERS and what != _RAW[0][1]):
                    found.append(f"{rel}:{number}: {what}: {line.strip()}")
    assert not found, "ask dractl.api.releases.in_force instead:\n" + "\n".join(found)


# Sizes that are not limits of the Kubernetes API.
_NOT_API_LIMITS = {
    "SHOWN_VALUE_MAX",      # how much of a bad value a dractl message quotes
    "INT64_MAX", "UINT64_MAX",  # CEL's integer ranges
    "DEFAULT_MAX",          # dractl capacity --fit's default search bound
}


def test_limits_are_defined_only_in_limits_module():
    """The API's limits live in dractl/api/limits.py; modules import them."""
    definition = re.compile(r"^[A-Z][A-Z0-9_]*_(MAX|MAX_[A-Z0-9_]+|MAX_LENGTH|MAX_SIZE|MAX_BYTES)\s*=\s*[0-9]")
    found = []
    for folder in ("validate", "cel", "api", "allocator", "simulate", "capacity"):
        for path in sorted((REPO / "dractl" / folder).rglob("*.py")):
            if path.name == "limits.py" or "schemas" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if definition.match(line) and line.split("=")[0].strip() not in _NOT_API_LIMITS:
                    found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, "define API limits in dractl/api/limits.py:\n" + "\n".join(found)
