"""The model-free policies read task.json in the sandbox in chunks, so a harness that shortens long shell output
(Codex CLI, Gemini CLI and mini-swe-agent do) still gives them the whole task: read in one piece, a state task's
tools came back cut off under those harnesses and the heuristic wrote a reject-everything verifier (0 of 42)."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import subprocess
import sys
import zlib

import pytest
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser, GenerateConfig
from inspect_ai.tool import ToolInfo, ToolParams

from verifierbench.policies.provider import MAX_READS, TASK_FILE, PolicyModel, _task_from
from verifierbench.policies.verifiers import READ_CHUNK, verifier_source


def _big_task() -> dict:
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(200)]
    tools = [{"name": f"tool_{n}", "description": " ".join(rng.choice(words) for _ in range(60)),
              "parameters": {"type": "object", "properties": {f"arg_{k}": {"type": "string", "description": " ".join(rng.choice(words) for _ in range(12))}
                                                               for k in range(4)}}} for n in range(80)]
    return {"task_type": "state", "instruction": "Do the thing.", "tools": tools, "user_tools": []}


def _shortened(text: str, cap: int) -> str:
    """What a harness that keeps the head and tail of long output shows the model."""
    return text if len(text) <= cap else text[: cap // 2] + "\n[... output truncated ...]\n" + text[-cap // 2:]


def _run_policy(task_json, cap: int, as_json: bool = False) -> tuple[list, str]:
    """Plays the default harness's bash tool for the heuristic policy until it writes its verifier; returns the
    conversation and the verifier it wrote. `as_json`: the harness hands over the output JSON-encoded, as Gemini CLI
    and mini-swe-agent do (a newline becomes the two characters \\n, a slash may become \\/)."""
    model = PolicyModel("heuristic")
    tools = [ToolInfo(name=n, description=n, parameters=ToolParams()) for n in ("bash", "write_file", "submit")]
    messages: list = [ChatMessageUser(content="Write a verifier.")]
    for _ in range(MAX_READS + 2):
        output = asyncio.run(model.generate(messages, tools, "auto", GenerateConfig()))
        (call,) = output.message.tool_calls
        messages.append(output.message)
        if call.function == "write_file":
            return messages, call.arguments["content"]
        command = call.arguments["command"].replace(TASK_FILE, str(task_json)).replace("python3", sys.executable, 1)
        shown = subprocess.run(["bash", "-c", command], capture_output=True, text=True).stdout
        content = _shortened(shown, cap)
        if as_json:
            content = json.dumps({"returncode": 0, "output": content}).replace("/", "\\/")
        messages.append(ChatMessageTool(content=content, tool_call_id=call.id, function="bash"))
    raise AssertionError("the policy never wrote its verifier")


@pytest.mark.parametrize("cap, as_json", [(16 * 1024, False), (4000, False), (2600, False), (16 * 1024, True), (2600, True)])
def test_a_harness_that_shortens_output_still_gives_the_policy_the_whole_task(tmp_path, cap, as_json):
    task = _big_task()
    assert len(json.dumps(task["tools"])) > 3 * 16 * 1024  # past every cap in one piece
    (tmp_path / "task.json").write_text(json.dumps(task))
    messages, source = _run_policy(tmp_path / "task.json", cap, as_json)
    reads = sum(isinstance(m, ChatMessageAssistant) for m in messages) - 1
    assert _task_from(messages)["tools"] == task["tools"]
    assert source == verifier_source("heuristic", {"tools": task["tools"], "user_tools": [], "instruction": ""})
    encoded = len(base64.b64encode(zlib.compress(json.dumps({"tools": task["tools"], "user_tools": [], "instruction": ""}).encode(), 9)))
    whole_chunks = -(-encoded // READ_CHUNK)
    assert reads == whole_chunks if cap > READ_CHUNK + 100 else whole_chunks < reads <= MAX_READS


def test_a_read_that_fails_falls_back_to_the_prompt(tmp_path):
    """No task file (or an error): one read, then the policy goes on from the prompt, as before."""
    messages, source = _run_policy(tmp_path / "missing.json", 16 * 1024)
    assert sum(isinstance(m, ChatMessageAssistant) for m in messages) == 2
    assert _task_from(messages)["tools"] == []
