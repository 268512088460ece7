"""Generation tools beyond Inspect's bash and python: file editing, `run_public` and `reset`.

`run_public` executions are budgeted per sample (paper App. E, default 20) and counted in the
sample store as `cap_run_public` (requests, blocked ones included) and `cap_budget_blocks`; the
scorer copies the counters into the log.
"""

from __future__ import annotations

from inspect_ai.tool import Tool, ToolError, tool
from inspect_ai.util import sandbox, store

RUN_PUBLIC_USES = "cap_run_public"
BUDGET_BLOCKS = "cap_budget_blocks"
BUDGET_EXCEEDED = "BudgetExceeded: run_public"


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
        except (PermissionError, IsADirectoryError) as exc:
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
        except (FileNotFoundError, PermissionError, IsADirectoryError, UnicodeDecodeError) as exc:
            raise ToolError(str(exc)) from None
        count = text.count(old)
        if count != 1:
            raise ToolError(f"the text to replace occurs {count} times in {path}; it must occur exactly once")
        await sandbox().write_file(path, text.replace(old, new, 1))
        return f"replaced 1 occurrence in {path}"

    return execute


@tool
def run_public(task_type: str, budget: int) -> Tool:
    async def execute(request: str) -> str:
        """Execute a request in the task's public environment (for example replay a candidate's actions) and return what it observed.

        Args:
          request: The request as JSON, in the format the task describes.
        """
        data = store()
        data.set(RUN_PUBLIC_USES, data.get(RUN_PUBLIC_USES, 0) + 1)
        if data.get(RUN_PUBLIC_USES) > budget:
            data.set(BUDGET_BLOCKS, data.get(BUDGET_BLOCKS, 0) + 1)
            return BUDGET_EXCEEDED
        return _no_environment("run_public", task_type)

    return execute


@tool
def reset(task_type: str) -> Tool:
    async def execute() -> str:
        """Restore the task's public environment to its initial state."""
        return _no_environment("reset", task_type)

    return execute


def _no_environment(name: str, task_type: str) -> str:
    # Public environments arrive with the state and code sources (issues 4 and 9). The harness offers
    # these tools only for task types that have one, so reaching this is a harness defect.
    raise ToolError(f"{name}: no public environment is installed for {task_type} tasks")
