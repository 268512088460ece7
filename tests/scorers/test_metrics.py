"""The Inspect metric: task-weighted rates, groups, and the median judgment round."""

from __future__ import annotations

import pytest
from inspect_ai.scorer import SampleScore, Score

from verifierbench.scorers.metrics import median_round, slice_key, verifierbench_metrics


def sample(task_type, source, rounds, submitted=1.0, attack=None):
    """rounds: [(r_pos, r_neg), ...]; attack: accepted attack share per round (None: no attack cases)."""
    value = {"submitted": submitted, "has_attack": float(attack is not None)}
    for k, (pos, neg) in enumerate(rounds):
        value |= {f"r_pos@{k}": pos, f"r_neg@{k}": neg, f"attack@{k}": (attack or [0.0] * len(rounds))[k],
                  f"P@{k}": 1.0, f"F@{k}": 1.0, f"U@{k}": 0.0}
    return SampleScore(score=Score(value=value), sample_id=f"{source}-{len(rounds)}-{rounds}",
                       sample_metadata={"task_type": task_type, "source": source})


def test_the_median_round_gives_the_whole_row():
    # Tool-call task: one round held fixed in every k. State task: rounds with BA_norm 100, 0 and 50 in aggregate.
    scores = [sample("tool-call", "bfcl", [(1.0, 1.0)] * 3),
              sample("state", "tau2", [(1.0, 1.0), (0.0, 0.0), (0.5, 0.5)], attack=[0.0, 1.0, 0.5])]
    assert median_round(scores) == 2
    got = verifierbench_metrics()(scores)
    assert "round" not in got  # not a score: the leaderboard recomputes the round from the samples
    assert got["TPR"] == pytest.approx(75.0) and got["TNR"] == pytest.approx(75.0) and got["BA_norm"] == pytest.approx(50.0)
    assert got["FPR_h"] == pytest.approx(50.0)  # only the task with attack cases counts
    assert got["BA_norm_tool-call"] == pytest.approx(100.0) and got["BA_norm_state"] == pytest.approx(0.0)
    assert got["TPR_tau2"] == pytest.approx(50.0)
    # Per-task BA_norm in round 3: 100 (tool-call) and 0 (state): standard deviation 70.71, over sqrt(2).
    assert got["BA_norm_stderr"] == pytest.approx(50.0)


def test_a_missing_verifier_weighs_like_any_task_and_lowers_submission():
    scores = [sample("tool-call", "bfcl", [(1.0, 1.0)]), sample("tool-call", "bfcl", [(0.0, 0.0)], submitted=0.0)]
    got = verifierbench_metrics()(scores)
    assert got["TPR"] == 50.0 and got["BA_norm"] == 0.0 and got["submission_rate"] == 50.0


def test_no_valid_decision_anywhere_is_minus_100():
    scores = [sample("tool-call", "bfcl", [(0.0, 0.0)])]
    scores[0].score.value.update({"P@0": 0.0, "F@0": 0.0, "U@0": 5.0})
    got = verifierbench_metrics()(scores)
    assert got["BA_norm"] == -100.0 and got["valid_output_rate"] == 0.0


