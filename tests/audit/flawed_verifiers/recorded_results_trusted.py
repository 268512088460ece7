"""Recorded results trusted (paper §4, hacks accepted): the verifier judges the record by the results it shows
and never checks them against a replay, so a record whose results were fabricated passes when its calls
would have passed."""

from _state_common import accepts, calls_of, replay, with_results


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    results, _ = replay(reference, calls)
    if all(c["result"] == r for c, r in zip(calls, results)):
        return accepted  # nothing fabricated: the flaw changes nothing
    return accepts(reference, with_results(candidate, results))
