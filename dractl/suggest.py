""""Did you mean ...?" -- exactly difflib.get_close_matches(word, candidates, n=1), made fast.

An input with thousands of similar names (claim-0001, claim-0002, ...) made difflib compute the
full similarity ratio for nearly every candidate: a second per 100 unresolved references. The
ratio can never exceed the cheap `quick_ratio` bound, so candidates are tried in order of that
bound and the search stops once no remaining one can beat (or tie) the best ratio found.

The bound itself (difflib's quick_ratio: the characters two strings share, counted as
multisets) was then most of the time: one Python loop per candidate and call. It only depends on
the candidate's character counts, so those are computed once per candidate list (the same list
of names is offered for every unresolved reference of a kind) and shared by all candidates with
the same counts; the bound is computed with difflib's own formula, so it is the same float.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Iterable

# Candidate lists seen recently -> (their names grouped by character counts, the answers given
# so far as (word, cutoff) -> name). Small: a run offers a handful of distinct lists (one per kind
# of reference target), and the same name is often missing from many documents.
_CACHE: dict[tuple[str, ...], tuple[list[tuple[int, tuple, list[str]]], dict]] = {}
_CACHE_SIZE = 8


def closest_match(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    groups, answers = _cached(_as_tuple(candidates))
    key = (word, cutoff)
    if key not in answers:
        if len(answers) >= 4096:
            answers.clear()
        answers[key] = _closest(word, groups, cutoff)
    return answers[key]


def _closest(word: str, groups: list, cutoff: float) -> str | None:
    # The order of candidates with equal bounds does not change the answer: every candidate
    # whose bound reaches the best ratio is compared, and ties go to the larger name.
    bounded = _bounded(word, groups, cutoff)
    bounded.sort(key=lambda item: item[0], reverse=True)
    matcher = SequenceMatcher()
    matcher.set_seq2(word)
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


def _bounded(word: str, groups: list, cutoff: float) -> list[tuple[float, str]]:
    """(quick_ratio, candidate) for every candidate whose real_quick_ratio and quick_ratio reach
    the cutoff (difflib's two cheap bounds, same formulas), grouped by character counts."""
    word_counts: dict[str, int] = {}
    for ch in word:
        word_counts[ch] = word_counts.get(ch, 0) + 1
    lb = len(word)
    out: list[tuple[float, str]] = []
    for la, counts, names in groups:
        length = la + lb
        # real_quick_ratio: the length bound
        if (2.0 * min(la, lb) / length if length else 1.0) < cutoff:
            continue
        matches = 0
        for ch, n in counts:
            have = word_counts.get(ch)
            if have:
                matches += n if n < have else have
        bound = 2.0 * matches / length if length else 1.0
        if bound >= cutoff:
            for name in names:
                out.append((bound, name))
    return out


def _as_tuple(candidates: Iterable[str]) -> tuple[str, ...]:
    return candidates if isinstance(candidates, tuple) else tuple(candidates)


def _cached(candidates: tuple[str, ...]) -> tuple[list[tuple[int, tuple, list[str]]], dict]:
    entry = _CACHE.get(candidates)
    if entry is None:
        by_counts: dict[tuple, list[str]] = {}
        for name in candidates:
            counts: dict[str, int] = {}
            for ch in name:
                counts[ch] = counts.get(ch, 0) + 1
            by_counts.setdefault(tuple(sorted(counts.items())), []).append(name)
        groups = [(sum(n for _, n in counts), counts, names) for counts, names in by_counts.items()]
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        entry = _CACHE[candidates] = (groups, {})
    return entry
