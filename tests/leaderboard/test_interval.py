"""The bootstrap interval on BA_norm: reproducible, around the mean, degenerate when every task agrees."""

from __future__ import annotations

import pytest

from verifierbench.leaderboard.interval import bootstrap_interval


def test_equal_tasks_give_a_point_interval():
    assert bootstrap_interval([40.0] * 12) == (40.0, 40.0)


def test_the_interval_holds_the_mean_and_is_seeded():
    values = [100.0, -100.0, 0.0, 50.0, 20.0, -30.0, 80.0, 10.0]
    low, high = bootstrap_interval(values, resamples=2000)
    mean = sum(values) / len(values)
    assert low < mean < high and -100 <= low and high <= 100
    assert bootstrap_interval(values, resamples=2000) == (low, high)
    narrower = bootstrap_interval(values, resamples=2000, level=0.5)
    assert low <= narrower[0] <= narrower[1] <= high


def test_no_tasks_is_an_error():
    with pytest.raises(ValueError):
        bootstrap_interval([])
