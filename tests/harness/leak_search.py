"""The hidden-data leak search, shared by the vgb and docker sandbox tests: everything an agent can read in
the generation sandbox holds no case id, case hash, hidden candidate, label, answer key or reference code."""

from __future__ import annotations

import asyncio
import json

from verifierbench.harness.dataset import task_sample
from verifierbench.suite.store import load_suite

SEARCH = "grep -rIlF -f - / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev 2>/dev/null; echo searched"


def assert_nothing_hidden_is_readable(sandbox, suite_dir, sh) -> None:
    """Writes BFCL parallel_114's sample files into `sandbox` and searches its whole file system.

    Args:
        sandbox: an Inspect sandbox environment.
        suite_dir: a built suite holding BFCL parallel_114.
        sh: the test module's `sh(sandbox, command, **kwargs)` returning an ExecResult.
    """
    suite = load_suite(suite_dir)
    task = next(t for t in suite.tasks.values() if t.source_id == "parallel_114")
    sample = task_sample(task, run_public_budget=20, has_tools=True)
    for path, content in sample.files.items():
        asyncio.run(sandbox.write_file(path, content))
    patterns = {"vgb-c-", "possible_answer", "ast_checker", "overstrict_trap", "near_miss", "def decide(reference",
                json.dumps(task.reference["ground_truth"])}
    for case in suite.cases_by_task[task.id]:
        patterns |= {case.id, case.content_hash.split(":")[1]}
        # grep takes one pattern per line: each candidate as JSON, and its raw text when that is one line
        # (lines of multi-line JSON raws, like '"name": "f",', also occur in the tool definitions).
        patterns.add(json.dumps(case.candidate))
        raw = case.candidate.get("raw", "")
        if len(raw) >= 24 and "\n" not in raw:
            patterns.add(raw)
    result = sh(sandbox, SEARCH, input="\n".join(sorted(patterns)) + "\n", timeout=300)
    assert result.stdout.splitlines() == ["searched"], result.stdout[:2000]
    # A control: the same search finds what the agent is meant to see.
    tool_name = task.environment["tools"][0]["name"]
    assert "/workspace/task/task.json" in sh(sandbox, SEARCH, input=tool_name + "\n", timeout=300).stdout.splitlines()
