"""Generation tools beyond Inspect's bash and python: file editing, `run_public`, `reset` and `submit`.

`run_public` executions are budgeted per sample (paper App. E, default 20). The budget lives in the
sample's host-side service (public_env.service), which both these tools and code in the sandbox
(`vgb_env.run_public`) reach, so one budget covers both. Its counters are copied to the sample store
as `cap_run_public` (requests, blocked ones included) and `cap_budget_blocks` (harness/sample_service.py);
the scorer logs them. What a request and a reply look like is the candidate format's (its `public_run`, sources/formats/).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from inspect_ai.tool import Tool, ToolError, tool
from inspect_ai.util import sandbox, store

from verifierbench.harness.sample_service import current_service as _sample_service
from verifierbench.harness.sample_service import sync_counters
from verifierbench.sources.formats.base import PublicRun
from verifierbench.sources.formats.registry import format_named

BUDGET_EXCEEDED = "BudgetExceeded: run_public"
STATE_FILE = "/workspace/public/last_state.json"
SUBMITTED = "verifierbench:submitted"  # store flag: the agent called submit (the scorer explains a missing verifier with it)


@tool(name="submit")
def submit() -> Tool:
    """The react agent's submit tool, recording in the store that it was called."""

    async def execute(answer: str) -> str:
        """Submit an answer for evaluation.

        Args:
            answer: Submitted answer
        """
        store().set(SUBMITTED, True)
        return answer

    return execute


@tool
def write_file() -> Tool:
    async def execute(path: str, content: str) -> str:
        """Create or overwrite a file in the sandbox.

        Args:
          path: File path (absolute, or relative to /workspace).
          content: The complete new content of the file.
        """
        try:
            await sandbox().write_file(path, content)
        except (PermissionError, IsADirectoryError, NotADirectoryError) as exc:
            raise ToolError(str(exc)) from None
        return f"wrote {len(content)} characters to {path}"

    return execute


@tool
def replace_in_file() -> Tool:
    async def execute(path: str, old: str, new: str) -> str:
        """Replace one exact occurrence of a text in a file.

        Args:
          path: File path (absolute, or relative to /workspace).
          old: The text to replace; it must occur exactly once.
          new: The replacement text.
        """
        try:
            text = await sandbox().read_file(path)
        except (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError, UnicodeDecodeError) as exc:
            raise ToolError(str(exc)) from None
        count = text.count(old)
        if count != 1:
            raise ToolError(f"the text to replace occurs {count} times in {path}; it must occur exactly once")
        try:
            await sandbox().write_file(path, text.replace(old, new, 1))
        except (PermissionError, IsADirectoryError, NotADirectoryError) as exc:
            raise ToolError(str(exc)) from None
        return f"replaced 1 occurrence in {path}"

    return execute


@tool
def run_public(candidate_format: str, budget: int) -> Tool:
    async def execute(request: str) -> str:
        """Execute in the task's public environment. State tasks: replay tool calls on a fresh copy of the initial state and return every observation and the resulting state's hash (the full state is written to /workspace/public/last_state.json). Code tasks: apply a diff to a scratch copy of the checkout and run the named tests with the repository's test command (pytest node ids, or django test labels such as utils_tests.test_http).

        Args:
          request: JSON. State tasks: an interaction record (the candidate format), or {"calls": [{"name": ..., "arguments": {...}}]}. Code tasks: {"diff": "<unified diff>", "tests": ["tests/test_x.py::test_y", ...]}.
        """
        public_run = _public_run(candidate_format)
        service = _service("run_public")
        try:
            data = json.loads(request)
        except RecursionError:
            raise ToolError("run_public: the request is nested too deeply") from None
        except ValueError as e:  # bad JSON, or an integer too long to convert: the model's mistake, not a crash
            raise ToolError(f"run_public: the request is not JSON ({e})") from None
        try:
            message: dict[str, Any] = public_run.message(data)  # to the public service (`request` is the model's JSON)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        reply = await asyncio.to_thread(service.handle, message)
        sync_counters()
        if "error" in reply:
            return str(reply["error"])  # BudgetExceeded: run_public, or what was wrong with the request
        answer, state = public_run.reply(reply, STATE_FILE)
        if state is not None:
            await _write_state(state)
        return json.dumps(answer)

    return execute


@tool
def reset(candidate_format: str) -> Tool:
    async def execute() -> str:
        """Restore the task's public environment to its initial state (every run_public starts from it); the state is written to /workspace/public/last_state.json."""
        _public_run(candidate_format)
        reply = await asyncio.to_thread(_service("reset").handle, {"op": "reset"})
        if "state" not in reply:  # code tasks: nothing persists between runs
            return json.dumps(reply)
        await _write_state(reply["state"])
        return json.dumps({"state_hash": reply["state_hash"], "state_file": STATE_FILE})

    return execute


async def _write_state(state: object) -> None:
    try:
        await sandbox().write_file(STATE_FILE, json.dumps(state, indent=1))
    except (PermissionError, IsADirectoryError, NotADirectoryError) as exc:  # e.g. a FIFO planted there
        raise ToolError(f"could not write {STATE_FILE}: {exc}") from None


def _public_run(candidate_format: str) -> PublicRun:
    """The format's run_public messages (the harness offers these tools only for a format that has them)."""
    public_run = format_named(candidate_format).public_run
    if public_run is None:
        raise ToolError(f"run_public: {candidate_format} candidates have no public environment")
    return public_run


def _service(name: str):
    service = _sample_service()
    if service is None:
        # The vgb sandbox and, for container sandboxes, harness/public_channel.py start the service.
        raise ToolError(f"{name}: no public environment is available for this task in this sandbox")
    return service
