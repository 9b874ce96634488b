"""dractl/schemas/history.json (scripts/gen_api_history.py): what older releases served, read by
the hints for apiVersions, kinds and fields that are gone (dractl.validate.apiversions)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dractl.validate import apiversions

REPO = Path(__file__).resolve().parents[2]


def test_history_is_current():
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_api_history.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_history_knows_the_removed_dra_versions_and_fields():
    assert apiversions.served_range("resource.k8s.io/v1alpha2", "ResourceClaim") == ("1.27", "1.30")
    assert apiversions.served_range("scheduling.k8s.io/v1", "PriorityClass") == ("1.25", "1.37")
    fields = apiversions.history()["fields"]
    assert fields["io.k8s.api.core.v1.PodResourceClaim"]["source"] == ["1.26", "1.30"]
    assert fields["io.k8s.api.core.v1.PodSpec"]["workloadRef"] == ["1.35", "1.35"]


def test_a_range_reaching_the_newest_release_stays_open():
    span = apiversions.served_range("scheduling.k8s.io/v1", "PriorityClass")
    assert apiversions.served_in(span, "1.38") and apiversions.served_in(span, "1.34")
    old = apiversions.served_range("resource.k8s.io/v1alpha3", "ResourceClaim")
    assert not apiversions.served_in(old, "1.34") and apiversions.served_in(old, "1.32")
