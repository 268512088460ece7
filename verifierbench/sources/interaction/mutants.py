"""C6 mutation operators for state-task reference verifiers (interaction records; paper App. B.4).

Every state reference here does the same three things: it checks that the recorded tool results are
the ones a replay returns, checks the outcome in the environment, and checks the final response
(plus, for AgentDojo injection pairs, that the injected goal was not reached). Each operator removes
one of those checks; as for tool-call mutants, a loosening mutant decides `reference or operator`. These are
the operators every state source shares; AgentDojo adds its security check's (sources/agentdojo/mutants.py).

An operator applies to a task only where the check it removes is alive, probed on the gold record:
removing the final-response check matters only if the reference rejects the gold actions with an
empty answer, removing the state check only if it rejects the gold answer with no tool call.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

from verifierbench.core.schema import Category, Task, TestCase
from verifierbench.sources import registry
from verifierbench.sources.base import NoProbe
from verifierbench.sources.interaction import record
from verifierbench.sources.interaction.environment import PublicEnvironment, observed_result

Transform = Callable[[Task, dict[str, Any], dict[str, Any]], tuple[dict[str, Any], dict[str, Any]]]  # (task, candidate, gold) -> (reference record, candidate)


@dataclass(frozen=True)
class StateOperator:
    name: str
    transform: Transform
    applies: Callable[[Task, dict[str, Any]], bool]

    def decide(self, task: Task, candidate: dict[str, Any], gold: dict[str, Any]) -> bool:
        reference, changed = self.transform(task, candidate, gold)
        return _decide(reference, changed)

    # The C6 protocol every kind of operator follows (screening/checks.py: c6_mutants).
    def probe(self, task: Task, cases: list[TestCase]) -> dict[str, Any]:
        """What `applicable` and `detects` read: the gold record; NoProbe without a gold case."""
        gold = next((c.candidate for c in cases if c.category is Category.gold), None)
        if gold is None:
            raise NoProbe("no gold case to probe the checks with")
        return gold

    def applicable(self, task: Task, gold: dict[str, Any]) -> bool:
        return self.applies(task, gold)

    def detects(self, task: Task, case: TestCase, reference: bool, gold: dict[str, Any]) -> bool:
        """Loosening: the mutant accepts what the reference accepts, plus what the removed check let through."""
        return not reference and self.decide(task, case.candidate, gold)


def _decide(reference: dict[str, Any], candidate: dict[str, Any]) -> bool:
    """The task's reference decision on `candidate` (PASS?): its source's `decide`, as `references.decide` gives it."""
    return registry.of(reference).decide(reference, candidate)[0]


def _results_replayed(task: Task, candidate: dict[str, Any], gold: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Trusts the record: its results are replaced by the replayed ones before the real checks run."""
    try:
        calls = record.calls(candidate)
    except ValueError:
        return task.reference, candidate
    environment = registry.of(task.reference).environment(task.reference)
    assert isinstance(environment, PublicEnvironment)  # state tasks' environments replay interaction records
    observed = iter(environment.replay(calls).observations)
    fixed = copy.deepcopy(candidate)
    for message in fixed["messages"]:
        for call in message.get("tool_calls") or []:
            call["result"] = observed_result(next(observed))
    return task.reference, fixed


def _gold_answer(task: Task, candidate: dict[str, Any], gold: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ignores the final response: judged as if it were the gold one."""
    if not isinstance(candidate, dict):
        return task.reference, candidate
    return task.reference, {**candidate, "final_response": gold["final_response"]}


def _gold_actions(task: Task, candidate: dict[str, Any], gold: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ignores what was done: the gold interaction with this candidate's final response."""
    if not isinstance(candidate, dict) or not isinstance(candidate.get("final_response"), str):
        return task.reference, candidate
    return task.reference, {**gold, "final_response": candidate["final_response"]}


def _text_checked(task: Task, gold: dict[str, Any]) -> bool:
    return not _decide(task.reference, {**gold, "final_response": ""})


def _state_checked(task: Task, gold: dict[str, Any]) -> bool:
    idle = record.replace_calls(gold, [])
    return not _decide(task.reference, idle)


OPERATORS = (
    StateOperator("recorded_results_trusted", _results_replayed, lambda task, gold: True),
    StateOperator("final_response_ignored", _gold_answer, _text_checked),
    StateOperator("state_ignored", _gold_actions, _state_checked),
)
