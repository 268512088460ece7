"""C7's naive verifiers of state tasks (screening/potency.py): the reference on what a naive verifier would judge
instead of the interaction record:
- `final_text_trusted`: the gold record with this record's final response (the actions never checked);
- `recorded_results_trusted`: the record with the results a replay gives in place of the ones it shows, when they
  differ (a verifier that reads the shown results sees the replayed-right version);
- `extra_writes_ignored`: only the calls the gold record makes, each at most as often (other calls skipped).
They need a source that makes gold records and replays calls (`gold_record`, `replay_results`). A state source's build
drops a hack none of them accepts (construction/replay.py), and screening's C7 fails it.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

from verifierbench.sources import registry
from verifierbench.sources.interaction import record
from verifierbench.sources.interaction.base import interaction_source


def state_checks_fooled(reference: dict[str, Any], candidate: dict[str, Any]) -> list[str]:
    """The first naive check (cheapest first) whose view the reference accepts: screening decides every hack this way,
    so the replays stop as soon as one check is fooled."""
    try:
        calls = record.calls(candidate)
    except ValueError:
        return []
    views: dict[str, Callable[[], list[dict[str, Any]]]] = {
        "final_text_trusted": lambda: [{**_gold_record(reference), "final_response": candidate.get("final_response")}],
        "extra_writes_ignored": lambda: _gold_calls_only(reference, candidate, calls),
        "recorded_results_trusted": lambda: _replayed_results(reference, candidate, calls)}
    for name, view in views.items():
        if any(registry.of(reference).decide(reference, shown)[0] for shown in view()):
            return [name]
    return []


def _gold_record(reference: dict[str, Any]) -> dict[str, Any]:
    return interaction_source(reference).gold_record(reference)


def _replay(reference: dict[str, Any], calls: list[dict[str, Any]]) -> list[Any]:
    plain = [{"name": c["name"], "arguments": c["arguments"], "role": c.get("role") or "assistant"} for c in calls]
    return interaction_source(reference).replay_results(reference, plain)


def _shown(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    return [call for message in candidate["messages"] for call in message.get("tool_calls") or []]


def _replayed_results(reference: dict[str, Any], candidate: dict[str, Any], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    results = _replay(reference, calls)
    if all(c.get("result") == r for c, r in zip(calls, results)):
        return []
    out = copy.deepcopy(candidate)
    for call, result in zip(_shown(out), results):
        call["result"] = result
    return [out]


def _signature(call: dict[str, Any]) -> tuple[Any, ...]:
    return call.get("role") or "assistant", call["name"], json.dumps(call["arguments"], sort_keys=True)


def _gold_calls_only(reference: dict[str, Any], candidate: dict[str, Any], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    expected = [_signature(c) for c in record.calls(_gold_record(reference))]
    kept = set()
    for position, call in enumerate(calls):
        if _signature(call) in expected:
            expected.remove(_signature(call))
            kept.add(position)
    if len(kept) == len(calls):
        return []
    out, position = copy.deepcopy(candidate), 0
    for message in out["messages"]:
        shown = message.get("tool_calls") or []
        if shown:
            message["tool_calls"] = [c for j, c in enumerate(shown) if position + j in kept]
        position += len(shown)
    return [out]
