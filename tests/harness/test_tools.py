"""Generation tools: the run_public budget and its counters."""

from __future__ import annotations

import asyncio

import pytest
from inspect_ai.tool import ToolError
from inspect_ai.util import store

from verifierbench.harness.tools import BUDGET_BLOCKS, BUDGET_EXCEEDED, RUN_PUBLIC_USES, run_public


def test_run_public_answers_budget_exceeded_past_its_budget_and_counts_every_request():
    tool = run_public("state", budget=2)
    store().set(RUN_PUBLIC_USES, 0)
    store().set(BUDGET_BLOCKS, 0)
    for _ in range(2):  # within budget: reaches the environment (none is installed for any source yet)
        with pytest.raises(ToolError, match="no public environment"):
            asyncio.run(tool(request="{}"))
    assert asyncio.run(tool(request="{}")) == BUDGET_EXCEEDED
    assert asyncio.run(tool(request="{}")) == BUDGET_EXCEEDED
    assert (store().get(RUN_PUBLIC_USES), store().get(BUDGET_BLOCKS)) == (4, 2)
