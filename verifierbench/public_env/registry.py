"""Which public environment a task has: by the checker its reference record names."""

from __future__ import annotations

from verifierbench.schema import Task
from verifierbench.sources.interaction.environment import ServedEnvironment


def has_environment(task: Task) -> bool:
    return task.reference.get("checker") in ("agentdojo", "tau2", "swebench")


def read_only_inputs(task: Task) -> tuple[tuple[str, str], ...]:
    """(host path, sandbox path) every run for this task sees read-only: a code task's checkout at /repo,
    and its test environment at /env (what SWE-bench's image gives a solver: the repository's interpreter
    and test requirements)."""
    if task.reference.get("checker") == "swebench":
        from verifierbench.sources.swebench.checkout import checkout_dir
        from verifierbench.sources.swebench.envs import SANDBOX_ENV
        from verifierbench.sources.swebench.reference import environment_of

        environment = environment_of(task.reference)
        return ((str(checkout_dir(task.reference["checkout"])), "/repo"),
                *(((str(environment), SANDBOX_ENV),) if environment else ()))
    return ()


def environment_for(task: Task) -> ServedEnvironment:
    checker = task.reference.get("checker")
    if checker == "agentdojo":
        from verifierbench.sources.agentdojo.environment import environment_for as agentdojo

        return agentdojo(task.reference)
    if checker == "tau2":
        from verifierbench.sources.tau2.environment import environment_for as tau2

        return tau2(task.reference)
    if checker == "swebench":
        from verifierbench.sources.swebench.environment import environment_for as swebench

        return swebench(task.reference)
    raise ValueError(f"task {task.source.value}/{task.source_id} has no public environment")
