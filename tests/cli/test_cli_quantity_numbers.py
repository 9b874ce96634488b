"""Quantities written as YAML numbers (`cpu: 0.5`), as the API server reads them: kubectl sends
the JSON number, Quantity.UnmarshalJSON parses its text (kubernetes/apimachinery
pkg/api/resource/quantity.go). A float used to fail dractl's manifest decoding, so a pod's
`cpu: 0.5` request went uncounted by NodeResourcesFit and a claim's `memory: 1.5` capacity
request was refused with a format error."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run

from dractl.api.quantity import Quantity, QuantityError, go_json_number


@pytest.mark.parametrize("number,text", [(0.5, "0.5"), (1.0, "1"), (-2.5, "-2.5"), (0.0, "0"),
                                         (1e16, "10000000000000000"), (1e21, "1e+21"),
                                         (1.5e22, "1.5e+22"), (1e-7, "1e-7"), (1e-6, "0.000001")])
def test_floats_are_read_as_the_text_go_json_writes(number, text):
    assert go_json_number(number) == text
    assert Quantity.from_manifest(number) == Quantity.parse(text)


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_numbers_are_not_quantities(number):
    with pytest.raises(QuantityError):
        Quantity.from_manifest(number)


NODE_AND_PODS = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "1", memory: 8Gi, pods: "110"}
""" + "".join(f"""\
---
apiVersion: v1
kind: Pod
metadata: {{name: p{i}, namespace: default}}
spec:
  containers:
  - name: c
    image: x
    resources:
      requests: {{cpu: 0.6}}
""" for i in range(2))


def test_a_fractional_cpu_request_written_as_a_number_is_counted(tmp_path):
    (tmp_path / "in.yaml").write_text(NODE_AND_PODS)
    result = run("allocate", str(tmp_path / "in.yaml"), "-o", "json")
    assert result.code == 1, result  # 0.6 + 0.6 CPU do not fit on one CPU
    pods = {p["name"]: p["status"] for p in json.loads(result.out)["pods"]}
    assert sorted(pods.values()) == ["Scheduled", "Unschedulable"], pods