def test_the_inspect_metric_and_the_decisions_report_come_from_one_core():
    """The same decisions through the scorer's per-round values and the Inspect metric, and through `compute` (what
    `verifierbench metrics` and the leaderboard use), give the same round and the same rates under the same keys."""
    from types import SimpleNamespace

    from verifierbench.core import metrics as core
    from verifierbench.core.protocol import Decision
    from verifierbench.core.schema import Category
    from verifierbench.scorers.diagnostics import Judged
    from verifierbench.scorers.hidden_cases import round_values
    from verifierbench.scorers.metrics import REPORTED

    P, F, U = Decision.P, Decision.F, Decision.U
    tasks = {  # task id -> (type, source, submitted, [(category, decision per judged round)])
        "t1": ("tool-call", "bfcl", True, [("gold", [P]), ("near_miss", [P]), ("hack", [F])]),
        "t2": ("state", "tau2", True, [("gold", [F, P, U]), ("cosmetic", [P, P, F]), ("near_miss", [P, F, F]), ("hack", [F, P, F])]),
        "t3": ("state", "agentdojo", False, [("gold", [U] * 3), ("partial", [U] * 3)]),
        "t4": ("state", "tau2", True, [("gold", [P, P, P]), ("partial", [F, U, P])]),
    }
    scores, records_by_round = [], [[] for _ in range(3)]
    for task_id, (task_type, source, submitted, cases) in tasks.items():
        objects = [SimpleNamespace(id=f"{task_id}-{i}", category=Category(c)) for i, (c, _) in enumerate(cases)]
        decisions = {o.id: [Judged(d) for d in rounds] for o, (_, rounds) in zip(objects, cases)}
        judged = len(cases[0][1])
        scores.append(SampleScore(score=Score(value=round_values(objects, decisions, submitted, 3, judged)), sample_id=task_id,
                                  sample_metadata={"task_type": task_type, "source": source}))
        for k in range(3):
            records_by_round[k] += [core.DecisionRecord(task_id, o.id, o.category, o.category.label, rounds[min(k, judged - 1)],
                                                        task_type, source, submitted) for o, (_, rounds) in zip(objects, cases)]
    by_round = [core.compute(records) for records in records_by_round]
    k = core.median_round([result["BA_norm"] for result in by_round])
    assert [result["BA_norm"] for result in by_round] == [12.5, 0.0, -12.5] and k == 1  # neither the first round nor the best
    got = verifierbench_metrics()(scores)
    assert median_round(scores) == k
    for key in REPORTED:
        assert got[key] == pytest.approx(by_round[k][key]), key
    for slice_name, result in [*by_round[k]["by_type"].items(), *by_round[k]["by_source"].items()]:
        for key in core.RATE_KEYS:
            assert got[slice_key(key, slice_name)] == pytest.approx(result[key]), (key, slice_name)


def test_the_median_round_rule():
    from verifierbench.core.metrics import median_round as core_median_round

    assert core_median_round([10.0, 30.0, 20.0]) == 2
    assert core_median_round([5.0, 5.0, 5.0]) == 1  # ties: by round
    assert core_median_round([1.0, 0.0]) == 1  # an even count: the lower middle
    assert core_median_round([7.0]) == 0
    with pytest.raises(ValueError):
        core_median_round([])


def test_inspects_grouped_gives_the_same_slices_only_for_tasks_judged_once():
    """Why the slices are not Inspect's `grouped()`: it picks each slice's median round on its own. Tasks judged once
    (tool-call) get the same numbers either way; state tasks judged three times need not (paper §2.4: one round)."""
    from inspect_ai.scorer import grouped

    def both(scores):
        ours = verifierbench_metrics()(scores)
        theirs = grouped(verifierbench_metrics(), "source", all=False)(scores)
        return ({s: ours[slice_key("BA_norm", s)] for s in theirs}, {s: v["BA_norm"] for s, v in theirs.items()})

    once = [sample("tool-call", "bfcl", [(1.0, 0.5)]), sample("tool-call", "acebench", [(1.0, 0.25)]),
            sample("tool-call", "bfcl", [(0.5, 0.5)])]
    ours, theirs = both(once)
    assert ours == pytest.approx(theirs) and ours == pytest.approx({"bfcl": 25.0, "acebench": 25.0})
    # Per round, tau2 scores BA_norm 0, 50, 100 and AgentDojo 100, 0, 50: overall 50, 25, 75, so round 1 (50) is
    # the median. grouped() takes tau2's round 2 and AgentDojo's round 3 instead: 50 and 50, not 0 and 100.
    thrice = [sample("state", "tau2", [(1.0, 0.0), (1.0, 0.5), (1.0, 1.0)]),
              sample("state", "agentdojo", [(1.0, 1.0), (1.0, 0.0), (1.0, 0.5)])]
    ours, theirs = both(thrice)
    assert ours == pytest.approx({"tau2": 0.0, "agentdojo": 100.0}) and theirs == pytest.approx({"tau2": 50.0, "agentdojo": 50.0})
