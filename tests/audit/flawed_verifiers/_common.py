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
