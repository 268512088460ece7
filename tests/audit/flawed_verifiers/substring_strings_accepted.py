"""Strings matched by containment (issue 55, accepting violations): `expected.lower() in actual.lower()`, so a value
that contains the right one but says something else ("not Austin", "Austin, Dallas") passes; in lists too."""

from _common import accepts_rewritten, calls_of


def _contains(want, got):
    if isinstance(want, str) and isinstance(got, str):
        return want.lower() in got.lower()
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        return all(w == g or _contains(w, g) for w, g in zip(want, got))
    return False


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    return accepts_rewritten(reference, calls, _contains)
