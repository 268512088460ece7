"""Generation harnesses, selected with `-T harness=`.

- `default`: Inspect's ReAct agent with bash, python, file editing, (where the task has a public
  environment) `run_public` and `reset`, and a submit step.
- `single_reply`: one model reply, no tools; the harness writes the reply's code block to the
  verifier path. A cheap baseline.
- `claude_code`, `codex_cli`, `gemini_cli`, `mini_swe_agent`: inspect-swe's agents (optional extra
  `verifierbench[harnesses]`). They run their CLI inside the sandbox, so they need a sandbox with
  the CLI installed (see verifierbench/sandboxes/README.md); the no-Docker `vgb` sandbox cannot host them.
"""

from __future__ import annotations

import re

from inspect_ai.agent import AgentPrompt, AgentSubmit, as_solver, react
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import bash, python
from inspect_ai.util import sandbox

from verifierbench.harness.prompt import VERIFIER_PATH
from verifierbench.harness.public_channel import with_public_channel
from verifierbench.harness.tools import replace_in_file, reset, run_public, write_file
from verifierbench.schema import TaskType

SWE_HARNESSES = ("claude_code", "codex_cli", "gemini_cli", "mini_swe_agent")
HARNESSES = ("default", "single_reply", *SWE_HARNESSES)
COMMAND_TIMEOUT_S = 300  # per bash/python call; the task's time limit bounds the whole generation

SYSTEM = ("You are an expert engineer writing verifiers for agent tasks. Work in the sandbox with the tools you have; "
          "test your verifier on candidates you construct yourself, then submit.")


def harness_solver(name: str, run_public_budget: int) -> Solver:
    """The harness's solver; with tools, run_public also reachable from code in a container sandbox."""
    if name == "default":
        return with_public_channel(default_harness(run_public_budget))
    if name == "single_reply":
        return single_reply()
    if name in SWE_HARNESSES:
        return with_public_channel(swe_harness(name))
    raise ValueError(f"unknown harness {name!r} (choose from {', '.join(HARNESSES)})")


@solver
def default_harness(run_public_budget: int = 20) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        task_type = state.metadata.get("task_type", TaskType.tool_call.value)
        tools = [bash(timeout=COMMAND_TIMEOUT_S), python(timeout=COMMAND_TIMEOUT_S), write_file(), replace_in_file()]
        if task_type != TaskType.tool_call.value:
            tools += [run_public(task_type, run_public_budget), reset(task_type)]
        agent = react(
            prompt=AgentPrompt(instructions=SYSTEM),
            tools=tools,
            submit=AgentSubmit(description="Submit when the verifier is written to " + VERIFIER_PATH + ". Give a one-line summary."),
        )
        return await as_solver(agent)(state, generate)

    return solve


@solver
def single_reply() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state = await generate(state, tool_calls="none")
        code = extract_code(state.output.completion if state.output else "")
        if code is not None:
            await sandbox().write_file(VERIFIER_PATH, code)
        return state

    return solve


def extract_code(reply: str) -> str | None:
    """The last ```python (or bare ```) block of a reply; None when there is none."""
    blocks = re.findall(r"```(?:python|py)?[ \t]*\n(.*?)```", reply, flags=re.DOTALL)
    return blocks[-1] if blocks else None


def swe_harness(name: str) -> Solver:
    try:
        import inspect_swe
    except ImportError:
        raise ImportError(f"harness {name} needs inspect-swe: pip install 'verifierbench[harnesses]'") from None
    agent = getattr(inspect_swe, name)(version="sandbox") if name != "mini_swe_agent" else inspect_swe.mini_swe_agent()
    return as_solver(agent)

