"""Shared fixtures for the tau2 tests: one seed-0 build per session, and the package's own evaluator run on a trajectory."""

from __future__ import annotations

import asyncio
import tempfile
from types import SimpleNamespace

import pytest

from tests.conftest import require_module

require_module("inspect_evals.tau2", "inspect-evals")

from verifierbench.sources.interaction import record  # noqa: E402
from verifierbench.sources.tau2 import data  # noqa: E402
from verifierbench.sources.tau2.build import build  # noqa: E402


@pytest.fixture(scope="session")
def selection():
    return build(0)


@pytest.fixture(scope="session")
def gold_cases(selection) -> dict[str, dict]:
    """source id -> the gold case's candidate, for every retained task."""
    return {r.task.source_id: next(c.candidate for c in r.cases if c.category.value == "gold") for r in selection.retained}


@pytest.fixture()
def package_reward(tmp_path, monkeypatch):
    """The package's scorer (`retail_scorer` / `banking_scorer`) on a record, the way its solvers would leave the store:
    tool methods called without Inspect's argument casting and, for banking, the initial state applied to a copy
    (traps 1 and 2 kept out, so the comparison is with the package's evaluation itself). The package's retail loader
    leaves a temp file per load (trap 5): they land in tmp_path."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def reward(domain: str, task_id: str, candidate: dict) -> bool:
        from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
        from inspect_ai.scorer import CORRECT, Target
        from inspect_ai.tool import ToolCall, ToolError
        from inspect_ai.util import Store, store_as
        from inspect_ai.util._store import init_subtask_store
        from inspect_evals.tau2.common.agents import StoredAgentState

        calls = record.calls(candidate)
        texts = [m["content"] for m in candidate["messages"] if m["role"] == "assistant"] + [candidate["final_response"]]
        init_subtask_store(Store())
        task = data.task_model(domain, task_id)
        if domain == "retail":
            from inspect_evals.tau2.retail.scorer import retail_scorer
            from inspect_evals.tau2.retail.tools import get_retail_tools

            tools = get_retail_tools()
            for call in calls:
                if call["name"] not in ("calculate", "transfer_to_human_agents"):
                    try:
                        getattr(tools, call["name"])(**call["arguments"])
                    except ToolError:
                        pass
            scorer, instance = retail_scorer(), "RetailAgent"
        else:
            from inspect_evals.tau2.banking.environment import apply_initial_state, get_agent_tools, get_user_tools, initialize_environment
            from inspect_evals.tau2.banking.scorer import banking_scorer

            initialize_environment()
            agent, user = get_agent_tools(), get_user_tools()
            apply_initial_state(agent, user, task.initial_state.model_copy(deep=True) if task.initial_state else None)
            for call in calls:
                getattr(agent if call["role"] == "assistant" else user, call["name"])(**call["arguments"])
            scorer, instance = banking_scorer(), "BankingAgent"

        def message(i: int, call: dict):
            return ChatMessageAssistant(content="", tool_calls=[ToolCall(id=str(i), function=call["name"], arguments=call["arguments"])])

        store_as(StoredAgentState, instance).messages = [message(i, c) for i, c in enumerate(calls) if c["role"] == "assistant"]
        state = SimpleNamespace(metadata={"instance": instance, "task": task.model_dump()},
                                messages=[ChatMessageUser(content=t) for t in texts if t]
                                + [message(i, c) for i, c in enumerate(calls) if c["role"] == "user"])
        return asyncio.run(scorer(state, Target(""))).value == CORRECT

    return reward
