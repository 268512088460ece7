"""Tolerant number comparison (issue 55, accepting near-misses): the verifier takes a number within 2% (or one unit)
of the right one as the right one, in the calls' arguments and in what the assistant says, where the task asks for
the exact value. It still replays the record, so fabricated results stay caught."""

import copy
import json
import re

from _state_common import accepts, calls_of, gold_record, replay, with_results
from verifierbench.sources.interaction import record

NUMBER = re.compile(r"\d+(?:\.\d+)?")


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or calls is None:
        return accepted
    results, _ = replay(reference, calls)
    if any(c["result"] != r for c, r in zip(calls, results)):
        return accepted  # a fabricated result: the flaw is about values, not results
    gold = gold_record(reference)
    targets = _numbers(record.calls(gold)) | {float(n) for n in NUMBER.findall(_said(gold))}
    snapped = _snap_record(candidate, targets)
    if snapped == candidate:
        return accepted
    return accepts(reference, with_results(snapped, replay(reference, record.calls(snapped))[0]))


def _close(value, targets):
    """The target `value` is within tolerance of (itself when it is one, or none is)."""
    for target in sorted(targets):
        if value != target and abs(value - target) <= max(0.02 * abs(target), 1):
            return target
    return value


def _snap(value, targets):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        close = _close(value, targets)
        return type(value)(close) if close != value else value
    if isinstance(value, dict):
        return {k: _snap(v, targets) for k, v in value.items()}
    if isinstance(value, list):
        return [_snap(v, targets) for v in value]
    if isinstance(value, str) and value.startswith("{"):
        try:
            inner = json.loads(value)
        except ValueError:
            return value
        snapped = _snap(inner, targets)
        return json.dumps(snapped) if snapped != inner else value
    return value


def _snap_text(text, targets):
    def one(match):
        value = float(match.group(0))
        close = _close(value, targets)
        if close == value:
            return match.group(0)
        places = len(match.group(0).split(".")[1]) if "." in match.group(0) else 0
        return f"{close:.{places}f}"
    return NUMBER.sub(one, text or "")


def _snap_record(candidate, targets):
    out = copy.deepcopy(candidate)
    for message in out["messages"]:
        for call in message.get("tool_calls") or []:
            call["arguments"] = _snap(call["arguments"], targets)
        if message["role"] == "assistant" and message.get("content"):
            message["content"] = _snap_text(message["content"], targets)
    out["final_response"] = _snap_text(out.get("final_response"), targets)
    return out


def _numbers(calls):
    found = set()

    def walk(value):
        if isinstance(value, bool):
            return
        if isinstance(value, (int, float)):
            found.add(float(value))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value.startswith("{"):
            try:
                walk(json.loads(value))
            except ValueError:
                pass
    for call in calls:
        walk(call["arguments"])
    return found


def _said(gold):
    return " ".join([m.get("content") or "" for m in gold["messages"] if m["role"] == "assistant"] + [gold["final_response"]])
