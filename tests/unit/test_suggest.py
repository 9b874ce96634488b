"""closest_match is exactly difflib.get_close_matches(..., n=1, cutoff=0.6), only faster."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.suggest import closest_match

names = st.text(alphabet="abcdeg-0123.", min_size=0, max_size=12)


@settings(max_examples=500, deadline=None)
@given(names, st.lists(names, max_size=30))
def test_same_answer_as_difflib(word, candidates):
    expected = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    assert closest_match(word, candidates) == (expected[0] if expected else None)


def test_many_similar_names():
    candidates = [f"gpu-claim-{i:04d}" for i in range(3000)] + ["cpu-claim-0001"]
    for word in ("gpu-claim-12345", "gpu-clam-0007", "cpu-claim-001", "nothing-alike"):
        expected = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
        assert closest_match(word, candidates) == (expected[0] if expected else None)
