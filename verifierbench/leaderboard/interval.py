"""A bootstrap confidence interval on BA_norm: tasks resampled with replacement (BA_norm is a mean over tasks).

Computed with numpy, in chunks of resamples so memory stays bounded for suites of thousands of tasks."""

from __future__ import annotations

import numpy as np

RESAMPLES = 10_000
LEVEL = 0.95
CHUNK_CELLS = 4_000_000  # resampled values held at once (about 32 MB of float64)


def bootstrap_interval(values: list[float], resamples: int = RESAMPLES, level: float = LEVEL, seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the mean over `resamples` resamples of `values` (seeded, so reproducible).

    Args:
        values: one value per task (each task's TPR + TNR - 100 in the chosen round).
        resamples: bootstrap resamples.
        level: the interval's coverage.
        seed: the generator's seed.
    """
    if not values:
        raise ValueError("no tasks to resample")
    data = np.asarray(values, dtype=float)
    n = data.size
    rng = np.random.default_rng(seed)
    per_chunk = max(1, CHUNK_CELLS // n)
    means = np.concatenate([data[rng.integers(0, n, size=(min(per_chunk, resamples - start), n))].mean(axis=1)
                            for start in range(0, resamples, per_chunk)])
    tail = (1 - level) / 2
    low, high = np.quantile(means, [tail, 1 - tail], method="inverted_cdf")
    return float(low), float(high)
