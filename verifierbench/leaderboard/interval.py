"""A bootstrap confidence interval on BA_norm: tasks resampled with replacement (BA_norm is a mean over tasks)."""

from __future__ import annotations

import random

from verifierbench.leaderboard.logs import ConfigurationRun, records
from verifierbench.metrics import TaskInfo, tally


def per_task_ba_norm(run: ConfigurationRun, tasks: list[TaskInfo], round_index: int) -> list[float]:
    """Each task's TPR + TNR - 100 in one judgment round (a task the configuration did not run counts -100)."""
    return [100 * (t.r_pos() + t.r_neg()) - 100 for t in tally(records(run, round_index), tasks).values()]


def bootstrap_interval(values: list[float], resamples: int = 10_000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the mean over `resamples` resamples of `values` (seeded, so reproducible)."""
    if not values:
        raise ValueError("no tasks to resample")
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    tail = (1 - level) / 2
    return means[int(tail * resamples)], means[min(resamples - 1, int((1 - tail) * resamples))]
