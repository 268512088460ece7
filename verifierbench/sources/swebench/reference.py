"""The reference verifier of a code task: apply the candidate diff to the checkout, reset the test
files and apply the hidden test patch, run FAIL_TO_PASS and PASS_TO_PASS, and grade the run the
hardened way (`grading`). The reference record holds everything but the checkout's files."""

from __future__ import annotations

import functools
import json
import sys
from typing import Any

from pathlib import Path

from verifierbench.sources.swebench import budget, python39_rootfs, venv_store, grading
from verifierbench.sources.swebench.checkout import checkout_dir
from verifierbench.sources.swebench.testrun import TestRun, in_sandbox, run_tests


def candidate_diff(candidate: Any) -> str | None:
    if isinstance(candidate, dict) and isinstance(candidate.get("diff"), str):
        diff: str = candidate["diff"]
        return diff
    return None


def hidden_run(reference: dict[str, Any], diff: str, reuse: bool = False, reach: bool = False, failfast: bool = False) -> TestRun:
    """The hidden test run of `diff`: FAIL_TO_PASS and PASS_TO_PASS with the hidden test patch applied.

    Args:
        reference: a code task's reference record (or the build's draft of one).
        diff: the candidate's diff.
        reuse: serve it from (and keep it in) the persistent run cache (`runcache`): the reference's own runs at
            build time and screening's C1, never C2's repeats.
        reach: also map the functions only PASS_TO_PASS tests reach (`testrun.run_tests`): the build's gold run, for its
            regression cases.
        failfast: stop at the first failing test (`failfast_decides`); not with `reuse` or `reach`.
    """
    runner = reference.get("runner", "pytest")
    if runner == "django":  # SWE-bench's test directives: the test modules the test patch touches
        tests = venv_store.django_directives(reference["test_files"])
    else:
        tests = venv_store.pytest_selection(reference["FAIL_TO_PASS"] + reference["PASS_TO_PASS"])
    timeout_s = budget.run_timeout_s(reference)
    if in_sandbox():
        return run_tests(None, [diff], tests, reference["test_patch"], reference["test_files"], runner=runner, timeout_s=timeout_s,
                         failfast=failfast)
    checkout = checkout_dir(reference["checkout"])
    return run_tests(checkout, [diff], tests, reference["test_patch"], reference["test_files"], environment=environment_of(reference),
                     runner=runner, timeout_s=timeout_s, cache=reuse, failfast=failfast,
                     reach={"fail_to_pass": reference["FAIL_TO_PASS"], "pass_to_pass": reference["PASS_TO_PASS"]} if reach else None)


def failfast_decides(reference: dict[str, Any], disabled: frozenset[str] = frozenset()) -> bool:
    """Whether a run stopped at its first failing test decides exactly as the full run would.

    It does when the gold's own run exits 0 and every check is on: then the full run of any candidate that has a failing
    or erroring test exits non-zero, which fails it (`grading.grade`'s exit-status check), and a candidate without one
    runs every test either way. A mutant with checks switched off (screening's C6) reads the full run; so does a task
    whose gold run exits non-zero (an unnamed test failing in this environment), where only the full report decides.
    """
    return not disabled and reference.get("gold_exit_code", 0) == 0


def environment_of(reference: dict[str, Any]) -> Path | None:
    """The task's test environment (made on first use when this machine lacks it); None: the harness's own pytest."""
    if not reference.get("environment"):
        return None
    checkout = checkout_dir(reference["checkout"])
    environment = reference["environment"]
    # "3.9": the build's gold resolved only there, or the profile runs there (`python39_rootfs`)
    if environment.get("python", "3.11") == "3.9":
        python39_rootfs.ensure_rootfs(lambda line: print(line, file=sys.stderr))  # a machine that reuses a suite built elsewhere
    return venv_store.ensure(venv_store.spec_of_environment(environment, checkout), checkout)


@functools.lru_cache(maxsize=1024)
def _cached_run(reference_json: str, diff: str) -> TestRun:
    return hidden_run(json.loads(reference_json), diff, reuse=True)


def cached_run(reference: dict[str, Any], diff: str) -> TestRun:
    """The hidden run of `diff`, made once per (reference, diff) in this process, and across processes and code
    edits through the persistent run cache (`runcache`, unless $VERIFIERBENCH_RUN_CACHE=0); `decide(..., cached=True)`
    reads it.

    Args:
        reference: a code task's reference record.
        diff: the candidate's diff.
    """
    return _cached_run(json.dumps(reference, sort_keys=True), diff)


def decide(reference: dict[str, Any], candidate: Any, disabled: frozenset[str] = frozenset(), cached: bool = False) -> tuple[bool, str]:
    """(PASS?, reason). `disabled` switches off named checks (screening's mutants; `grading.CHECKS` and
    `grading.STATIC_CHECKS`), and so does the record's own `unchecked` list (a flawed verifier made from an exported
    reference, issue 37); `cached` reuses the test run of identical inputs (`cached_run`: the build, screening's C1 and
    C6; never C2's repeats)."""
    diff = candidate_diff(candidate)
    if diff is None:
        return False, 'malformed candidate: expected {"diff": str}'
    disabled = disabled | frozenset(reference.get("unchecked", ()))
    if "static" not in disabled:
        problem = grading.static_problem(diff, reference["test_files"], reference.get("test_patch", ""), reference.get("patch", ""),
                                         disabled)
        if problem:
            return False, problem
    if cached:
        run = cached_run(reference, diff)
    else:  # a fresh run (screening's C2 repeats, an exported reference, the audit): stop at the first failure when that decides the same
        run = hidden_run(reference, diff, failfast=failfast_decides(reference, disabled - frozenset(grading.STATIC_CHECKS)))
    return grading.grade(run, reference["FAIL_TO_PASS"], reference["PASS_TO_PASS"], reference.get("gold_outcomes", {}), disabled,
                         runner=reference.get("runner", "pytest"), gold_exit_code=reference.get("gold_exit_code", 0))


def decide_reusing_runs(reference: dict[str, Any], candidate: Any) -> tuple[bool, str]:
    """`decide` from a recorded test run of identical inputs when there is one (the source's `decide_reusing` hook:
    screening's C1 reads the build's runs; C2 calls `decide`, which always runs fresh)."""
    return decide(reference, candidate, cached=True)
