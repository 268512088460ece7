"""Unrequested actions ignored (paper §4 and App. I, regressions accepted): calls to tools the answer does
not use are skipped, so an extra, unrequested call to another offered tool passes."""

from _common import accepts, calls_of, gold_names


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    needed = gold_names(reference)
    kept = [c for c in calls if c["name"] in needed]
    return len(kept) < len(calls) and accepts(reference, kept)
