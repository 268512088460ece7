"""C7's naive verifiers of code tasks (issue 37): the instance's tests run the way SWE-bench grades them (the candidate
applied, the hidden test patch applied over the reset test files, the repository's own test command), their log read by
SWE-bench's parser, and its per-test results trusted:
- `swebench_grading`: SWE-bench's own verdict (`get_resolution_status` is RESOLVED_FULL, the installed release: 5.x
  reads a skipped FAIL_TO_PASS test as failing, a skipped PASS_TO_PASS one not);
- `skips_read_as_passes`: the same log with a skipped test read as passing, as SWE-bench 4.x's grading did.
No check of the diff, of the structured report or of the exit status: those are what the hacks attack. A hack neither
accepts tests nothing a verifier could skip. Not yet wired into screening's C7 nor the build's drop of inert hacks.
"""

from __future__ import annotations

from typing import Any

from verifierbench.sources.swebench import grading
from verifierbench.sources.swebench.reference import cached_run, candidate_diff
from verifierbench.sources.swebench.testrun import TestRun

PASSING_4X = ("PASSED", "XFAIL", "SKIPPED")  # SWE-bench 4.x's reading of a status (a skip was no failure)


def code_checks_fooled(reference: dict[str, Any], candidate: Any) -> list[str]:
    """The naive checks (module doc) that accept `candidate`, from its hidden test run (the run cache's when there is one)."""
    diff = candidate_diff(candidate)
    if diff is None:
        return []
    return checks_fooled_by_run(cached_run(reference, diff), reference["FAIL_TO_PASS"], reference["PASS_TO_PASS"],
                                reference.get("runner", "pytest"))


def checks_fooled_by_run(run: TestRun, fail_to_pass: list[str], pass_to_pass: list[str], runner: str) -> list[str]:
    """The naive checks that accept a candidate whose hidden test run is `run`."""
    if not run.applied or run.problem:
        return []
    fooled = ["swebench_grading"] if grading.upstream_resolved(run, fail_to_pass, pass_to_pass, runner) else []
    status = grading.log_status(run, runner)
    if all(status.get(test) in PASSING_4X for test in [*fail_to_pass, *pass_to_pass]):
        fooled.append("skips_read_as_passes")
    return fooled
