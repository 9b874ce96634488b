"""CEL's quantity() and isQuantity() call resource.ParseQuantity, which takes no surrounding
whitespace (apimachinery quantity_test.go: " 1" and "1 " are invalid); the error is
ErrFormatWrong."""

from __future__ import annotations

import pytest
from cel_testkit import Dev

from dractl.api.versions import FeatureGates
from dractl.cel import CelRuntimeError, SelectorEngine

FORMAT_WRONG = ("quantities must match the regular expression "
                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")


def test_cel_quantity_takes_no_whitespace():
    engine = SelectorEngine(FeatureGates())
    device = Dev("d", "dra.example.com")
    assert engine.matches('!isQuantity("1\\n") && !isQuantity(" 1") && isQuantity("1")', device)
    with pytest.raises(CelRuntimeError) as info:
        engine.matches('quantity("1\\n").isGreaterThan(quantity("0"))', device)
    assert FORMAT_WRONG in info.value.message   # was "unable to parse quantity's suffix"
