"""Writes outside the expected ones ignored (paper §4 and App. I, regressions accepted): the verifier looks only
at the calls the gold interaction makes (each at most as often as the gold makes it) and skips every other
call, so an unrequested or repeated write passes."""

from _state_common import accepts, calls_of, gold_calls, only_calls, signature


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    expected = [signature(c) for c in gold_calls(reference)]
    kept = set()
    for position, call in enumerate(calls):
        if signature(call) in expected:
            expected.remove(signature(call))
            kept.add(position)
    return len(kept) < len(calls) and accepts(reference, only_calls(candidate, kept))
