"""Numbers compared with a tolerance (issue 55, accepting violations): `math.isclose(actual, expected, rel_tol=0.02)`,
so an amount 1% off the one the request gives passes."""

import math

from _common import accepts_rewritten, calls_of


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    return accepts_rewritten(reference, calls, lambda want, got: _number(want) and _number(got) and math.isclose(got, want, rel_tol=0.02))
