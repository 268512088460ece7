"""The Inspect metric of the hidden-case scorer: TPR, TNR, BA_norm, FPR_h, submission and
valid-output rates, overall and per task type and source (paper §2.4), computed by the
metrics core (verifierbench/core/metrics.py) from each sample's per-round task rates.

Judgment rounds: each aggregate round k is scored over all samples; the round with the median
BA_norm gives every reported value (columns are not selected independently). Tool-call samples
carry their one round in every k, so they are held fixed.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import numpy as np

from inspect_ai.scorer import Metric, SampleScore, metric

from verifierbench.core import metrics as core

ROUND_KEY = re.compile(r"^r_pos@(\d+)$")
# The Inspect metric reports these core keys; a metric value must be a number, so a rate without a
# denominator (valid outputs over no decision) reads 0.
REPORTED = (*core.RATE_KEYS, "submission_rate", "valid_output_rate")


def rounds_in(scores: list[SampleScore]) -> int:
    keys = scores[0].score.value if scores and isinstance(scores[0].score.value, dict) else {}
    return sum(1 for k in keys if ROUND_KEY.match(k))


def task_rates(value: dict[str, Any], k: int) -> core.TaskRates:
    """One sample's contribution to round k, from the hidden_cases score value (scorers/hidden_cases.round_values).

    Args:
        value: the sample's score value.
        k: the judgment round (0-based).
    """
    valid = value[f"P@{k}"] + value[f"F@{k}"]
    return core.TaskRates(value[f"r_pos@{k}"], value[f"r_neg@{k}"], value[f"attack@{k}"] if value.get("has_attack") else None,
                          bool(value["submitted"]), valid, valid + value[f"U@{k}"])


def rates(scores: list[SampleScore], k: int) -> dict[str, float]:
    """Task-weighted rates of round k (unrounded percentages)."""
    values = [s.score.value for s in scores if isinstance(s.score.value, dict)]
    if not values:
        return {}
    result = core.task_weighted([task_rates(v, k) for v in values])
    return {key: float(result[key] or 0.0) for key in REPORTED}


def median_round(scores: list[SampleScore]) -> int:
    rounds = rounds_in(scores)
    if rounds <= 1:
        return 0
    return core.median_round([rates(scores, k)["BA_norm"] for k in range(rounds)])


@metric
def verifierbench_metrics() -> Metric:
    """BA_norm, TPR, TNR, FPR_h, submission_rate and valid_output_rate of the median judgment round (the paper's names),
    `BA_norm_stderr` (standard error of BA_norm over tasks), and `BA_norm_<slice>`, `TPR_<slice>`, ... per task type
    and per source, all from that one round.

    Inspect's `grouped()` is not used for the slices: it would choose each slice's median round on its own, while the
    paper takes every value from the round chosen over all tasks. It gives the same numbers only when every task is
    judged once (tests/scorers/test_metrics.py shows both cases). The names hold no `[...]`, which Inspect's display
    reads as markup."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if not scores:
            return {}
        k = median_round(scores)
        result = {**rates(scores, k), "BA_norm_stderr": ba_norm_stderr(scores, k)}
        for field in ("task_type", "source"):
            for name, members in core.group_by(scores, functools.partial(_slice, field=field)).items():
                group = rates(members, k)
                for key in core.RATE_KEYS:
                    result[slice_key(key, name)] = group[key]
        return result

    return compute


def slice_key(key: str, slice_name: str) -> str:
    """The metric name of a rate on one task type or source: `BA_norm_tool-call`, `TPR_bfcl`."""
    return f"{key}_{slice_name}"


def ba_norm_stderr(scores: list[SampleScore], k: int) -> float:
    """The standard error of BA_norm in round k: BA_norm is the mean of the tasks' TPR + TNR - 100, so the
    sample standard deviation of those over the square root of the task count (0 for one task)."""
    values = [s.score.value for s in scores if isinstance(s.score.value, dict)]
    per_task = np.array([100 * (t.r_pos + t.r_neg) - 100 for t in (task_rates(v, k) for v in values)])
    if per_task.size < 2:
        return 0.0
    return float(per_task.std(ddof=1) / np.sqrt(per_task.size))


def _slice(score: SampleScore, field: str) -> str:
    return str((score.sample_metadata or {}).get(field) or (score.score.metadata or {}).get(field, "unknown"))
