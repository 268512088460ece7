"""The sample store route by which the model-free policies learn the running sample's task type and id."""

from __future__ import annotations

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store

from verifierbench.harness.sample_store import current_sample_id, current_task_type, record_sample


@solver
def read_back() -> Solver:
    """What code running later in the sample (a model provider, a tool) reads."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        store().set("seen", [current_task_type(), current_sample_id()])
        return state

    return solve


def test_record_sample_puts_the_task_type_and_id_where_the_policies_read_them(tmp_path):
    samples = [Sample(input="write a verifier", id="vgb-t-code", metadata={"task_type": "code"}),
               Sample(input="write a verifier", id="vgb-t-call", metadata={"task_type": "tool-call"})]
    (log,) = eval(Task(dataset=samples, solver=[record_sample(), read_back()]), model="mockllm/model", display="none",
                  log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert {s.id: s.store["seen"] for s in log.samples or []} == {"vgb-t-code": ["code", "vgb-t-code"],
                                                                  "vgb-t-call": ["tool-call", "vgb-t-call"]}
    assert (current_task_type(), current_sample_id()) == ("", None)  # outside a sample: nothing recorded
