"""C6 mutation operators for tool-call reference verifiers (paper §2.3, App. B.4, Table 9).

Each operator is a modified reference verifier: it removes a check, loosens a condition into
acceptance, or tightens one into rejection, and otherwise calls the source's own checker. A
loosening mutant accepts what the reference accepts plus what its operator lets through
(`reference or operator`); a tightening one rejects more (`reference and operator`). A mutant is
detected on a task when some hidden case gets a valid decision from both versions that differs. An operator is applied only to tasks whose structure lets it matter (`applies`): ordering
needs two calls, type loosening needs a non-string value, and so on; each (operator, task) pair is
one mutation configuration.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from verifierbench.core.schema import Task, TestCase
from verifierbench.sources.toolcall.base import tool_call_source
from verifierbench.sources.toolcall.candidate import read_candidate

Calls = list[dict[str, Any]]


def expected_calls(task: Task) -> Calls:
    """The answer key's first acceptable call list, in the answer key's order (the source's `expected_calls`)."""
    return tool_call_source(task.reference).expected_calls(task.reference)


def source_check(task: Task, calls: Calls) -> bool:
    """The source's own checker on parsed calls (its `check_calls`)."""
    return tool_call_source(task.reference).check_calls(task.reference, calls)[0]


def _parsed(candidate: dict[str, Any]) -> Calls | None:
    """The candidate's calls when raw and parsed agree (the reference's first check), else None."""
    try:
        return read_candidate(candidate)
    except ValueError:
        return None


def _paired(calls: Calls, expected: Calls) -> list[dict[str, Any]]:
    """For each call, the expected arguments of the same function at the same occurrence (the i-th
    call of f pairs with the i-th expected call of f); {} when there is none."""
    queues: dict[str, list[dict[str, Any]]] = {}
    for e in expected:
        queues.setdefault(e["name"], []).append(e["arguments"])
    return [queues[c["name"]].pop(0) if queues.get(c["name"]) else {} for c in calls]


def _key(call: dict[str, Any]) -> str:
    return json.dumps([call["name"], call["arguments"]], sort_keys=True, default=str)


# ---- operators: (task, candidate, expected) -> PASS? ------------------------------------------

def no_raw_check(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Removes the raw/parsed consistency check: decides on `parsed` alone."""
    parsed = candidate.get("parsed") if isinstance(candidate, dict) else None
    return isinstance(parsed, list) and source_check(task, parsed)


def empty_passes(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Loosens: a reply with no call is accepted."""
    calls = _parsed(candidate)
    return calls is not None and (not calls or source_check(task, calls))


def extra_calls_dropped(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Removes the check against extra calls: only the first len(expected) calls are judged."""
    calls = _parsed(candidate)
    return calls is not None and source_check(task, calls[: len(expected)])


def missing_calls_filled(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Removes the completeness check: expected calls the reply lacks are taken as made."""
    calls = _parsed(candidate)
    if not calls:
        return False
    made = Counter(_key(c) for c in calls)
    missing = []
    for e in expected:  # an expected call not made exactly is taken as made
        if made[_key(e)] > 0:
            made[_key(e)] -= 1
        else:
            missing.append(copy.deepcopy(e))
    return source_check(task, calls + missing)


def function_name_ignored(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Removes the function-name check: the call at position i counts as the expected call at i."""
    calls = _parsed(candidate)
    if calls is None:
        return False
    renamed = [{"name": expected[i]["name"] if i < len(expected) else c["name"], "arguments": c["arguments"]} for i, c in enumerate(calls)]
    return source_check(task, renamed)


def _rewrite_args(task: Task, candidate: Any, expected: list[dict[str, Any]],
                  rewrite: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]) -> bool:
    """The source's checker on the candidate's calls, each call's arguments rewritten against the
    expected arguments paired with it (`rewrite(arguments, expected_arguments)`)."""
    calls = _parsed(candidate)
    if calls is None:
        return False
    return source_check(task, [{"name": c["name"], "arguments": rewrite(c["arguments"], want)}
                               for c, want in zip(calls, _paired(calls, expected))])


def missing_args_filled(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Removes the required-argument check: missing arguments are taken from the answer key."""
    return _rewrite_args(task, candidate, expected, lambda args, want: {**want, **args})


def values_ignored(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Loosens value checks into acceptance: any value of an expected argument is accepted."""
    return _rewrite_args(task, candidate, expected, lambda args, want: {k: want.get(k, v) for k, v in args.items()})


def types_loosened(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Loosens scalar type checks: a value whose text equals an expected number's or boolean's text counts as it ("5" for 5)."""
    def coerce(args: dict[str, Any], want: dict[str, Any]) -> dict[str, Any]:
        return {k: want[k] if k in want and _scalar(want[k]) and _text(v) == _text(want[k]) else v for k, v in args.items()}

    return _rewrite_args(task, candidate, expected, coerce)


def pass_marker_accepted(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Loosens into unconditional acceptance when the reply claims it passed."""
    raw = candidate.get("raw") if isinstance(candidate, dict) else None
    if isinstance(raw, str) and "PASS" in raw.upper():
        return True
    calls = _parsed(candidate)
    return calls is not None and source_check(task, calls)


def names_only(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Removes every argument check: the right functions, as many times as expected, suffice."""
    calls = _parsed(candidate)
    return calls is not None and sorted(c["name"] for c in calls) == sorted(e["name"] for e in expected)


def order_strict(task: Task, candidate: Any, expected: list[dict[str, Any]]) -> bool:
    """Tightens: the calls must come in the answer key's order."""
    calls = _parsed(candidate)
    if calls is None or not source_check(task, calls):
        return False
    return [c["name"] for c in calls] == [e["name"] for e in expected]


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True).strip('"').lower() if not isinstance(value, str) else value.strip().lower()


def _scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float))


def _has_args(expected: Calls) -> bool:
    return any(e["arguments"] for e in expected)


@dataclass(frozen=True)
class Operator:
    name: str
    decide: Callable[[Task, dict[str, Any], Calls], bool]
    applies: Callable[[Task, Calls], bool]
    tightens: bool = False  # rejects more than the reference (else it accepts more)

    # The C6 protocol every kind of operator follows (screening/checks.py: c6_mutants).
    def probe(self, task: Task, cases: list[TestCase]) -> Calls:
        """What `applicable` and `detects` read: the answer key's expected calls."""
        return expected_calls(task)

    def applicable(self, task: Task, expected: Calls) -> bool:
        return self.applies(task, expected)

    def detects(self, task: Task, case: TestCase, reference: bool, expected: Calls) -> bool:
        """Whether the mutated verifier's decision on `case` differs from the reference's."""
        return mutant_decision(self, task, case.candidate, expected, reference) != reference


OPERATORS = (
    Operator("no_raw_check", no_raw_check, lambda t, e: True),
    Operator("empty_passes", empty_passes, lambda t, e: True),
    Operator("extra_calls_dropped", extra_calls_dropped, lambda t, e: True),
    Operator("missing_calls_filled", missing_calls_filled, lambda t, e: len(e) >= 2),
    Operator("function_name_ignored", function_name_ignored, lambda t, e: len(t.reference["functions"]) >= 2),
    Operator("missing_args_filled", missing_args_filled, lambda t, e: _has_args(e)),
    Operator("values_ignored", values_ignored, lambda t, e: _has_args(e)),
    Operator("types_loosened", types_loosened, lambda t, e: any(_scalar(v) for c in e for v in c["arguments"].values())),
    Operator("pass_marker_accepted", pass_marker_accepted, lambda t, e: True),
    Operator("names_only", names_only, lambda t, e: _has_args(e)),
    Operator("order_strict", order_strict, lambda t, e: len({c["name"] for c in e}) >= 2, tightens=True),
)


def mutant_decision(operator: Operator, task: Task, candidate: dict[str, Any], expected: Calls, reference: bool) -> bool:
    """The mutated verifier's decision, given the reference's decision on the same candidate."""
    verdict = operator.decide(task, candidate, expected)
    return (reference and verdict) if operator.tightens else (reference or verdict)
