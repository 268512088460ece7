"""What `run_public` serves for a code task: apply a diff to a scratch copy of the checkout and run the
named tests with the repository's own test command in the task's test environment, sandboxed. The
hidden test patch is not applied: verifiers bring their own tests (a diff may add test files)."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.interaction.environment import ServedEnvironment
from verifierbench.sources.swebench import run_reuse
from verifierbench.sources.swebench.budget import run_timeout_s
from verifierbench.sources.swebench.checkout import checkout_dir
from verifierbench.sources.swebench.venv_store import SANDBOX_ENV
from verifierbench.sources.swebench.reference import environment_of
from verifierbench.sources.swebench.testrun import rootfs_of, run_tests

MAX_TESTS = 200


class CodeEnvironment(ServedEnvironment):
    def __init__(self, reference: dict[str, Any]) -> None:
        self.checkout = checkout_dir(reference["checkout"])
        self.runner = reference.get("runner", "pytest")
        self.environment = environment_of(reference)
        self.timeout_s = run_timeout_s(reference)  # the task's budget: a run_public cannot outlast the run that asked
        self.scope = run_reuse.scope_of(reference)

    def run_request(self, request: dict[str, Any]) -> dict[str, Any]:
        diff, tests = request.get("diff", ""), request.get("tests", [])
        if not isinstance(diff, str):
            raise ValueError("`diff` must be a string (a unified diff against the checkout)")
        if not isinstance(tests, list) or not all(isinstance(t, str) and t and not t.startswith("-") for t in tests):
            raise ValueError("`tests` must be a list of " + ("django test labels" if self.runner == "django" else "pytest node ids")
                             + " (no options)")
        if len(tests) > MAX_TESTS:
            raise ValueError(f"at most {MAX_TESTS} tests per run")
        # The same run made before (same diff bytes, tests, checkout, environment, runner, limits) is reused:
        # run_reuse.py says when, and docs/isolation.md why a verifier cannot shape what it gets.
        return run_tests(self.checkout, [diff], tests, environment=self.environment, runner=self.runner,
                         timeout_s=self.timeout_s, reuse=self.scope).to_json()

    def reset_reply(self) -> dict[str, Any]:
        return {"checkout": "/repo", "note": "every run_public starts from a fresh copy of the checkout"}

    def run_counts(self) -> dict[str, dict[str, int]]:
        return run_reuse.tallies()


def environment_for(reference: dict[str, Any]) -> CodeEnvironment:
    return CodeEnvironment(reference)


def read_only_inputs(reference: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """(host path, sandbox path) every run for this task sees read-only: the checkout at /repo, and its test
    environment at /env (what SWE-bench's image gives a solver: the repository's interpreter and test requirements),
    and a Python 3.9 environment's root file system at its own path (its interpreter lives there)."""
    environment = environment_of(reference)
    rootfs = rootfs_of(environment) if environment else ""
    return ((str(checkout_dir(reference["checkout"])), "/repo"),
            *(((str(environment), SANDBOX_ENV),) if environment else ()), *(((rootfs, rootfs),) if rootfs else ()))
