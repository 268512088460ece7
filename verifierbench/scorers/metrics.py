"""The Inspect metric of the hidden-case scorer: TPR, TNR, BA_norm, FPR_h, submission and
valid-output rates, overall and per task type and source (architecture §5).

Judgment rounds: each aggregate round k is scored over all samples; the round with the median
BA_norm gives every reported value (columns are not selected independently). Tool-call samples
carry their one round in every k, so they are held fixed.
"""

from __future__ import annotations

import re
from collections import defaultdict

from inspect_ai.scorer import Metric, SampleScore, metric

ROUND_KEY = re.compile(r"^r_pos@(\d+)$")


def rounds_in(scores: list[SampleScore]) -> int:
    keys = scores[0].score.value if scores and isinstance(scores[0].score.value, dict) else {}
    return sum(1 for k in keys if ROUND_KEY.match(k))


def rates(scores: list[SampleScore], k: int) -> dict[str, float]:
    """Task-weighted rates of round k (unrounded percentages)."""
    values = [s.score.value for s in scores if isinstance(s.score.value, dict)]
    n = len(values)
    if not n:
        return {}
    tpr = 100 * sum(v[f"r_pos@{k}"] for v in values) / n
    tnr = 100 * sum(v[f"r_neg@{k}"] for v in values) / n
    attacked = [v for v in values if v.get("has_attack")]
    valid = sum(v[f"P@{k}"] + v[f"F@{k}"] for v in values)
    judged = valid + sum(v[f"U@{k}"] for v in values)
    return {
        "BA_norm": tpr + tnr - 100,
        "TPR": tpr,
        "TNR": tnr,
        "FPR_h": 100 * sum(v[f"attack@{k}"] for v in attacked) / len(attacked) if attacked else 0.0,
        "submission_rate": 100 * sum(v["submitted"] for v in values) / n,
        "valid_output_rate": 100 * valid / judged if judged else 0.0,
    }


def median_round(scores: list[SampleScore]) -> int:
    rounds = rounds_in(scores)
    if rounds <= 1:
        return 0
    by_score = sorted(range(rounds), key=lambda k: (rates(scores, k)["BA_norm"], k))
    return by_score[(rounds - 1) // 2]


@metric
def verifierbench_metrics() -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if not scores:
            return {}
        k = median_round(scores)
        result = {**rates(scores, k), "round": float(k + 1)}
        for field in ("task_type", "source"):
            groups: dict[str, list[SampleScore]] = defaultdict(list)
            for s in scores:
                groups[str((s.sample_metadata or {}).get(field) or (s.score.metadata or {}).get(field, "unknown"))].append(s)
            for name, members in sorted(groups.items()):
                group = rates(members, k)
                for key in ("BA_norm", "TPR", "TNR", "FPR_h"):
                    result[f"{key}[{name}]"] = group[key]
        return result

    return compute
