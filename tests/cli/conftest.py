"""Fixtures of the CLI tests (helpers live in cli_helpers.py, importable by name)."""

from __future__ import annotations

import pytest
from cli_helpers import make_tree, run


@pytest.fixture
def dractl():
    """dractl(*args, cwd=None, stdin=None, env=None) -> Result, run in this process."""
    return run


@pytest.fixture
def tree(tmp_path):
    return make_tree(tmp_path)
