"""What the generating agent is told (docs/protocol.md, paper App. E): the task, the binary
PASS/FAIL contract with its optional confidence, where to deliver, and the budgets."""

from __future__ import annotations

import json

from verifierbench.public_env.registry import case_timeout, has_environment
from verifierbench.core.schema import Task
from verifierbench.sources.formats.registry import format_of

VERIFIER_DIR = "/workspace/verifier"
VERIFIER_PATH = f"{VERIFIER_DIR}/verify.py"
TASK_DIR = "/workspace/task"

CONTRACT = f"""\
## What to deliver
Write your verifier to `{VERIFIER_PATH}` (other files in `{VERIFIER_DIR}/` are delivered with it).
After you finish, it is frozen and run once per hidden candidate, each run in a fresh process:

    python3 {VERIFIER_PATH} CANDIDATE_JSON RESULT_JSON

(the two paths are also in the environment as `VGB_CANDIDATE` and `VGB_RESULT`). It must write one
JSON object to RESULT_JSON:

    {{"decision": "PASS" or "FAIL", "confidence": optional number in [0, 1], "reason": optional string}}

PASS means the candidate is a valid solution of the task, FAIL that it is not. Only the decision is
scored; confidence never changes it. A crash, a timeout, a missing or malformed result counts as a
wrong decision on that candidate. Standard output is ignored. The verifier runs with Python's
standard library only, no network, and limited time and memory. `import vgb_env` gives helpers:
`vgb_env.read_candidate()` and `vgb_env.write_decision("PASS", confidence=0.9, reason="...")`.
"""


def build_prompt(task: Task, run_public_budget: int, has_tools: bool = True) -> str:
    parts = [
        "You are writing a verifier: a program that decides whether a candidate solution of an agent task is valid.",
        "It must accept every valid solution, including valid ones that differ from the most obvious answer,",
        "and reject every invalid one.",
        "",
        "## The task",
        task.instruction.strip(),
        "",
        CONTRACT,
    ]
    limit = case_timeout(task) if format_of(task).runs_tests else None
    if limit is not None:  # a code task's verifier may run the tests: its budget is the task's own
        parts += [f"Each run of your verifier on one candidate may take up to {limit:g} s of wall-clock time "
                  "(at least three times what the task's hidden tests took when the suite was built), `run_public` calls included; "
                  "past that the run counts as wrong.",
                  ""]
    if has_tools:
        parts += [
            "## Your workspace",
            f"`{TASK_DIR}/` holds the task as files (`task.json`: instruction, tool definitions, candidate format;",
            "`example_candidate.json`: the candidate format on a made-up call, not a hint about the answer).",
            "Files you create under /workspace persist between commands; /tmp does not.",
            environment_note(task, run_public_budget),
            "When the verifier is written and tested, call `submit()` with a one-line summary.",
        ]
    else:
        parts += [
            "## How to answer",
            "Reply with the complete content of verify.py in one ```python code block. Nothing else is run.",
        ]
    return "\n".join(parts)


def environment_note(task: Task, budget: int) -> str:
    """What the agent is told about the task's public environment: `run_public` is promised only where the task's
    source serves one (public_env/registry.py `has_environment`)."""
    public_run = format_of(task).public_run
    if public_run is None or not has_environment(task):
        return (f"This is a {task.type.value} task: there is no public environment to execute, "
                "so `run_public` and `reset` are unavailable.")
    return (public_run.note(task) + "`run_public` executes in the task's public environment and `reset` restores its "
            f"initial state. During generation you have {budget} `run_public` executions in all (tool calls and calls "
            "through `vgb_env`); past that it answers `BudgetExceeded: run_public`.")


def task_files(task: Task) -> dict[str, str]:
    """The task as files in the generation sandbox: only what a solver of the task gets."""
    public = {"instruction": task.instruction, "task_type": task.type.value, "candidate_format": task.candidate_format.value,
              **task.environment}
    return {
        f"{TASK_DIR}/task.json": json.dumps(public, indent=2) + "\n",
        f"{TASK_DIR}/example_candidate.json": json.dumps(format_of(task).example, indent=2) + "\n",
    }

