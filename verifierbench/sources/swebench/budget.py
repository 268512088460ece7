"""How long one run on a code case may take, per task: derived at build time from the wall times of the
task's own hidden test runs, and recorded in the task's reference record (`case_timeout_s`).

The evidence: C1 already runs every hidden case (gold, base, regressions, near-misses, hacks ...) through
the reference at build time, each one a test run of the task's hidden tests; the build times every one of
them in its sandbox (from its slot on: the build runs several at once on fewer slots, and the wait for one is
not the run's cost) and takes the slowest, the gold's included (`slowest_seconds`). The gold alone is not enough: a failing candidate's run can
cost several times the gold's (matplotlib-22719: gold 25 s, near-miss and regression candidates 140-174 s
under `judge`, because failing image comparisons write diff images and tracebacks).

The rule: four times the slowest case run, rounded up to the next step of 300 s doubled (300, 600, 1200,
2400, 4800 s ...), never below 300 s. Why four: a verifier that runs the task's tests through `run_public`
runs them on the candidate and often once more on the base to compare (two runs), and this machine's runs
of the same tests spread up to twice their build-time wall time under load (matplotlib-24149's test_axes:
530-1,100 s). Why the doubling steps: the budget is part of the task's content hash, so it must not follow
the measurement's noise from build to build. The floor is the fixed budget every code task had before
budgets were recorded; a suite built then has no field and keeps it.

Standard library only: an exported reference verifier reads its test run's limit from here in the sandbox.
"""

from __future__ import annotations

import math
from typing import Any

FLOOR_S = 300.0  # also the verifier run's budget of a suite built before budgets were recorded
FACTOR = 4.0  # two test runs (candidate and base), each up to twice its build-time wall time under load
LEGACY_TEST_TIMEOUT_S = 600.0  # one test run's cap in a suite built before budgets were recorded
BUILD_TEST_TIMEOUT_S = 4800.0  # every test run at build time (gold, empty diff, cases), before any budget exists
RUN_OVERHEAD_S = 60.0  # around a test run's own limit: copying the checkout and overlay, applying diffs, the report


def case_timeout_for(slowest_seconds: float) -> float:
    """The budget of a run on a case of a task whose slowest hidden test run at build time took `slowest_seconds`.

    Args:
        slowest_seconds: the longest wall time of the task's hidden test runs at build time, over the gold and
            every case (0 or less: unmeasured).
    """
    needed = FACTOR * max(slowest_seconds, 0.0)
    if needed <= FLOOR_S:
        return FLOOR_S
    doubled: float = FLOOR_S * 2 ** math.ceil(math.log2(needed / FLOOR_S))
    return doubled


def _recorded(reference: dict[str, Any]) -> float | None:
    value = reference.get("case_timeout_s")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return float(value)
    return None


def case_timeout_s(reference: dict[str, Any]) -> float:
    """The wall-clock limit of one verifier run on a case of this task: recorded, else the old fixed 300 s.

    Args:
        reference: a code task's reference record.
    """
    return _recorded(reference) or FLOOR_S


def run_timeout_s(reference: dict[str, Any]) -> float:
    """The limit of one run of the task's tests (the reference's hidden run, a `run_public`): the task's budget,
    else the old fixed 600 s.

    Args:
        reference: a code task's reference record (or the build's draft of one).
    """
    return _recorded(reference) or LEGACY_TEST_TIMEOUT_S
