"""Missing optional argument treated as required (paper §4, rejecting valid answers): every argument the answer
key names must be present, as when a verifier compares the candidate's argument set with the key's, so a call
that leaves out an optional argument the task allows to be left out fails."""

from _common import calls_of, unlike_every_gold_call


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if not accepted or not calls:
        return accepted
    return not unlike_every_gold_call(reference, calls, lambda want, got: bool(set(want) - set(got)))
