"""The deterministic auditor (model-free): fresh candidates from the generators the task's source declares."""

from __future__ import annotations

from verifierbench.construction.proposals import Proposal
from verifierbench.schema import Task
from verifierbench.sources import registry

NAME = "deterministic"


def supports(task: Task) -> bool:
    """Whether the task's source has generators for the deterministic auditor (its `audit_proposals`)."""
    return registry.known(task.reference) and registry.of(task.reference).implements("audit_proposals")


def propose(task: Task, round_index: int, seed: int) -> list[Proposal]:
    if not supports(task):
        raise NotImplementedError(f"no deterministic auditor for {task.type.value} tasks yet")
    return registry.of(task.reference).audit_proposals(task, round_index, seed)
