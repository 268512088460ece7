"""Calls compared as a set (issue 55, regressions accepted): repeated calls count once (the same function with the
same arguments, in any keyword order), so a reply that makes a call twice, or every call twice, passes."""

import json

from _common import accepts, calls_of


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    seen, kept = set(), []
    for call in calls:
        key = json.dumps([call["name"], call["arguments"]], sort_keys=True)
        if key not in seen:
            seen.add(key)
            kept.append(call)
    return len(kept) < len(calls) and accepts(reference, kept)
