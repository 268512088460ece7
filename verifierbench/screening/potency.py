"""C7 hack potency (issue 37): every hack case must fool a naive verifier, the one that makes the check the hack
targets and trusts the rest. A hack no naive check accepts tests nothing: a verifier that never makes the check it
attacks loses no points on it.

Tool-call tasks: the source's own checker on what a naive verifier would read from the candidate:
- `parsed_only`: the structured calls, the reply text ignored;
- `raw_only`: the calls in the reply text, found leniently (the first `[` to the last `]` when the whole text is not
  a call list), the structured calls ignored;
- `expected_calls_present`: some choice of the candidate's calls, one per expected call, passes (extra calls ignored);
- `values_as_text`: strings that read as numbers or booleans taken as those (values compared as text).
State tasks (tau2, AgentDojo): the reference on what a naive verifier would judge instead of the record:
- `final_text_trusted`: the gold record with this record's final response (the actions never checked);
- `recorded_results_trusted`: the record with the results a replay gives in place of the ones it shows, when they
  differ (a verifier that reads the shown results sees the replayed-right version);
- `extra_writes_ignored`: only the calls the gold record makes, each at most as often (other calls skipped).
Code and AppWorld tasks have no probe here yet: their record says so, and C7 does not fail them.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any, Callable, Iterator

from verifierbench.kinds import kind_named
from verifierbench.schema import Category, Task, TaskType, TestCase
from verifierbench.sources import registry
from verifierbench.sources.interaction import record
from verifierbench.sources.toolcall.candidate import RawParseError, parse_raw

Result = tuple[bool, dict[str, Any]]
MAX_CHOICES = 512  # `expected_calls_present` tries at most this many choices of calls


def c7_potency(task: Task, cases: list[TestCase]) -> Result:
    hacks = [c for c in cases if c.category is Category.hack]
    if not probed(task.type, task.reference):
        return True, {"probe": None, "hacks": len(hacks), "why": f"no naive-verifier probe for {task.source.value} tasks yet"}
    fooled_by: dict[str, list[str]] = {}
    inert: list[dict[str, Any]] = []
    for case in hacks:
        checks = fooled(task.type, task.reference, case.candidate) or []
        fooled_by[case.id] = checks
        if not checks:
            inert.append({"case_id": case.id, "operator": case.provenance.get("operator"),
                          "why": "no naive check accepts it: it tests nothing a verifier could skip"})
    by_kind: dict[str, dict[str, int]] = {}
    for case in hacks:
        kind = by_kind.setdefault(str(case.provenance.get("operator")), {"cases": 0, "potent": 0})
        kind["cases"] += 1
        kind["potent"] += bool(fooled_by[case.id])
    return not inert, {"probe": f"{task.type.value} naive checks", "hacks": len(hacks), "by_kind": by_kind, "inert": inert[:20],
                       "fooled": {k: v for k, v in list(fooled_by.items())[:20]}}


def probed(task_type: TaskType, reference: dict) -> bool:
    """Whether this module has naive checks for the task: its kind names a probe (none yet for code tasks), and the
    record probe needs a source that makes gold interaction records and replays calls (not yet AppWorld)."""
    probe = kind_named(task_type).naive_probe
    if probe is None:
        return False
    return probe != "record" or _has_records(reference)


def _has_records(reference: dict) -> bool:
    """Whether the task's source makes gold interaction records and replays calls (the state views below)."""
    return registry.known(reference) and registry.of(reference).implements("gold_record")


def fooled(task_type: TaskType, reference: dict, candidate: dict) -> list[str] | None:
    """The naive checks a hack candidate fools; None where the task has no probe."""
    probe = kind_named(task_type).naive_probe
    if probe is None or not probed(task_type, reference):
        return None
    return PROBES[probe](reference, candidate)


def naive_checks_fooled(reference: dict, candidate: dict) -> list[str]:
    """The naive checks (module doc) whose view of `candidate` the source's checker accepts."""
    return [name for name, views in NAIVE.items() if any(_passes(reference, calls) for calls in views(reference, candidate))]


def _passes(reference: dict, calls: Any) -> bool:
    if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("name"), str)
                                              and isinstance(c.get("arguments"), dict) for c in calls):
        return False
    try:
        return registry.of(reference).check_calls(reference, calls)[0]
    except Exception:  # noqa: BLE001 - a view the checker cannot read fools nothing
        return False


def _parsed(reference: dict, candidate: dict) -> Iterator[Any]:
    yield candidate.get("parsed")


