"""The finding-code table, gathered from every module that registers codes."""

from __future__ import annotations

import importlib

from dractl.findings import CODES, RuleDoc

# Modules that register codes at import time.
_CODE_MODULES = (
    "dractl.load.parse",
    "dractl.validate.pipeline",
    "dractl.validate.schema",
    "dractl.validate.rules",
    "dractl.validate.refs",
    "dractl.validate.envlints",
    "dractl.simulate.reasons",
    "dractl.downward",
)


def load_all_codes() -> list[RuleDoc]:
    for name in _CODE_MODULES:
        importlib.import_module(name)  # a missing module is a bug, not an option
    return [CODES[c] for c in sorted(CODES)]
