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


def offered_names(reference):
    return {f["name"] for f in reference["functions"]}


def closest_gold(reference, call):
    """The gold call to the same function that shares the most argument values with `call` (None when there is none)."""
    import json

    text = lambda v: json.dumps(v, sort_keys=True)
    same = [g for g in gold_calls(reference) if g["name"] == call["name"]]
    shared = lambda g: sum(k in g["arguments"] and text(g["arguments"][k]) == text(v) for k, v in call["arguments"].items())
    return max(same, key=shared, default=None)


def accepts_rewritten(reference, calls, same):
    """Whether the reference accepts `calls` once every argument value the flaw takes for the gold's
    (`same(gold_value, value)`, against the closest gold call) is replaced by the gold's; only when one was."""
    rewritten = []
    for call in calls:
        gold = closest_gold(reference, call)
        want = gold["arguments"] if gold else {}
        arguments = {k: want[k] if k in want and v != want[k] and same(want[k], v) else v for k, v in call["arguments"].items()}
        rewritten.append({"name": call["name"], "arguments": arguments})
    return rewritten != calls and accepts(reference, rewritten)
