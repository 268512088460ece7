"""The deterministic auditor (model-free): fresh candidates from the generators the task's source declares."""

from __future__ import annotations

from verifierbench.core.proposals import Proposal
from verifierbench.core.schema import Task
from verifierbench.sources import registry

NAME = "deterministic"


def supports(task: Task) -> bool:
    """Whether the task's source has a deterministic auditor (its `auditor`, by default its format's)."""
    return registry.known(task.reference) and registry.of(task.reference).auditor() is not None


def propose(task: Task, round_index: int, seed: int) -> list[Proposal]:
    auditor = registry.of(task.reference).auditor() if registry.known(task.reference) else None
    if auditor is None:
        raise NotImplementedError(f"no deterministic auditor for {task.source.value} tasks yet")
    return auditor(task, round_index, seed)
