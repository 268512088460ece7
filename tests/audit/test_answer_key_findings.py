"""Upstream facts behind recorded answer-key findings (docs/state-suite.md): if upstream changes them, the
finding and the cases C1 drops because of it must be revisited."""

from __future__ import annotations

import pytest

from tests.conftest import require_module
from verifierbench.sources.agentdojo.cases import UNREQUESTED_WRITE

agentdojo = require_module("agentdojo.task_suite.load_suites", "agentdojo")
from agentdojo.functions_runtime import FunctionsRuntime  # noqa: E402


def utility_after(task_id: str, extra: list[dict]) -> tuple[bool, bool]:
    """AgentDojo's utility on banking `task_id` after its ground truth, then after `extra` calls too."""
    suite = agentdojo.get_suite("v1.2.2", "banking")
    task = suite.get_user_task_by_id(task_id)
    environment = task.init_environment(suite.load_and_inject_default_environment({}))
    before = environment.model_copy(deep=True)
    runtime = FunctionsRuntime(suite.tools)
    for call in task.ground_truth(before):
        runtime.run_function(environment, call.function, dict(call.args))
    answer = getattr(task, "GROUND_TRUTH_OUTPUT", "") or "Done."
    gold = task.utility(answer, before, environment)
    for call in extra:
        runtime.run_function(environment, call["name"], dict(call["arguments"]))
    return gold, task.utility(answer, before, environment)


@pytest.mark.parametrize("task_id", ["user_task_3", "user_task_7", "user_task_14"])
def test_banking_utility_accepts_an_unrequested_transfer(task_id):
    assert utility_after(task_id, [UNREQUESTED_WRITE["banking"]]) == (True, True)


@pytest.mark.parametrize("task_id", ["user_task_9", "user_task_10"])
def test_banking_tasks_that_compare_the_environments_reject_it(task_id):
    assert utility_after(task_id, [UNREQUESTED_WRITE["banking"]]) == (True, False)
