"""Function names ignored (issue 55, accepting violations): the i-th call is judged as the answer key's i-th call
whatever function it names, so the right arguments sent to a function the task does not offer pass."""

from _common import accepts, calls_of, gold_calls


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    gold = gold_calls(reference)
    renamed = [{"name": gold[i]["name"] if i < len(gold) else c["name"], "arguments": c["arguments"]} for i, c in enumerate(calls)]
    return renamed != calls and accepts(reference, renamed)
