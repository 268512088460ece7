"""What the harness records about the running sample in its store (Inspect's public `store()`), for code that runs
inside the sample without its TaskState: the model-free policies (policies/provider.py) read the task type and the
sample id here instead of through Inspect's private task-state accessor."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store

TASK_TYPE_KEY = "verifierbench:task_type"
SAMPLE_ID_KEY = "verifierbench:sample_id"


@solver
def record_sample() -> Solver:
    """The task's first solver: puts the sample's task type and id in its store."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        store().set(TASK_TYPE_KEY, str(state.metadata.get("task_type", "")))
        store().set(SAMPLE_ID_KEY, state.sample_id)
        return state

    return solve


def current_task_type() -> str:
    """The running sample's task type; "" outside a sample or before record_sample ran."""
    return str(store().get(TASK_TYPE_KEY, ""))


def current_sample_id() -> str | int | None:
    """The running sample's id; None outside a sample or before record_sample ran."""
    return store().get(SAMPLE_ID_KEY)
