"""Executor jobs for verifier runs that may call `run_public`: every state- or code-task case gets a service of
its own, started when the run gets an executor slot and stopped when it ends, so each run has the
evaluation budget to itself, no run sees another's calls, and at most `slots` services are alive."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from verifierbench.executor import Job
from verifierbench.public_env.registry import environment_for, has_environment, read_only_inputs
from verifierbench.public_env.service import PublicService
from verifierbench.schema import Task, TaskType

EVALUATION_BUDGET = 20  # run_public calls per verifier run on one case (generation has its own budget)
# A code task's verifier may run the repository's tests (django's runner alone starts in seconds), so its
# runs get more than the executor's per-case limit; the tests' own run is capped at 600 s inside.
CODE_CASE_TIMEOUT_S = 300.0


def case_job(task: Task | None, verifier: Any, candidate: Any, key: str, budget: int = EVALUATION_BUDGET) -> Job:
    if task is None or not has_environment(task):
        return Job(verifier, candidate, key=key)

    @contextmanager
    def service() -> Iterator[str]:
        with PublicService(environment_for(task), budget) as running:
            yield str(running.directory)

    timeout = CODE_CASE_TIMEOUT_S if task.type is TaskType.code else None
    return Job(verifier, candidate, key=key, public=service, extra_ro=read_only_inputs(task), timeout_s=timeout)
