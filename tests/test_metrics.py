"""Metrics on hand-computed examples (issue 2, paper §2.4)."""

from __future__ import annotations

import pytest

from verifierbench.core.metrics import DecisionRecord, TaskInfo, compute, display
from verifierbench.core.protocol import Decision
from verifierbench.core.schema import Category, TestCase

P, F, U = Decision.P, Decision.F, Decision.U


def task(task_id: str, cases: list[tuple[str, Decision]], task_type="tool-call", source="bfcl", submitted=True):
    return [
        DecisionRecord(task_id, f"{task_id}-{i}", Category(cat), Category(cat).label, decision, task_type, source, submitted)
        for i, (cat, decision) in enumerate(cases)
    ]


STANDARD = ["gold", "cosmetic", "near_miss", "partial", "hack"]  # 2 positives, 3 negatives (1 attack)


def uniform(task_id: str, decide, **kw):
    return task(task_id, [(c, decide(c)) for c in STANDARD], **kw)


def test_constant_valid_decisions_score_zero():
    for constant in (P, F):
        records = uniform("a", lambda c, constant=constant: constant) + uniform("b", lambda c, constant=constant: constant)
        result = compute(records)
        assert result["BA_norm"] == 0.0
        assert result["BA"] == 50.0


def test_all_U_scores_minus_100():
    result = compute(uniform("a", lambda c: U) + uniform("b", lambda c: U))
    assert (result["TPR"], result["TNR"], result["BA_norm"]) == (0.0, 0.0, -100.0)
    assert result["valid_output_rate"] == 0.0
    assert result["FPR_h"] == 0.0  # an invalid output is not an accepted attack


def test_perfect_scores_100():
    perfect = lambda c: P if Category(c).label.value == "PASS" else F
    result = compute(uniform("a", perfect) + uniform("b", perfect))
    assert (result["TPR"], result["TNR"], result["BA_norm"], result["FPR_h"]) == (100.0, 100.0, 100.0, 0.0)
    assert result["positive_acceptance"] == {"none": 0, "some": 0, "all": 2}


def test_U_counts_as_wrong_in_both_rates():
    # positives: P, U -> r+ = 1/2; negatives: F, U, U -> r- = 1/3
    records = task("a", [("gold", P), ("cosmetic", U), ("near_miss", F), ("partial", U), ("hack", U)])
    result = compute(records)
    assert result["TPR"] == pytest.approx(50.0)
    assert result["TNR"] == pytest.approx(100 / 3)
    assert result["BA_norm"] == pytest.approx(50 + 100 / 3 - 100)
    assert result["valid_output_rate"] == pytest.approx(40.0)
    # unaccepted positives: one U, no F -> rejection share 0
    assert result["rejection_share"] == 0.0


def test_attack_pass_counts_in_fpr_h_only_when_valid():
    accepted = task("a", [("gold", P), ("near_miss", F), ("hack", P), ("process_violation", F)])
    invalid = task("b", [("gold", P), ("near_miss", F), ("hack", U), ("process_violation", U)])
    result = compute(accepted + invalid)
    # task a: 1 of 2 attacks accepted (50 %); task b: U is not an accepted attack (0 %)
    assert result["FPR_h"] == pytest.approx(25.0)
    assert result["by_group"]["hack"] == {"P": 1, "F": 0, "U": 1}


def test_tasks_weigh_equally_whatever_their_case_counts():
    small = task("small", [("gold", P), ("cosmetic", P), ("near_miss", F)])  # r+ = 1
    big = task("big", [("gold", F)] + [("cosmetic", F)] * 19 + [("near_miss", F)])  # r+ = 0
    result = compute(small + big)
    assert result["TPR"] == pytest.approx(50.0)  # pooled over cases it would be 2/22
    assert result["TNR"] == pytest.approx(100.0)


def test_missing_task_contributes_zero_to_both_rates():
    perfect = lambda c: P if Category(c).label.value == "PASS" else F
    records = uniform("a", perfect)
    inventory = [TaskInfo("a", "tool-call", "bfcl"), TaskInfo("missing", "state", "tau2")]
    result = compute(records, inventory)
    assert (result["TPR"], result["TNR"], result["BA_norm"]) == (50.0, 50.0, 0.0)
    assert (result["n_tasks"], result["n_submitted"], result["submission_rate"]) == (2, 1, 50.0)
    assert result["by_type"]["state"]["BA_norm"] == -100.0
    assert result["by_type"]["tool-call"]["BA_norm"] == 100.0
    assert result["by_source"]["tau2"]["submission_rate"] == 0.0
    assert result["positive_acceptance"]["none"] == 1


