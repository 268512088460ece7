"""The deterministic auditor (model-free): fresh candidates per task type from the project's generators."""

from __future__ import annotations

from verifierbench.audit.witness import Proposal
from verifierbench.schema import Task, TaskType

NAME = "deterministic"


def supports(task: Task) -> bool:
    if task.type is TaskType.state:
        from verifierbench.audit import state

        return state.supports(task)  # tau2 and AgentDojo; AppWorld has no auditor yet
    return task.type in (TaskType.tool_call, TaskType.code)


def propose(task: Task, round_index: int, seed: int) -> list[Proposal]:
    if task.type is TaskType.tool_call:
        from verifierbench.audit import toolcall

        return toolcall.propose(task, round_index, seed)
    if task.type is TaskType.code:
        from verifierbench.audit import code

        return code.propose(task, round_index, seed)
    if task.type is TaskType.state and supports(task):
        from verifierbench.audit import state

        return state.propose(task, round_index, seed)
    raise NotImplementedError(f"no deterministic auditor for {task.source.value} tasks yet")
