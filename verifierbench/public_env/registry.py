"""Which public environment a task has: by the checker its reference record names."""

from __future__ import annotations

from verifierbench.schema import Task
from verifierbench.sources.interaction.environment import PublicEnvironment


def has_environment(task: Task) -> bool:
    return task.reference.get("checker") in ("agentdojo", "tau2")


def environment_for(task: Task) -> PublicEnvironment:
    checker = task.reference.get("checker")
    if checker == "agentdojo":
        from verifierbench.sources.agentdojo.environment import environment_for as agentdojo

        return agentdojo(task.reference)
    if checker == "tau2":
        from verifierbench.sources.tau2.environment import environment_for as tau2

        return tau2(task.reference)
    raise ValueError(f"task {task.source.value}/{task.source_id} has no public environment")
