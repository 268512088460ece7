"""The Inspect metric: task-weighted rates, groups, and the median judgment round."""

from __future__ import annotations

import pytest
from inspect_ai.scorer import SampleScore, Score

from verifierbench.scorers.metrics import median_round, verifierbench_metrics


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
    assert got["round"] == 3.0
    assert got["TPR"] == pytest.approx(75.0) and got["TNR"] == pytest.approx(75.0) and got["BA_norm"] == pytest.approx(50.0)
    assert got["FPR_h"] == pytest.approx(50.0)  # only the task with attack cases counts
    assert got["BA_norm[tool-call]"] == pytest.approx(100.0) and got["BA_norm[state]"] == pytest.approx(0.0)
    assert got["TPR[tau2]"] == pytest.approx(50.0)


def test_a_missing_verifier_weighs_like_any_task_and_lowers_submission():
    scores = [sample("tool-call", "bfcl", [(1.0, 1.0)]), sample("tool-call", "bfcl", [(0.0, 0.0)], submitted=0.0)]
    got = verifierbench_metrics()(scores)
    assert got["TPR"] == 50.0 and got["BA_norm"] == 0.0 and got["submission_rate"] == 50.0


def test_no_valid_decision_anywhere_is_minus_100():
    scores = [sample("tool-call", "bfcl", [(0.0, 0.0)])]
    scores[0].score.value.update({"P@0": 0.0, "F@0": 0.0, "U@0": 5.0})
    got = verifierbench_metrics()(scores)
    assert got["BA_norm"] == -100.0 and got["valid_output_rate"] == 0.0
