"""Helpers for the flawed state verifiers: the record's calls, the gold record, the reference decision."""

import copy
import json

from verifierbench.sources.interaction.audit import gold_record, replay
from verifierbench.sources.references import decide
from verifierbench.sources.interaction import record


def calls_of(candidate):
    try:
        return record.calls(candidate)
    except ValueError:
        return None


def accepts(reference, candidate):
    return decide(reference, candidate)[0]


def signature(call):
    """What identifies a call: who made it, the tool, the arguments."""
    return (call.get("role") or "assistant", call["name"], json.dumps(call["arguments"], sort_keys=True))


def gold_calls(reference):
    return record.calls(gold_record(reference))


def _shown(candidate):
    return [call for message in candidate["messages"] for call in message.get("tool_calls") or []]


def with_results(candidate, results):
    """The record with `results` in place of its recorded ones."""
    out = copy.deepcopy(candidate)
    for call, result in zip(_shown(out), results):
        call["result"] = result
    return out


def only_calls(candidate, kept):
    """The record with only the calls at positions `kept` (their recorded results unchanged)."""
    out = copy.deepcopy(candidate)
    position = 0
    for message in out["messages"]:
        shown = message.get("tool_calls") or []
        if shown:
            message["tool_calls"] = [c for j, c in enumerate(shown) if position + j in kept]
        position += len(shown)
    return out


__all__ = ["accepts", "calls_of", "gold_calls", "gold_record", "only_calls", "replay", "signature", "with_results"]