def test_unsubmitted_task_scores_zero_even_with_recorded_cases():
    records = uniform("a", lambda c: U, submitted=False)
    result = compute(records)
    assert result["n_submitted"] == 0 and result["BA_norm"] == -100.0
    assert result["counts"] == {"P": 0, "F": 0, "U": 5}


def test_all_reject_concentration_and_acceptance():
    all_reject = uniform("a", lambda c: F)  # 2 positive FAILs, all-reject
    partly = task("b", [("gold", P), ("cosmetic", F), ("near_miss", F)])  # 1 positive FAIL of 2
    with_u = task("c", [("gold", F), ("near_miss", U)])  # a U excludes it from all-reject
    result = compute(all_reject + partly + with_u)
    ar = result["all_reject"]
    assert ar["tasks"] == 1 and ar["positive_fails"] == 2
    assert ar["share_cases"] == pytest.approx(100 * 2 / 4)
    assert ar["share_tasks"] == pytest.approx(100 * 1 / (1 + 0.5 + 1))
    assert result["positive_acceptance"] == {"none": 2, "some": 1, "all": 0}
    assert result["rejection_share"] == pytest.approx(100.0)


def test_by_category_counts_and_groups():
    records = task("a", [("gold", P), ("overstrict_trap", F), ("overstrict_trap", U), ("regression", P), ("base", F)])
    result = compute(records)
    assert result["by_category"]["overstrict_trap"] == {"P": 0, "F": 1, "U": 1}
    assert result["by_group"]["ordinary_error"] == {"P": 1, "F": 1, "U": 0}
    assert result["by_group"]["valid_alternative"] == {"P": 0, "F": 1, "U": 1}


def test_task_without_negatives_is_rejected():
    with pytest.raises(ValueError, match="no negative case"):
        compute(task("a", [("gold", P)]))


def test_duplicate_case_is_rejected():
    records = task("a", [("gold", P), ("near_miss", F)])
    with pytest.raises(ValueError, match="twice"):
        compute(records + records[:1])


@pytest.mark.parametrize("value,text", [(62.05, "62.1"), (-0.05, "-0.1"), (0.04999, "0.0"), (100.0, "100.0"), (None, "n/a"), (33.333333, "33.3")])
def test_display_rounds_each_value_half_away_from_zero(value, text):
    assert display(value) == text


def test_case_counts_by_label_and_the_rate_of_a_label_without_cases():
    from verifierbench.core.metrics import CaseCounts
    from verifierbench.core.schema import Label

    counts = CaseCounts()
    for decision in (Decision.P, Decision.P, Decision.U):
        counts.add_labelled(Label.PASS, decision)
    assert counts.r_pos() == pytest.approx(2 / 3)
    assert (counts.r_neg(), counts.r_neg(none=1.0)) == (0.0, 1.0)  # no negative case: the caller says what that means
    assert CaseCounts(submitted=False).r_neg(none=1.0) == 0.0  # no verifier: 0 whatever


def test_the_audit_summary_rates_come_from_the_metrics_core(monkeypatch):
    """audit/lightweight.summarize aggregates through metrics.task_weighted: no rate logic of its own."""
    from verifierbench.core import metrics
    from verifierbench.audit import lightweight

    calls = []
    monkeypatch.setattr(lightweight, "task_weighted", lambda tasks: calls.append(list(tasks)) or metrics.task_weighted(tasks))
    case = TestCase.create(task_id="t1", category="gold", candidate={})
    audit = lightweight.TaskAudit("t1", [lightweight.TrialAudit("A", "t1", "audited-clean", {case.id: Decision.P}, trial=object())], [])
    row = lightweight.summarize([audit], {"t1": [case]})["configurations"][0]
    assert len(calls) == 2 and (row["TPR"], row["TNR"], row["BA_norm"]) == (100.0, 100.0, 100.0)  # no negative case: all right


def test_the_rates_do_not_depend_on_the_order_the_tasks_come_in():
    """Tasks read in another order (logs, shards) give the same rates to the last bit: a plain float sum does not
    (0.1 + 0.2 + 0.3 != 0.3 + 0.2 + 0.1), and median_round breaks ties between rounds on exact equality."""
    from verifierbench.core.metrics import TaskRates, task_weighted

    shares = [0.1, 0.2, 0.3, 0.7, 1 / 3, 2 / 3]
    tasks = [TaskRates(r, 1 - r, r / 2, True, 10, 10) for r in shares]
    assert sum(shares) != sum(reversed(shares))  # the hazard is real for these values
    assert task_weighted(tasks) == task_weighted(tasks[::-1]) == task_weighted(tasks[2:] + tasks[:2])
