"""Repeated findings in text output: the same finding on many list items of one file is one
line at the first location with the count ("52 devices: ..."); machine formats keep them all."""

from __future__ import annotations

from dractl.cli import outputs
from dractl.findings import Finding
from dractl.report.findings_text import print_findings

MESSAGE = "consumesCounters needs feature gate DRAPartitionableDevices"


def device_finding(slice_name: str, index: int, line: int) -> Finding:
    return Finding("warning", "DRA1910", MESSAGE, ("spec", "devices", index, "consumesCounters"),
                   file="builtin:nvidia-mig", line=line, column=5, kind="ResourceSlice", name=slice_name)


def text(findings) -> list[str]:
    return outputs.stable_text(lambda console: print_findings(console, findings), plain=True).splitlines()


def test_many_devices_are_one_line_at_the_first_location():
    findings = [device_finding("slice-a", i, 100 + i) for i in range(30)]
    findings += [device_finding("slice-b", i, 200 + i) for i in range(24)]
    assert text(findings) == [
        "builtin:nvidia-mig:100:5  DRA1910  warning  54 devices: spec.devices[*].consumesCounters: "
        f"{MESSAGE}  (ResourceSlice slice-a and 1 more)"]


def test_a_handful_of_repeats_stays_separate():
    findings = [device_finding("slice-a", i, 100 + i) for i in range(4)]
    assert len(text(findings)) == 4


def test_different_messages_or_codes_are_not_merged():
    findings = [device_finding("s", i, 10 + i) for i in range(6)]
    other = [f.located(message=MESSAGE + f" {i}") for i, f in enumerate(findings)]
    assert len(text(other)) == 6
    assert len(text(findings + [findings[0].located(code="DRA1911", line=99)])) == 2


def test_separate_objects_or_documents_keep_their_own_lines():
    """The same field of many objects, or file-level errors of many documents, are separate
    places to fix: every one keeps its location."""
    same_field = [Finding("warning", "DRA2003", "class x is not among the inputs", ("spec", "deviceClassName"),
                          file="a.yaml", line=i * 10, column=3, kind="ResourceClaim", name=f"c{i}")
                  for i in range(1, 8)]
    no_field = [Finding("error", "DRA0001", "syntax error", (), file="b.yaml", line=i, column=1) for i in range(7)]
    assert len(text(same_field)) == 7
    assert len([line for line in text(no_field) if line]) == 7
