"""Representation restriction (paper §4 and App. I): the reply must be written as a bracketed list, so a
valid reply in plain Python call syntax without the brackets is rejected."""


def apply(reference, candidate, accepted):
    raw = candidate.get("raw", "") if isinstance(candidate, dict) else ""
    stripped = raw.strip()
    if accepted and stripped and not stripped.startswith(("[", "{")):
        return False
    return accepted
