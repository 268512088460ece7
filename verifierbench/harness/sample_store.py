"""What the harness records about the running sample in its store (Inspect's public `store()`), for code that runs
inside the sample without its TaskState: the model-free policies (policies/provider.py) read the
sample id here instead of through Inspect's private task-state accessor, the format of a task with a public
environment (sources/formats/registry.py `sample_public_format`), and the harness's model transport (`-T transport`,
harness/registry.py), which the CLI harnesses read to choose how to reach the model."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store

from verifierbench.harness.transports import TRANSPORT_KEY
from verifierbench.sources.formats.base import Format
from verifierbench.sources.formats.registry import format_named, sample_public_format

SAMPLE_ID_KEY = "verifierbench:sample_id"
PUBLIC_FORMAT_KEY = "verifierbench:public_format"


@solver
def record_sample(transport: str = "") -> Solver:
    """The task's first solver: puts the sample's id, public-environment format and harness transport in its store.

    Args:
      transport: the harness's model transport in this run ("": the harness's default).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        store().set(SAMPLE_ID_KEY, state.sample_id)
        if transport:
            store().set(TRANSPORT_KEY, transport)
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
