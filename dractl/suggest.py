""""Did you mean ...?" -- exactly difflib.get_close_matches(word, candidates, n=1), made fast.

An input with thousands of similar names (claim-0001, claim-0002, ...) made difflib compute the
full similarity ratio for nearly every candidate: a second per 100 unresolved references. The
ratio can never exceed the cheap `quick_ratio` bound, so candidates are tried in order of that
bound and the search stops once no remaining one can beat (or tie) the best ratio found.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Iterable


def closest_match(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    matcher = SequenceMatcher()
    matcher.set_seq2(word)
    bounded: list[tuple[float, str]] = []
    for candidate in candidates:
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() >= cutoff:
            bound = matcher.quick_ratio()
            if bound >= cutoff:
                bounded.append((bound, candidate))
    bounded.sort(key=lambda item: item[0], reverse=True)
    best: tuple[float, str] | None = None
    for bound, candidate in bounded:
        if best is not None and bound < best[0]:
            break  # ratio <= bound: nothing left can reach the best ratio
        matcher.set_seq1(candidate)
        ratio = matcher.ratio()
        # difflib keeps the largest (ratio, candidate) tuple: equal ratios go to the larger name.
        if ratio >= cutoff and (best is None or (ratio, candidate) > best):
            best = (ratio, candidate)
    return best[1] if best else None
