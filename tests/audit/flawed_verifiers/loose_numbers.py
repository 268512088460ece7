"""Loose value check (paper §4, accepting violations): a number one away from the right one still passes,
as when a verifier compares amounts with a tolerance the request never grants."""

import copy

from _common import accepts, calls_of


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    for ci, call in enumerate(calls):
        for name, value in call["arguments"].items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            for nearby in (value + 1, value - 1):
                changed = copy.deepcopy(calls)
                changed[ci]["arguments"][name] = nearby
                if accepts(reference, changed):
                    return True
    return False
