"""What the harness records about the running sample in its store (Inspect's public `store()`), for code that runs
inside the sample without its TaskState: the model-free policies (policies/provider.py) read the
sample id here instead of through Inspect's private task-state accessor, and the format of a task with a public
environment (sources/formats/registry.py `sample_public_format`)."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store

from verifierbench.sources.formats.base import Format
from verifierbench.sources.formats.registry import format_named, sample_public_format

SAMPLE_ID_KEY = "verifierbench:sample_id"
PUBLIC_FORMAT_KEY = "verifierbench:public_format"


@solver
def record_sample() -> Solver:
    """The task's first solver: puts the sample's id and public-environment format in its store."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        store().set(SAMPLE_ID_KEY, state.sample_id)
        public = sample_public_format(state.metadata)
        store().set(PUBLIC_FORMAT_KEY, public.name if public is not None else "")
        return state

    return solve


def current_sample_id() -> str | int | None:
    """The running sample's id; None outside a sample or before record_sample ran."""
    return store().get(SAMPLE_ID_KEY)


def current_public_format() -> Format | None:
    """The running sample's format when its task has a public environment; None otherwise, outside a sample, or
    before record_sample ran."""
    name = str(store().get(PUBLIC_FORMAT_KEY, ""))
    return format_named(name) if name else None
