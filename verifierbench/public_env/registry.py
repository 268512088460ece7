"""Which public environment a task has, and what it mounts read-only: its source's methods (sources/base.py)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Callable

from verifierbench.public_env.service import REQUEST_TIMEOUT_S
from verifierbench.core.schema import Task
from verifierbench.suite.store import checkout_dirs
from verifierbench.sources import registry
from verifierbench.sources.interaction.environment import ServedEnvironment


def has_environment(task: Task) -> bool:
    """Whether the task has a public environment the agent may run (its source's `public_environment`)."""
    return registry.known(task.reference) and registry.of(task.reference).public_environment


def read_only_inputs(task: Task) -> tuple[tuple[str, str], ...]:
    """(host path, sandbox path) every run for this task sees read-only (a code task's checkout and test environment)."""
    return registry.of(task.reference).read_only_inputs(task.reference) if registry.known(task.reference) else ()


def case_timeout(task: Task) -> float | None:
    """Seconds one verifier run on a case of this task may take (a code task's budget); None: the executor's own."""
    return registry.of(task.reference).case_timeout(task.reference) if registry.known(task.reference) else None


def environment_for(task: Task) -> ServedEnvironment:
    if not has_environment(task):
        raise ValueError(f"task {task.source.value}/{task.source_id} has no public environment")
    return environment_of(task.reference)


def recipe_for(task: Task) -> Callable[[], ServedEnvironment]:
    """What builds the task's environment where it is served (a run_public worker process, public_env.pool):
    picklable, from the task's reference record alone."""
    if not has_environment(task):
        raise ValueError(f"task {task.source.value}/{task.source_id} has no public environment")
    return partial(environment_of, task.reference, checkout_dirs())


def environment_of(reference: dict[str, Any], checkouts: tuple[Path, ...] = ()) -> ServedEnvironment:
    """The environment of a reference record; `checkouts`: the loaded suites' checkouts folders, where a code task's
    checkout is found (a worker process has loaded no suite)."""
    for directory in checkouts:
        for declared in registry.SOURCES.values():
            declared.add_checkout_dir(directory)
    return registry.of(reference).environment(reference)


def request_timeout(task: Task) -> float:
    """One run_public request's limit for this task: a code task's test run may take its whole case budget."""
    return max(REQUEST_TIMEOUT_S, (case_timeout(task) or 0) + REQUEST_TIMEOUT_S)
