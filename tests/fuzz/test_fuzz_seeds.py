"""The fuzzers' seeds (fuzz_seeds.py) include the third-party real-world corpus when it is there:
without it they still run on examples/ and the built-in inventories, so its absence is reported
here, like every corpus test (tests/realworld_corpus.py), rather than silently fuzzing less."""

from __future__ import annotations

from fuzz_seeds import scenarios
from realworld_corpus import require_realworld


def test_realworld_manifests_are_fuzz_seeds():
    require_realworld()
    names = [scenario.name for scenario in scenarios()]
    assert sum(name.startswith("realworld/") for name in names) > 100
    assert sum(name.startswith("examples/") for name in names) >= 3
