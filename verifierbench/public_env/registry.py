"""Which public environment a task has, and what it mounts read-only: its source's hooks (sources/registry.py)."""

from __future__ import annotations

from verifierbench.schema import Task
from verifierbench.sources import registry
from verifierbench.sources.interaction.environment import ServedEnvironment


def has_environment(task: Task) -> bool:
    return registry.has_environment(task.reference)


def read_only_inputs(task: Task) -> tuple[tuple[str, str], ...]:
    """(host path, sandbox path) every run for this task sees read-only (a code task's checkout and test environment)."""
    return registry.read_only_inputs(task.reference)


def case_timeout(task: Task) -> float | None:
    """Seconds one verifier run on a case of this task may take (a code task's budget); None: the executor's own."""
    return registry.case_timeout(task.reference)


def environment_for(task: Task) -> ServedEnvironment:
    if not registry.has_environment(task.reference):
        raise ValueError(f"task {task.source.value}/{task.source_id} has no public environment")
    return registry.environment_for(task.reference)
