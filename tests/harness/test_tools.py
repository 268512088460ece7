"""Generation tools: run_public and reset reach the sample's host-side service, or say there is none.
(The budget and its counters are tested with the service, tests/public_env, and end to end in
tests/harness/test_state_eval.py.)"""

from __future__ import annotations

import asyncio

import pytest
from inspect_ai.tool import ToolError

from verifierbench.harness.tools import reset, run_public


def test_without_a_public_environment_the_tools_say_so():
    with pytest.raises(ToolError, match="no public environment is available"):
        asyncio.run(run_public("state", budget=2)(request="{}"))
    with pytest.raises(ToolError, match="no public environment is available"):
        asyncio.run(reset("state")())


@pytest.mark.parametrize("request_text,message", [
    ("[" * 200_000, "nested too deeply"),
    ('{"calls": [], "n": ' + "9" * 5000 + "}", "not JSON"),
])
def test_an_unparseable_request_is_a_tool_error_not_a_crash(monkeypatch, request_text, message):
    import verifierbench.harness.tools as tools

    monkeypatch.setattr(tools, "_sample_service", lambda: object())  # any service: parsing fails first
    with pytest.raises(ToolError, match=message):
        asyncio.run(run_public("state", budget=2)(request=request_text))
