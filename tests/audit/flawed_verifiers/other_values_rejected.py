"""Over-narrow acceptable values (paper §4, overstrict): only the first two values the task allows for an
argument are accepted, as when a verifier hard-codes the forms it happened to see."""

from _common import calls_of


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if not accepted or not calls or reference["checker"] != "bfcl":
        return accepted
    for entry in reference["ground_truth"]:
        (name, key), = entry.items()
        for call in calls:
            if call["name"] != name:
                continue
            for arg, allowed in key.items():
                values = [v for v in allowed if v != ""]
                if arg in call["arguments"] and len(values) > 2 and call["arguments"][arg] in values[2:] \
                        and call["arguments"][arg] not in values[:2]:
                    return False
    return accepted
