"""C6 runs whatever operators the task's source declares, through their protocol (probe, applicable, detects):
the loop knows no task type."""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass

from verifierbench.core.schema import Category, TaskType, TestCase
from verifierbench.screening import checks
from verifierbench.sources.interaction.mutants import OPERATORS as STATE_OPERATORS
from verifierbench.sources import registry


@dataclass(frozen=True)
class ToyOperator:
    name: str
    accepts: str  # the candidate value the mutant wrongly accepts

    def probe(self, task, cases):
        return "probed"

    def applicable(self, task, probe):
        return probe == "probed" and self.accepts != "never"

    def detects(self, task, case, reference, probe):
        return not reference and case.candidate["v"] == self.accepts


class _Task:
    type = TaskType.state  # any type: the loop must not look at it
    reference = {"checker": "toy"}


def _declaring(monkeypatch, operators):
    """The task's source (registry.of) declares these operators."""
    class Declared:
        def mutation_operators(self):
            return operators

    monkeypatch.setattr(registry, "of", lambda reference: Declared())


def _cases():
    return [TestCase.create(task_id="t", category=Category.gold, candidate={"v": "ok"}),
            TestCase.create(task_id="t", category=Category.near_miss, candidate={"v": "bad"})]


def test_c6_dispatches_through_the_operators_protocol(monkeypatch):
    operators = (ToyOperator("caught", "bad"), ToyOperator("missed", "other"), ToyOperator("off", "never"))
    _declaring(monkeypatch, operators)
    cases = _cases()
    decisions = {cases[0].id: True, cases[1].id: False}
    passed, evidence = checks.c6_mutants(_Task(), cases, decisions)  # type: ignore[arg-type]
    assert not passed
    assert evidence == {"operators": ["caught", "missed"], "undetected": ["missed"], "detected_by": {"caught": cases[1].id}}


def test_a_state_task_without_a_gold_case_fails_c6_with_the_reason(monkeypatch):
    _declaring(monkeypatch, STATE_OPERATORS)
    near_miss = _cases()[1]
    passed, evidence = checks.c6_mutants(_Task(), [near_miss], {near_miss.id: False})  # type: ignore[arg-type]
    assert (passed, evidence) == (False, {"operators": [], "undetected": [], "problem": "no gold case to probe the checks with"})


def test_the_c6_loop_does_not_branch_on_the_task_type():
    source = inspect.getsource(checks.c6_mutants)
    names = {node.attr for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Attribute)}
    assert "type" not in names and "TaskType" not in source
