"""What the generating agent is told (docs/protocol.md, paper App. E): the task, the binary
PASS/FAIL contract with its optional confidence, where to deliver, and the budgets."""

from __future__ import annotations

import json

from verifierbench.kinds import kind_of
from verifierbench.public_env.registry import case_timeout
from verifierbench.schema import Task

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
    limit = case_timeout(task) if kind_of(task).runs_tests else None
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
            kind_of(task).environment_note(task, run_public_budget),
            "When the verifier is written and tested, call `submit()` with a one-line summary.",
        ]
    else:
        parts += [
            "## How to answer",
            "Reply with the complete content of verify.py in one ```python code block. Nothing else is run.",
        ]
    return "\n".join(parts)


def task_files(task: Task) -> dict[str, str]:
    """The task as files in the generation sandbox: only what a solver of the task gets."""
    public = {"instruction": task.instruction, "task_type": task.type.value, "candidate_format": task.candidate_format.value,
              **task.environment}
    return {
        f"{TASK_DIR}/task.json": json.dumps(public, indent=2) + "\n",
        f"{TASK_DIR}/example_candidate.json": json.dumps(EXAMPLES[task.candidate_format.value], indent=2) + "\n",
    }


# Format examples on a made-up tool: they show shape, never content of any hidden case.
EXAMPLES = {
    "tool_calls": {"raw": "[example_tool(city=\"Paris\", days=3)]",
                   "parsed": [{"name": "example_tool", "arguments": {"city": "Paris", "days": 3}}]},
    "interaction_record": {"messages": [{"role": "user", "content": "..."}, {"role": "assistant", "content": "...",
                            "tool_calls": [{"name": "example_tool", "arguments": {}, "result": "..."}]}], "final_response": "..."},
    "code": {"code": "print('example')"},
    "diff": {"diff": "--- a/example.py\n+++ b/example.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"},
}
