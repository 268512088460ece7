"""The gold call sequence demanded (paper §4 and App. I.2, over-strict): the verifier rejects any record whose
calls are not exactly the gold interaction's, in its order, so a harmless extra read, a reordered lookup or
an equivalent argument form fails."""

from _state_common import calls_of, gold_calls, signature


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if not accepted or calls is None:
        return accepted
    return [signature(c) for c in calls] == [signature(c) for c in gold_calls(reference)]
