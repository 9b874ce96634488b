"""Whitespace around a quantity, as upstream treats it (kubernetes/apimachinery
pkg/api/resource/quantity.go): ParseQuantity rejects it with ErrFormatWrong (quantity_test.go
lists " 1" and "1 " as invalid), while the API server's decoding of an object
(Quantity.UnmarshalJSON / UnmarshalCBOR) trims it first (strings.TrimSpace; TestJSONWhitespace),
so a manifest's `value: "1Gi\\n"` is stored as 1Gi."""

from __future__ import annotations

import pytest

from dractl.api.quantity import Quantity, QuantityError

FORMAT_WRONG = ("quantities must match the regular expression "
                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
SPACED = [" 1", "1 ", "1\n", "\t1", "1\r\n", "\u00a01", "1\u3000"]


@pytest.mark.parametrize("text", SPACED + ["", "1 Gi", "1\x1c"])
def test_parse_quantity_takes_no_whitespace(text):
    with pytest.raises(QuantityError) as info:
        Quantity.parse(text)
    assert str(info.value) == FORMAT_WRONG
    assert not Quantity.is_valid(text)


@pytest.mark.parametrize("text", SPACED)
def test_manifest_values_are_trimmed_like_unmarshal_json(text):
    assert Quantity.from_manifest(text) == Quantity.parse("1")
    assert Quantity.is_valid_manifest_value(text)
    assert Quantity.from_manifest("1Gi\n").canonical() == "1Gi"


@pytest.mark.parametrize("text", ["", " ", "1 Gi", "1\x1c", "\x1f1"])
def test_what_trimming_leaves_invalid_stays_invalid(text):
    # U+001C..U+001F: Python's str.strip() removes them, Go's strings.TrimSpace does not.
    with pytest.raises(QuantityError) as info:
        Quantity.from_manifest(text)
    assert str(info.value) == FORMAT_WRONG


SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: dra.example.com
  nodeName: n1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: dev
    capacity:
      memory:
        value: |
          1Gi
      bad: {value: "1 Gi"}
"""


def test_validate_accepts_a_block_scalar_quantity_as_the_api_server_does(tmp_path):
    from dractl.api.resource import ResourceSlice
    from dractl.api.versions import parse_feature_gates
    from dractl.load.loader import load_paths
    from dractl.validate.pipeline import validate_documents

    (tmp_path / "s.yaml").write_text(SLICE)
    loaded = load_paths([str(tmp_path / "s.yaml")])
    assert loaded.documents[0].data["spec"]["devices"][0]["capacity"]["memory"]["value"] == "1Gi\n"
    findings = validate_documents(loaded, parse_feature_gates("", "1.37")).findings
    errors = [(f.code, f.message) for f in findings if f.severity == "error"]
    assert errors == [("DRA0104", f'Invalid value: "1 Gi": {FORMAT_WRONG}')]
    typed = ResourceSlice.from_dict({"spec": {"driver": "d", "devices": [
        {"name": "dev", "capacity": {"memory": {"value": "1Gi\n"}}}]}})
    assert typed.devices[0].capacity["memory"] == Quantity.parse("1Gi")
