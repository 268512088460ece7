"""The whole state compared with the gold's (issue 55, rejecting valid solutions): the verifier replays the record
and requires the resulting environment to equal the gold interaction's exactly, so a harmless difference the task
does not care about (an email's read flag after an extra read, the web request log) fails."""

from _state_common import calls_of, gold_calls, replay


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if not accepted or calls is None:
        return accepted
    return replay(reference, calls)[1] == replay(reference, gold_calls(reference))[1]
