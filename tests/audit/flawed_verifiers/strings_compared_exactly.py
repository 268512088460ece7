"""Strings compared exactly (issue 55, rejecting valid answers): a string argument must be one of the key's values
character for character, though the source's checker standardises case, spacing and punctuation away
("san francisco" for "San Francisco" fails)."""

from _common import calls_of
from verifierbench.sources.toolcall.base import spec_for_reference


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if not accepted or not calls:
        return accepted
    allowed = {}
    for call in spec_for_reference(reference).calls:
        for arg in call.args:
            allowed.setdefault((call.name, arg.name), set()).update(v for v in arg.values if isinstance(v, str))
    for call in calls:
        for name, value in call["arguments"].items():
            strings = allowed.get((call["name"], name))
            if isinstance(value, str) and strings and value not in strings:
                return False
    return True
