"""The task record of one SWE-bench instance: its instruction, the environment a solver sees, and its reference record."""

from __future__ import annotations

from importlib import metadata

from verifierbench.core.schema import Task
from verifierbench.sources.formats.diff import DIFF
from verifierbench.sources.swebench import budget, instances

INSTRUCTION = """\
Repository: {repo} (checked out read-only at /repo, at commit {commit}).

A developer reported this issue:

{problem}

A candidate solution is a diff against that checkout: {{"diff": "<unified diff, paths a/... b/...>"}}.
A valid candidate resolves the issue without breaking existing behaviour. Test code is not part of a
solution: candidates that edit tests or conftest.py, or that behave differently under the test runner,
are not valid. `vgb_env.run_public(diff=..., tests=[...])` applies a diff to a scratch copy of the
checkout and runs the named tests with the repository's own test command in its test environment
({tests_hint}); a test file you want to run may be added by the same diff."""

TESTS_HINT = {"django": "django's tests/runtests.py: labels such as utils_tests.test_http or utils_tests.test_http.HttpDateProcessingTests",
              "pytest": "pytest node ids such as tests/test_x.py::test_y"}


def make_task(inst: instances.Instance, digest: str, test_files: list[str], gold_outcomes: dict[str, str],
              runner: str = "pytest", environment: dict[str, object] | None = None, gold_exit_code: int | None = 0,
              case_timeout_s: float = budget.FLOOR_S) -> Task:
    """The code task of one instance.

    Args:
        inst: the SWE-bench instance.
        digest: its checkout's digest.
        test_files: the files the hidden test patch touches.
        gold_outcomes: each FAIL_TO_PASS and PASS_TO_PASS test's outcome in the gold run.
        runner: django or pytest.
        environment: the test environment's repository and version (None: the harness's own pytest, the fixture).
        gold_exit_code: the test runner's exit status in the gold run.
        case_timeout_s: the limit of one run on a case (`budget.case_timeout_for` of the slowest build-time test run).

    Returns:
        The task (its id follows from its content).
    """
    tests = "django test labels" if runner == "django" else "pytest node ids"
    return Task.create(
        source="swebench",
        source_id=inst.instance_id,
        instruction=INSTRUCTION.format(repo=inst.repo, commit=inst.base_commit, problem=inst.problem_statement.strip(),
                                       tests_hint=TESTS_HINT[runner]),
        environment={"repository": inst.repo, "base_commit": inst.base_commit, "checkout": "/repo", "checkout_digest": digest,
                     "test_runner": runner, **({"test_environment": "/env"} if environment else {}),
                     "run_public": f"vgb_env.run_public(diff=str, tests=[{tests}]) -> {{applied, exit_code, outcomes, log}}"},
        format=DIFF,
        # `patch` (the gold) is not used to decide; the auditor builds its candidates from it, as the build does.
        reference={"checker": "swebench", "instance_id": inst.instance_id, "checkout": digest, "patch": inst.patch,
                   "test_patch": inst.test_patch,
                   "FAIL_TO_PASS": inst.fail_to_pass, "PASS_TO_PASS": inst.pass_to_pass, "test_files": test_files,
                   "gold_outcomes": gold_outcomes, "swebench": upstream_version(), "case_timeout_s": case_timeout_s,
                   **({"runner": runner, "environment": environment, "gold_exit_code": gold_exit_code} if environment else {})},
        metadata={"repo": inst.repo, "version": inst.version},
    )


def upstream_version() -> str:
    """The installed swebench release ("missing" without it), recorded in tasks and the selection."""
    try:
        return metadata.version("swebench")
    except metadata.PackageNotFoundError:
        return "missing"
