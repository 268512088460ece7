"""Executor jobs for verifier runs that may call `run_public`: every state- or code-task case gets a service of
its own, started when the run gets an executor slot and stopped when it ends, so each run has the
evaluation budget to itself, no run sees another's calls, and at most `slots` services are alive."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from verifierbench.executor import Job
from verifierbench.public_env.registry import case_timeout, has_environment, read_only_inputs, recipe_for, request_timeout
from verifierbench.public_env.service import PublicService
from verifierbench.sources.formats.registry import format_of
from verifierbench.core.schema import Task

EVALUATION_BUDGET = 20  # run_public calls per verifier run on one case (generation has its own budget)


def case_job(task: Task | None, verifier: Any, candidate: Any, key: str, budget: int = EVALUATION_BUDGET) -> Job:
    """One verifier run on one case, with the task's public service and read-only inputs when it has them.

    Args:
        task: the case's task (None: a plain run under the executor's limits).
        verifier: the frozen verifier.
        candidate: the case's candidate.
        key: the outcome's key.
        budget: run_public calls this run may make.
    """
    if task is None or not has_environment(task):
        return Job(verifier, candidate, key=key)

    @contextmanager
    def service() -> Iterator[str]:
        with PublicService(recipe_for(task), budget, request_timeout(task)) as running:
            yield str(running.directory)

    # A code task's verifier may run the repository's tests: its runs get the task's own budget (sources/swebench/budget.py).
    # ... and a loopback of its own, as the repository's tests may need one (executor Job.loopback).
    return Job(verifier, candidate, key=key, public=service, extra_ro=read_only_inputs(task), timeout_s=case_timeout(task),
               loopback=format_of(task).runs_tests)
