"""Where the third-party real-world corpus is, and what a test does when it is absent.

The corpus (175 DRA manifests copied verbatim from 12 public repositories, with INDEX.md and
SOURCES.tsv) is not part of the repository: its files carry their authors' licences. It is
expected next to the checkout, at `../shared/realworld`, or wherever `$DRACTL_REALWORLD` points.
A test that needs it calls `require_realworld()`: skipped (and counted in the pytest summary,
see tests/conftest.py) when the corpus is absent, failed under `CI=true`, where an absent corpus
is a broken CI setup rather than a fresh clone.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REALWORLD = Path(os.environ.get("DRACTL_REALWORLD") or REPO.parent / "shared" / "realworld")
SKIP_REASON = "third-party realworld corpus absent"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def require_realworld(path: Path | None = None) -> Path:
    """The corpus directory (or `path` inside it); skip, or fail under CI, when it is absent."""
    target = REALWORLD if path is None else path
    if not target.exists():
        if in_ci():
            pytest.fail(f"{SKIP_REASON} under CI=true: {target} (set DRACTL_REALWORLD)", pytrace=False)
        pytest.skip(f"{SKIP_REASON}: {target}")
    return target
