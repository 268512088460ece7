"""Lists and objects checked by shape (issue 55, accepting violations): a list argument of the right length, or an
object with the right keys, passes whatever it holds, so a wrong value inside it goes unseen."""

from _common import accepts_rewritten, calls_of


def _same_shape(want, got):
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got)
    if isinstance(want, dict) and isinstance(got, dict):
        return set(want) == set(got)
    return False


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    return accepts_rewritten(reference, calls, _same_shape)
