"""The hostile battery again, every run on the warm path (issue 22): each case in a warm sandbox's forked process."""

from __future__ import annotations

from typing import Iterable, Iterator

import pytest

from verifierbench.executor import Executor, Job, Limits, Outcome
from tests.executor.test_hostile_results import test_bad_confidence_and_reason_keep_the_decision  # noqa: F401
from tests.executor.test_hostile_verifiers import *  # noqa: F401,F403 - the same tests, this module's `sandbox`


class WarmOnly(Executor):
    """Runs every job through `run_warm`, and checks that the warm path ran it."""

    def run(self, job: Job) -> Outcome:
        return next(self.run_many([job]))

    def run_many(self, jobs: Iterable[Job], on_done=None) -> Iterator[Outcome]:
        for outcome in self.run_warm(jobs, on_done):
            assert outcome.path == "warm" or outcome.problem and "verifier" in outcome.problem, outcome
            yield outcome


@pytest.fixture
def sandbox(bwrap_available):
    with WarmOnly(Limits(timeout_s=3, memory_bytes=1 << 30, max_processes=32), isolation="bwrap", slots=2) as executor:
        yield executor
