"""Only the final text checked (paper §4, success claimed without the work): the verifier judges the final
response as if the expected actions had been taken, so a record whose final response reports success with
the required information passes whatever its calls did."""

from _state_common import accepts, calls_of, gold_record


def apply(reference, candidate, accepted):
    if calls_of(candidate) is None:
        return accepted
    return accepts(reference, {**gold_record(reference), "final_response": candidate["final_response"]})
