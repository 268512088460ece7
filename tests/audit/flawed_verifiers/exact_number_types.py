"""Exact JSON number type required (paper §4, rejecting valid answers): 5 and 5.0 are different values, as when a
verifier compares parsed JSON with `==` on types or serialised text, so a number written in the other form the
parameter's type allows fails."""

from _common import calls_of, unlike_every_gold_call


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _type_differs(want, got):
    if _number(want) and _number(got):
        return type(want) is not type(got)
    if isinstance(want, dict) and isinstance(got, dict):
        return any(_type_differs(want[k], got[k]) for k in want.keys() & got.keys())
    if isinstance(want, list) and isinstance(got, list):
        return any(_type_differs(w, g) for w, g in zip(want, got))
    return False


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if not accepted or not calls:
        return accepted
    return not unlike_every_gold_call(reference, calls, _type_differs)
