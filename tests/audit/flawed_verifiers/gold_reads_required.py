"""The gold's lookups required (issue 55, rejecting valid solutions): the verifier demands every call the gold
interaction makes, reads included (each as often as the gold makes it; letter case, JSON layout, number form, list
order and omitted arguments forgiven), so an interaction that reaches the same answer through other reads fails."""

import json

from _state_common import calls_of, gold_calls


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if not accepted or calls is None:
        return accepted
    unused = [_normal(c) for c in calls]
    for call in gold_calls(reference):
        wanted = _normal(call)
        match = next((i for i, have in enumerate(unused) if _same(wanted, have)), None)
        if match is None:
            return False
        unused.pop(match)
    return True


def _normal(call):
    return (call.get("role") or "assistant", call["name"], _value(call["arguments"]))


def _value(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if value.startswith("{"):
            try:
                return _value(json.loads(value))
            except ValueError:
                pass
        return value.strip().lower()
    if isinstance(value, dict):
        return {k: _value(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_value(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def _same(wanted, have):
    """Same caller and tool, and the same value for every argument both give."""
    if wanted[:2] != have[:2]:
        return False
    a, b = wanted[2], have[2]
    if isinstance(a, dict) and isinstance(b, dict):
        return all(_same_value(a[k], b[k]) for k in set(a) & set(b))
    return a == b


def _same_value(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return all(_same_value(a[k], b[k]) for k in set(a) & set(b))
    return a == b
