"""The deterministic auditor (model-free): fresh candidates from the generators the task's source declares."""

from __future__ import annotations

from verifierbench.audit.witness import Proposal
from verifierbench.schema import Task
from verifierbench.sources import registry

NAME = "deterministic"


def supports(task: Task) -> bool:
    """Whether the task's source declares generators for the deterministic auditor (its `audit_generators`)."""
    return registry.audit_generators(task.reference) is not None


def propose(task: Task, round_index: int, seed: int) -> list[Proposal]:
    generators = registry.audit_generators(task.reference)
    if generators is None:
        raise NotImplementedError(f"no deterministic auditor for {task.type.value} tasks yet")
    return generators(task, round_index, seed)
