"""Hallucinated parameters ignored (paper §4, accepting violations): arguments the tool does not declare
are dropped before checking, so a call the tool would reject passes."""

from _common import accepts, calls_of, declared


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    stripped = [{"name": c["name"], "arguments": {k: v for k, v in c["arguments"].items()
                                                  if k in declared(reference, c["name"]).get("properties", {})}} for c in calls]
    return stripped != calls and accepts(reference, stripped)
