"""Which finding codes a run reports: `--ignore` and `--select` as ruff reads them.

Values are comma-separated and repeatable (`--ignore DRA2003,DRA1417 --ignore DRA6`), case does
not matter, and each is a code (`DRA1009`) or a prefix of codes (`DRA6`: every env code). A value
that names no code is a usage error with the closest code, never silently nothing.
"""

from __future__ import annotations

import re
from typing import Iterable

from dractl.pipeline.errors import UsageError

_PREFIX = re.compile(r"^DRA\d{0,4}$")


def split_values(values: Iterable[str] | None) -> list[str]:
    out = []
    for value in values or ():
        out.extend(part.strip().upper() for part in value.split(",") if part.strip())
    return out


def expand(values: Iterable[str] | None, option: str, known: Iterable[str]) -> frozenset:
    """The codes that `values` (codes or prefixes) stand for; UsageError for one that names
    none."""
    from dractl.suggest import closest_match

    codes = sorted(known)
    out: set[str] = set()
    for value in split_values(values):
        matched = [c for c in codes if c.startswith(value)] if _PREFIX.match(value) else []
        if not matched:
            guess = closest_match(value, codes)
            hint = f"; did you mean {guess}?" if guess else ""
            raise UsageError(f"{option} {value}: not a finding code or a prefix of codes{hint} "
                             "(see `dractl codes`)")
        out.update(matched)
    return frozenset(out)


def ignored_codes(ignore: Iterable[str] | None, select: Iterable[str] | None,
                  config_ignore: Iterable[str], config_name: str) -> frozenset:
    """Everything not to report: the config's and --ignore's codes, plus every code outside
    --select when it is given."""
    from dractl.report.code_index import ALL_CODES

    known = list(ALL_CODES)
    dropped = set(expand(config_ignore, f"{config_name}: ignore:", known))
    dropped |= expand(ignore, "--ignore", known)
    if select is not None and split_values(select):
        dropped |= set(known) - expand(select, "--select", known)
    return frozenset(dropped)
