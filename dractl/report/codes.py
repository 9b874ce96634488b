"""The finding-code table, gathered from every module that registers codes."""

from __future__ import annotations

import importlib

from dractl.validate.findings import CODES, RuleDoc

# Modules that register codes at import time.
_CODE_MODULES = (
    "dractl.load.parse",
    "dractl.validate.pipeline",
    "dractl.validate.schema",
    "dractl.validate.rules",
    "dractl.validate.refs",
)


def load_all_codes() -> list[RuleDoc]:
    for name in _CODE_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    return [CODES[c] for c in sorted(CODES)]
