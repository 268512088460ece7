"""The sample store route by which the model-free policies learn the running sample's id and, for a task with a
public environment, its candidate format."""

from __future__ import annotations

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store

from verifierbench.harness.sample_store import current_public_format, current_sample_id, record_sample


@solver
def read_back() -> Solver:
    """What code running later in the sample (a model provider, a tool) reads."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        public = current_public_format()
        store().set("seen", [public.name if public else None, current_sample_id()])
        return state

    return solve


def test_record_sample_puts_the_public_format_and_id_where_the_policies_read_them(tmp_path):
    samples = [Sample(input="write a verifier", id="vgb-t-code",
                      metadata={"task_type": "code", "candidate_format": "diff", "public_environment": True}),
               # AppWorld's: a code candidate, and no public environment to run
               Sample(input="write a verifier", id="vgb-t-app",
                      metadata={"task_type": "state", "candidate_format": "code", "public_environment": False}),
               Sample(input="write a verifier", id="vgb-t-call", metadata={"task_type": "tool-call"})]
    (log,) = eval(Task(dataset=samples, solver=[record_sample(), read_back()]), model="mockllm/model", display="none",
                  log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert {s.id: s.store["seen"] for s in log.samples or []} == {"vgb-t-code": ["diff", "vgb-t-code"],
                                                                  "vgb-t-app": [None, "vgb-t-app"],
                                                                  "vgb-t-call": [None, "vgb-t-call"]}
    assert (current_public_format(), current_sample_id()) == (None, None)  # outside a sample: nothing recorded
