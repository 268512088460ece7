"""Acceptance (issue 55): each case family added to the state suite punishes the verifier mistake it exists for. Four
flawed verifiers of our own (tests/audit/flawed_verifiers), each the reference with exactly one mistake, lose at least
5 points of the rate the family attacks, task-weighted over the tasks where the family has cases, while the reference
scores 100 there:

- `numbers_within_tolerance` (a number within 2% or one unit taken as the right one): TNR, through `close_number`;
- `gold_reads_required` (every call of the gold demanded, reads included): TPR, through `other_reads`;
- `answer_verbatim_required` (AgentDojo's ground-truth answer demanded word for word): TPR, through `reworded_answer`;
- `state_must_equal_gold` (the replayed state must equal the gold's): TPR, through `harmless_state_difference`.

Only the applicable tasks' cases are judged, so the test takes seconds once the state suite is built.
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import load_flaw
from verifierbench.sources.references import decide
from verifierbench.core.schema import Label
from verifierbench.suite.store import load_suite

FLAWS = {
    "numbers_within_tolerance": ("close_number", "TNR", ("tau2", "agentdojo")),
    "gold_reads_required": ("other_reads", "TPR", ("tau2", "agentdojo")),
    "answer_verbatim_required": ("reworded_answer", "TPR", ("agentdojo",)),
    "state_must_equal_gold": ("harmless_state_difference", "TPR", ("agentdojo",)),
}
CASES = [(flaw, source) for flaw, (_, _, sources) in sorted(FLAWS.items()) for source in sources]
MIN_POINTS = 5.0


@pytest.fixture(scope="module")
def suite(state_suite):
    return load_suite(state_suite)


def applicable(suite, source: str, family: str) -> list[str]:
    """The source's tasks with at least one case of the family."""
    return sorted(task_id for task_id, task in suite.tasks.items() if task.source.value == source
                  and any(c.provenance.get("family") == family for c in suite.cases_by_task[task_id]))


def rate(suite, task_ids: list[str], rate_name: str, decide_case) -> float:
    """Task-weighted TPR or TNR (percent) of `decide_case(task, candidate) -> accepted` over these tasks' cases."""
    positive = rate_name == "TPR"
    per_task = []
    for task_id in task_ids:
        task = suite.tasks[task_id]
        cases = [c for c in suite.cases_by_task[task_id] if (c.label is Label.PASS) is positive]
        per_task.append(100 * sum(decide_case(task, c.candidate) is positive for c in cases) / len(cases))
    return sum(per_task) / len(per_task)


@pytest.mark.parametrize("flaw_name,source", CASES)
def test_each_family_costs_its_flawed_verifier_at_least_5_points(suite, flaw_name, source):
    family, rate_name, _ = FLAWS[flaw_name]
    task_ids = applicable(suite, source, family)
    assert len(task_ids) >= 3, f"{family} reaches only {len(task_ids)} {source} tasks"
    flaw = load_flaw(flaw_name)
    reference = lambda task, candidate: decide(task.reference, candidate)[0]
    flawed = lambda task, candidate: flaw.apply(task.reference, candidate, reference(task, candidate))
    baseline = rate(suite, task_ids, rate_name, reference)
    lost = baseline - rate(suite, task_ids, rate_name, flawed)
    print(f"{flaw_name} on {source} ({family}, {len(task_ids)} tasks): -{lost:.1f} points of {rate_name}")
    assert baseline == 100.0
    assert lost >= MIN_POINTS, f"{flaw_name} loses only {lost:.1f} points of {rate_name} on {source}"
