"""Acceptance (issue 55): each case family added in the fourth validity round makes a verifier with the one mistake it
targets lose at least 5 points of the rate it attacks (TPR for a positive family, TNR for a negative one), averaged
over the tasks of each tool-call source where the family has a case, while the reference scores 100 there.

The flawed verifiers are `tests/audit/flawed_verifiers/<flaw>.py`; the families are `cases.FAMILIES_55`. A family
that extends an older operator (type confusion, duplicated calls, raw/parsed disagreement) applies where the
operator has a case. Timed on 2 cores the whole measure takes seconds, so every applicable task is judged.
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import load_flaw
from verifierbench.core.schema import Label
from verifierbench.sources.toolcall.reference import decide
from verifierbench.suite.store import load_suite

# flaw -> (the family that punishes it, the operators whose cases make a task applicable, the rate it attacks)
FLAWS = {
    "unknown_function_renamed": ("function_not_offered", {"function_not_offered"}, "TNR"),
    "function_names_ignored": ("function_not_offered", {"function_not_offered"}, "TNR"),
    "strings_compared_exactly": ("string_restyled", {"string_restyled"}, "TPR"),
    "substring_strings_accepted": ("string_contains_right_one", {"string_contains_right_one"}, "TNR"),
    "close_numbers_accepted": ("number_slightly_off", {"number_slightly_off"}, "TNR"),
    "containers_checked_by_shape": ("inner_value_changed", {"inner_value_changed"}, "TNR"),
    "values_coerced_from_text": ("type_confused_values", {"type_confused_value"}, "TNR"),
    "duplicate_calls_collapsed": ("more_duplicated_calls", {"duplicated_call"}, "TNR"),
    "parsed_calls_ignored": ("more_raw_disagreements", {"raw_disagrees_with_parsed"}, "TNR"),
}
MIN_POINTS = 5.0


@pytest.fixture(scope="module")
def suite(built):
    return load_suite(built)


@pytest.fixture(scope="module")
def reference_decisions(suite):
    return {c.id: decide(suite.tasks[c.task_id].reference, c.candidate)[0] for cases in suite.cases_by_task.values() for c in cases}


def applicable(suite, source: str, operators: set[str]) -> list[str]:
    return sorted(t for t, task in suite.tasks.items() if task.source.value == source
                  and any(c.provenance.get("operator") in operators for c in suite.cases_by_task[t]))


def task_rate(cases, positive: bool, accepted) -> float:
    """TPR or TNR (percent) of the decisions `accepted(case)` on one task's cases."""
    judged = [c for c in cases if (c.label is Label.PASS) is positive]
    return 100 * sum(accepted(c) is positive for c in judged) / len(judged)


def measure(suite, decisions, source: str, flaw_name: str) -> tuple[int, float, float]:
    """(applicable tasks, the reference's mean rate there, the flawed verifier's points lost against it)."""
    _, operators, rate_name = FLAWS[flaw_name]
    flaw, positive = load_flaw(flaw_name), rate_name == "TPR"
    tasks = applicable(suite, source, operators)
    reference, flawed = [], []
    for task_id in tasks:
        cases, task = suite.cases_by_task[task_id], suite.tasks[task_id]
        reference.append(task_rate(cases, positive, lambda c: decisions[c.id]))
        flawed.append(task_rate(cases, positive, lambda c, ref=task.reference: flaw.apply(ref, c.candidate, decisions[c.id])))
    mean = lambda xs: sum(xs) / len(xs)
    return len(tasks), mean(reference), mean(reference) - mean(flawed)


@pytest.mark.parametrize("source", ["bfcl", "acebench"])
@pytest.mark.parametrize("flaw_name", sorted(FLAWS))
def test_each_family_costs_its_flawed_verifier_at_least_5_points(flaw_name, source, suite, reference_decisions):
    tasks, baseline, lost = measure(suite, reference_decisions, source, flaw_name)
    family, _, rate_name = FLAWS[flaw_name]
    print(f"{flaw_name} ({family}) on {source}: {tasks} tasks, reference {baseline:.1f}, -{lost:.2f} points of {rate_name}")
    assert tasks > 0
    assert baseline == 100.0
    assert lost >= MIN_POINTS, f"{flaw_name} loses only {lost:.2f} points of {rate_name} on {source}'s {tasks} tasks"
