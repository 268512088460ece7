"""Acceptance (issue 37): each of three tool-call checker flaws costs at least 5 points, on every tool-call source, of the
rate it attacks, measured task-weighted (as `metrics` does) against the reference, which scores 100.

- `optional_arguments_required` (missing optional argument treated as required): TPR, through the positives that
  leave an optional argument out (`optional_argument_omitted`, `default_argument_omitted`);
- `exact_number_types` (5 is not 5.0): TPR, through the number-form positives (`each_numeric_form`, `other_numeric_forms`);
- `unknown_arguments_ignored` (extra undeclared arguments pass): TNR, through the undeclared-argument negatives
  (`unknown_argument_added`, `undeclared_argument_variants`).
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import load_flaw
from verifierbench.core.schema import Label
from verifierbench.sources.toolcall.reference import decide
from verifierbench.suite.store import load_suite

ATTACKED_RATE = {"optional_arguments_required": "TPR", "exact_number_types": "TPR", "unknown_arguments_ignored": "TNR"}
MIN_POINTS = 5.0


@pytest.fixture(scope="module")
def suite(built):
    return load_suite(built)


def rate(suite, source: str, rate_name: str, decide_case) -> float:
    """Task-weighted TPR or TNR (percent) of `decide_case(task, candidate) -> accepted` on one source's hidden cases."""
    positive = rate_name == "TPR"
    per_task = []
    for task_id, task in suite.tasks.items():
        if task.source.value != source:
            continue
        cases = [c for c in suite.cases_by_task[task_id] if (c.label is Label.PASS) is positive]
        right = sum(decide_case(task, c.candidate) is positive for c in cases)
        per_task.append(100 * right / len(cases))
    return sum(per_task) / len(per_task)


def points_lost(suite, source: str, flaw_name: str) -> tuple[float, float]:
    """(the reference's rate, how many points the flawed checker loses against it)."""
    flaw = load_flaw(flaw_name)
    reference = lambda task, candidate: decide(task.reference, candidate)[0]
    flawed = lambda task, candidate: flaw.apply(task.reference, candidate, reference(task, candidate))
    baseline = rate(suite, source, ATTACKED_RATE[flaw_name], reference)
    return baseline, baseline - rate(suite, source, ATTACKED_RATE[flaw_name], flawed)


@pytest.mark.parametrize("source", ["bfcl", "acebench"])
@pytest.mark.parametrize("flaw_name", sorted(ATTACKED_RATE))
def test_each_checker_flaw_costs_at_least_5_points_on_each_source(flaw_name, source, suite):
    baseline, lost = points_lost(suite, source, flaw_name)
    assert baseline == 100.0
    print(f"{flaw_name} on {source}: -{lost:.1f} points of {ATTACKED_RATE[flaw_name]}")
    assert lost >= MIN_POINTS, f"{flaw_name} loses only {lost:.1f} points of {ATTACKED_RATE[flaw_name]} on {source}"
