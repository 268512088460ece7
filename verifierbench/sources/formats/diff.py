"""The diff format: a change to a repository, judged by running its tests on a checkout (SWE-bench). Its naive
checks, mutation operators and auditor read the source's test runs, so they are its source's (`Source.naive_checks`,
`Source.mutation_operators`, `Source.auditor`)."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.formats.base import Format, PublicRun, Task, register_format


class DiffRun(PublicRun):
    """`run_public` on a code task: a diff applied to a scratch copy of the checkout, the named tests run."""

    def note(self, task: Task) -> str:
        return ("The repository checkout is mounted read-only at /repo, here and in every run of your verifier; "
                "`run_public` copies it, applies a diff and runs the named tests. "
                + ("The repository's test environment (its Python and test requirements) is mounted read-only at /env. "
                   if task.environment.get("test_environment") else ""))

    def empty_request(self) -> dict[str, Any]:
        return {"diff": "", "tests": []}

    def message(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict):
            raise ValueError('run_public: a code task takes {"diff": "...", "tests": [...]}')
        return {"op": "run_public", "diff": request.get("diff", ""), "tests": request.get("tests", [])}

    def reply(self, reply: dict[str, Any], state_file: str) -> tuple[dict[str, Any], Any]:
        answer = {k: reply.get(k) for k in ("applied", "apply_error", "exit_code", "outcomes")}
        return answer | {"log_tail": str(reply.get("log", ""))[-4000:]}, None  # nothing persists between runs


class Diff(Format):
    """`{"diff": str}` plus a read-only repository checkout: tasks of type code."""

    name = "diff"
    task_type = "code"
    example = {"diff": "--- a/example.py\n+++ b/example.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"}
    public_run = DiffRun()
    runs_tests = True
    audit_failure_modes = (
        "rejecting legitimate changes outside the files the reference fix touches (other modules,\n"
        "   new modules, documentation), restricting how the diff is rendered, and accepting fixes that are incomplete,\n"
        "   break existing behaviour, or edit the tests.")

    def well_formed(self, candidate: Any) -> bool:
        return isinstance(candidate, dict) and set(candidate) == {"diff"} and isinstance(candidate["diff"], str)


DIFF = register_format(Diff())