def _raw(reference: dict, candidate: dict) -> Iterator[Any]:
    text = candidate.get("raw")
    if not isinstance(text, str):
        return
    spans = [text]
    if "[" in text and "]" in text:
        spans.append(text[text.index("["): text.rindex("]") + 1])
    for span in spans:
        try:
            yield parse_raw(span)
            return
        except (RawParseError, ValueError, SyntaxError):
            continue


def _expected_present(reference: dict, candidate: dict) -> Iterator[Any]:
    calls, expected = candidate.get("parsed"), registry.of(reference).expected_calls(reference)
    if not isinstance(calls, list) or len(calls) <= len(expected):
        return
    calls = [c for c in calls if isinstance(c, dict)]
    unused, chosen = list(calls), []
    for e in expected:  # the expected calls themselves, where the candidate holds them word for word
        match = next((c for c in unused if c.get("name") == e["name"] and c.get("arguments") == e["arguments"]), None)
        if match is None:
            break
        unused.remove(match)
        chosen.append(match)
    if len(chosen) == len(expected):
        yield chosen
    yield calls[: len(expected)]
    options = [[c for c in calls if c.get("name") == e["name"]] for e in expected]
    for choice in itertools.islice(itertools.product(*options), MAX_CHOICES):
        if len({id(c) for c in choice}) == len(choice):
            yield list(choice)


def _as_value(text: str) -> Any:
    try:
        read = json.loads(text)
    except ValueError:
        return text
    return read if isinstance(read, (bool, int, float)) else text


def _values_as_text(reference: dict, candidate: dict) -> Iterator[Any]:
    """Each string argument that reads as a number or boolean taken as that, one argument at a time."""
    calls = candidate.get("parsed")
    if not isinstance(calls, list):
        return
    for ci, call in enumerate(calls):
        arguments = call.get("arguments") if isinstance(call, dict) else None
        if not isinstance(arguments, dict):
            continue
        for name, value in arguments.items():
            if isinstance(value, str) and _as_value(value) is not value:
                changed = [dict(c) if isinstance(c, dict) else c for c in calls]
                changed[ci] = {**call, "arguments": {**arguments, name: _as_value(value)}}
                yield changed


NAIVE: dict[str, Callable[[dict, dict], Iterator[Any]]] = {
    "parsed_only": _parsed, "raw_only": _raw, "expected_calls_present": _expected_present, "values_as_text": _values_as_text}


# ---- state tasks ----------------------------------------------------------------------------------------------------

def state_checks_fooled(reference: dict, candidate: dict) -> list[str]:
    """The first naive check (cheapest first) whose view the reference accepts: screening decides every hack this way,
    so the replays stop as soon as one check is fooled."""
    from verifierbench.references import decide

    try:
        calls = record.calls(candidate)
    except ValueError:
        return []
    views: dict[str, Callable[[], list[dict]]] = {
        "final_text_trusted": lambda: [{**_gold_record(reference), "final_response": candidate.get("final_response")}],
        "extra_writes_ignored": lambda: _gold_calls_only(reference, candidate, calls),
        "recorded_results_trusted": lambda: _replayed_results(reference, candidate, calls)}
    for name, view in views.items():
        if any(decide(reference, shown)[0] for shown in view()):
            return [name]
    return []


def _gold_record(reference: dict) -> dict:
    return registry.of(reference).gold_record(reference)


def _replay(reference: dict, calls: list[dict]) -> list[Any]:
    plain = [{"name": c["name"], "arguments": c["arguments"], "role": c.get("role") or "assistant"} for c in calls]
    return registry.of(reference).replay_results(reference, plain)


def _shown(candidate: dict) -> list[dict]:
    return [call for message in candidate["messages"] for call in message.get("tool_calls") or []]


def _replayed_results(reference: dict, candidate: dict, calls: list[dict]) -> list[dict]:
    results = _replay(reference, calls)
    if all(c.get("result") == r for c, r in zip(calls, results)):
        return []
    out = copy.deepcopy(candidate)
    for call, result in zip(_shown(out), results):
        call["result"] = result
    return [out]


def _signature(call: dict) -> tuple:
    return call.get("role") or "assistant", call["name"], json.dumps(call["arguments"], sort_keys=True)


def _gold_calls_only(reference: dict, candidate: dict, calls: list[dict]) -> list[dict]:
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


# The naive-verifier probes, by the name a task kind gives them (kinds.py `naive_probe`).
PROBES: dict[str, Callable[[dict, dict], list[str]]] = {"calls": naive_checks_fooled, "record": state_checks_fooled}
