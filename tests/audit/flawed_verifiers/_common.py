"""Helpers for the flawed verifiers: the reference decision on a modified candidate."""

from verifierbench.sources.toolcall.candidate import candidate as make_candidate
from verifierbench.sources.toolcall.candidate import read_candidate
from verifierbench.sources.toolcall.reference import decide


def calls_of(candidate):
    try:
        return read_candidate(candidate)
    except ValueError:
        return None


def accepts(reference, calls):
    return decide(reference, make_candidate(calls))[0]


def declared(reference, name):
    for f in reference["functions"]:
        if f["name"] == name:
            return f.get("parameters", {})
    return {}


def gold_names(reference):
    if reference["checker"] == "bfcl":
        return {next(iter(entry)) for entry in reference["ground_truth"]}
    from verifierbench.sources.acebench.checker import expected_calls

    return {c["name"] for c in expected_calls(reference["ground_truth"], reference["functions"])}


def gold_calls(reference):
    """The answer key's canonical calls (each argument's first acceptable value), as the source's reference gives them."""
    if reference["checker"] == "bfcl":
        from verifierbench.sources.bfcl.reference import expected_calls as bfcl_expected

        return bfcl_expected(reference)
    from verifierbench.sources.acebench.checker import expected_calls

    return expected_calls(reference["ground_truth"], reference["functions"])


def unlike_every_gold_call(reference, calls, differs):
    """Whether some call differs (by `differs(gold_arguments, arguments)`) from every gold call to its function."""
    gold = gold_calls(reference)
    for call in calls:
        same = [g for g in gold if g["name"] == call["name"]]
        if same and all(differs(g["arguments"], call["arguments"]) for g in same):
            return True
    return False
