"""Runs a code task's tests on a candidate diff, sandboxed: the candidate's code is untrusted.

The harness side starts `sandbox_runner/` in the executor (no network, rlimits, its own uid) with the
checkout mounted read-only at /repo and the harness's site-packages (pytest) on the path. Code already
inside a VerifierBench sandbox (an exported reference verifier) runs the same runner directly.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import sysconfig
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from verifierbench.executor import Executor, Job, Limits, Outcome
from verifierbench.sources.swebench import run_reuse, runcache
from verifierbench.sources.swebench.budget import LEGACY_TEST_TIMEOUT_S, RUN_OVERHEAD_S
from verifierbench.sources.swebench.venv_store import SANDBOX_ENV, SANDBOX_PYTHON

RUNNER = Path(__file__).resolve().parent / "sandbox_runner"
SANDBOX_REPO = "/repo"
# The time limit is each run's own (`run_tests(timeout_s=...)`); the executor's default is the old fixed one.
LIMITS = Limits(timeout_s=LEGACY_TEST_TIMEOUT_S + RUN_OVERHEAD_S, memory_bytes=4 << 30, max_processes=128, max_file_bytes=256 << 20, scratch_bytes=2 << 30)


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class TestRun:
    __test__ = False  # not a pytest class

    applied: bool
    apply_error: str = ""
    exit_code: int | None = None  # pytest's; None when it timed out or never ran
    log: str = ""
    outcomes: dict[str, str] = field(default_factory=dict)  # node id -> passed/failed/error/skipped/xfailed/xpassed
    problem: str = ""  # the run itself failed (sandbox error, timeout): nothing is known
    seconds: float = 0.0  # the sandboxed run's wall time, from its slot on (not the wait for one); 0: not measured
    reach: dict[str, Any] = field(default_factory=dict)  # a run asked for it: the functions only PASS_TO_PASS tests reached (`vgb_reach`)
    failfast: bool = False  # the tests stopped at their first failure: a non-zero exit, not a complete report

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TestRun":
        report = data.get("report") or {}
        return cls(bool(data.get("applied")), str(data.get("apply_error") or ""), data.get("exit_code"), str(data.get("log") or ""),
                   dict(report.get("outcomes") or {}), reach=_dict(data.get("reach")))

    def to_json(self) -> dict[str, Any]:
        return {"applied": self.applied, "apply_error": self.apply_error, "exit_code": self.exit_code, "log": self.log[-20_000:],
                "outcomes": self.outcomes, **({"problem": self.problem} if self.problem else {})}


_lock = threading.Lock()


@functools.lru_cache(maxsize=2)
def _executor(own_environment: bool) -> Executor:
    # Without a test environment, pytest comes from the harness's own site-packages (the fixture tasks).
    return Executor(LIMITS, site_packages=() if own_environment else (sysconfig.get_paths()["purelib"],))


def in_sandbox() -> bool:
    return bool(os.environ.get("VGB_CANDIDATE")) and os.path.isdir(SANDBOX_REPO)


def run_tests(checkout: Path | None, diffs: list[str], tests: list[str], test_patch: str = "", reset: list[str] | None = None,
              environment: Path | None = None, runner: str = "pytest", timeout_s: float = LEGACY_TEST_TIMEOUT_S,
              cache: bool = False, reach: dict[str, Any] | None = None, failfast: bool = False,
              reuse: str | None = None) -> TestRun:
    """Runs `tests` on the checkout with `diffs` applied, sandboxed.

    Args:
        checkout: the checkout's host directory (None inside a sandbox, which has it at /repo).
        diffs: applied in order to a scratch copy of the checkout.
        tests: pytest node ids or django test labels.
        test_patch: the hidden test patch, applied after the files named in `reset` are restored.
        reset: test files restored to the checkout's version before `test_patch`.
        environment: the task's test environment (`venv_store`), seen read-only at /env.
        runner: django or pytest.
        timeout_s: the tests' own wall-clock limit (`budget.run_timeout_s`); the sandboxed run gets
            `budget.RUN_OVERHEAD_S` more for copying and applying.
        cache: reuse (and keep) the raw run of identical inputs in the persistent run cache (`runcache`): only for
            the reference's own runs at build time and screening's C1/C6, never for C2's repeats or anything a
            generated verifier triggers.
        reach: {"fail_to_pass": [...], "pass_to_pass": [...]}: also map the repository's functions only the
            PASS_TO_PASS tests reach (`sandbox_runner/vgb_reach.py`); the build's gold run for its regression cases,
            never a candidate's.
        failfast: stop at the first failing test (`reference.hidden_run`); never kept in the run cache, whose runs
            screening's mutants read in full.
        reuse: a run a verifier triggered (`run_public`), counted under this scope (`run_reuse.scope_of`): served
            from an identical kept run when there is one, and kept when it may serve others (`run_reuse`).
    """
    job = {"diffs": list(diffs), "tests": list(tests), "test_patch": test_patch, "reset": list(reset or []), "runner": runner,
           "timeout_s": timeout_s, **({"reach": reach} if reach else {}), **({"failfast": True} if failfast else {})}
    if in_sandbox():
        python = SANDBOX_PYTHON if os.path.isfile(SANDBOX_PYTHON) else None
        return replace(TestRun.from_json(_runner_module().run(SANDBOX_REPO, **job, python=python)), failfast=failfast)
    assert checkout is not None, "a checkout is needed outside the sandbox"
    with _lock:
        executor = _executor(environment is not None)
    bwrap = executor.level.value == "bwrap"
    extra_ro: tuple[tuple[str, str], ...] = ((str(checkout), SANDBOX_REPO),) if bwrap else ()
    if environment is not None:
        extra_ro += ((str(environment), SANDBOX_ENV),) if bwrap else ()
        rootfs = rootfs_of(environment)
        if rootfs and bwrap:  # a Python 3.9 environment's interpreter lives there (`python39_rootfs`), seen at the same path
            extra_ro += ((rootfs, rootfs),)
        job["python"] = SANDBOX_PYTHON if bwrap else str(environment / "bin" / "python")
    job["repo"] = SANDBOX_REPO if bwrap else str(checkout)
    key = None
    if cache and not failfast and runcache.enabled():
        key = runcache.run_key(job, checkout, environment, executor.level.value, executor.limits, extra_ro,
                               loopback=True)  # a loopback of its own (Job.loopback below); runs made before had none
    reuse_key = run_reuse.key_for(job, checkout, environment, executor.level.value, executor.limits, extra_ro) if reuse is not None else None
    if reuse is not None and reuse_key is not None:
        kept = run_reuse.lookup(reuse, reuse_key, timeout_s)
        if kept is not None:
            return RawRun(kept[0], seconds=kept[1]).parsed()
    if key is not None:
        record = runcache.load(key, timeout_s)
        if record is not None:
            runcache.count("hits")
            return RawRun(record["result"], seconds=float(record["seconds"])).parsed()
        runcache.count("misses")
    outcome = executor.run(Job(RUNNER, job, key="tests", extra_ro=extra_ro, keep_result=True, timeout_s=timeout_s + RUN_OVERHEAD_S,
                                   loopback=True))  # servers the tests start get a loopback of their own
    raw = RawRun.of(outcome)
    if key is not None and raw.finished():
        runcache.store(key, raw.result or {}, raw.seconds, {"checkout": checkout.name, "environment": environment.name if environment else None,
                                                             "runner": runner, "tests": len(tests), "timeout_s": timeout_s})
    if reuse is not None:
        run_reuse.record(reuse, reuse_key, raw.result, raw.problem, raw.seconds, timeout_s, runner, len(tests),
                         {"checkout": checkout.name, "environment": environment.name if environment else None, "tests": len(tests)})
    return replace(raw.parsed(), failfast=failfast)


@dataclass(frozen=True)
class RawRun:
    """What the sandbox returned for one test run, before any parsing (what `runcache` keeps).

    Args:
        result: the sandbox runner's result object (`applied`, `apply_error`, `exit_code`, `log`, `report`,
            `tests`); None when the run gave none.
        problem: why the run itself failed (sandbox error, timeout), "" when it did not.
        stderr_tail: the end of the sandbox's stderr, for a failed run.
        seconds: the run's wall time in its sandbox, from its slot on.
    """

    result: dict[str, Any] | None
    problem: str = ""
    stderr_tail: str = ""
    seconds: float = 0.0

    @classmethod
    def of(cls, outcome: Outcome) -> "RawRun":
        if outcome.result is None:
            return cls(None, outcome.problem or "the test run gave no result", outcome.stderr_tail, outcome.wall_time_s)
        return cls(outcome.result.get("result") or {}, seconds=outcome.wall_time_s)

    def finished(self) -> bool:
        """The run says something about the code: it gave a result, and its tests ran to the end (not cut by their
        time limit; a diff that does not apply is finished too)."""
        if self.result is None or self.problem:
            return False
        return not self.result.get("applied") or self.result.get("exit_code") is not None

    def parsed(self) -> TestRun:
        if self.result is None:
            return TestRun(False, problem=self.problem, log=self.stderr_tail, seconds=self.seconds)
        return replace(TestRun.from_json(self.result), seconds=self.seconds)


def rootfs_of(environment: Path) -> str:
    """The root file system a Python 3.9 environment's venv points into, "" for a 3.11 one."""
    try:
        return str(json.loads((environment / "verifierbench-env.json").read_text()).get("rootfs") or "")
    except (OSError, ValueError):
        return ""


@functools.lru_cache(maxsize=1)
def _runner_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vgb_run_tests", RUNNER / "run_tests.py")
    assert spec is not None and spec.loader is not None  # a .py file always has a source loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
