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
        asyncio.run(run_public("interaction_record", budget=2)(request="{}"))
    with pytest.raises(ToolError, match="no public environment is available"):
        asyncio.run(reset("interaction_record")())


@pytest.mark.timeout(30)
@pytest.mark.usefixtures("bwrap_available")
def test_file_tools_refuse_fifos_and_links_with_a_tool_error():
    from inspect_ai.util._sandbox.context import sandbox_default_context_var, sandbox_environments_context_var

    from verifierbench.executor.isolation import IsolationLevel
    from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment
    from verifierbench.harness.tools import replace_in_file, write_file

    box = VgbSandboxEnvironment(IsolationLevel.bwrap, task_type="tool-call")
    try:
        async def scenario() -> None:
            sandbox_environments_context_var.set({"default": box})
            sandbox_default_context_var.set("default")
            await box.exec(["bash", "-c", "mkfifo /workspace/p && ln -s /etc /workspace/etc && mkdir d && touch d/f"])
            with pytest.raises(ToolError, match="FIFO"):
                await replace_in_file()(path="p", old="a", new="b")
            with pytest.raises(ToolError, match="FIFO"):
                await write_file()(path="p", content="x")
            with pytest.raises(ToolError, match="symbolic link"):
                await write_file()(path="etc/vgb.conf", content="x")
            with pytest.raises(ToolError, match="not a directory"):
                await write_file()(path="d/f/g.txt", content="x")
            assert await write_file()(path="d/g.txt", content="ok") == "wrote 2 characters to d/g.txt"

        asyncio.run(scenario())
    finally:
        box.remove()


@pytest.mark.parametrize("request_text,message", [
    ("[" * 200_000, "nested too deeply"),
    ('{"calls": [], "n": ' + "9" * 5000 + "}", "not JSON"),
])
def test_an_unparseable_request_is_a_tool_error_not_a_crash(monkeypatch, request_text, message):
    import verifierbench.harness.tools as tools

    monkeypatch.setattr(tools, "_sample_service", lambda: object())  # any service: parsing fails first
    with pytest.raises(ToolError, match=message):
        asyncio.run(run_public("interaction_record", budget=2)(request=request_text))
