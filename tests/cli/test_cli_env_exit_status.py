"""`dractl env` exits like validate and allocate on error findings: 1 (0 with --exit-zero),
0 on clean input whose references resolve. `--metadata` is a prediction that prints no
findings: it exits 0."""

from __future__ import annotations

import pytest
from cli_helpers import REPO

BROKEN = str(REPO / "examples" / "broken.yaml")
GPU_POD = str(REPO / "examples" / "gpu-pod.yaml")


@pytest.mark.parametrize("command", [["validate"], ["allocate"], ["env"]])
def test_error_findings_exit_1_and_exit_zero_makes_it_0(dractl, command):
    failing = dractl(*command, BROKEN, "-o", "json")
    assert failing.code == 1, failing.err
    assert '"severity": "error"' in failing.out
    passing = dractl(*command, BROKEN, "-o", "json", "--exit-zero")
    assert passing.code == 0 and passing.out == failing.out


def test_the_metadata_view_stays_a_prediction(dractl):
    result = dractl("env", "--metadata", BROKEN, "-o", "json")
    assert result.code == 0, result.out


@pytest.mark.parametrize("command", [["env"], ["env", "--metadata"]])
def test_clean_input_exits_0(dractl, command):
    result = dractl(*command, "-i", "builtin:example-gpu", GPU_POD)
    assert result.code == 0, result.out + result.err


def test_a_failing_reference_still_exits_1_without_error_findings(dractl, tmp_path):
    # The reference names an attribute no device has: a dry-run failure, not a finding.
    text = (REPO / "examples" / "gpu-pod.yaml").read_text()
    assert "attribute: gpu.example.com/uuid" in text, "gpu-pod.yaml changed its env reference"
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(text.replace("attribute: gpu.example.com/uuid", "attribute: gpu.example.com/nosuch"))
    validated = dractl("validate", "-i", "builtin:example-gpu", str(manifest))
    assert validated.code == 0, validated.out
    failing = dractl("env", "-i", "builtin:example-gpu", str(manifest))
    assert failing.code == 1, failing.out
    assert "nosuch" in failing.out
