"""Function names matched loosely (issue 55, accepting violations): a call to a function the task does not offer is
taken as a call to the offered function with the most similar name, so a misspelt, restyled or hallucinated
function name with the right arguments passes."""

import difflib

from _common import accepts, calls_of, offered_names


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    offered = sorted(offered_names(reference))
    renamed = [{"name": c["name"] if c["name"] in offered else difflib.get_close_matches(c["name"], offered, n=1, cutoff=0)[0],
                "arguments": c["arguments"]} for c in calls]
    return renamed != calls and accepts(reference, renamed)
