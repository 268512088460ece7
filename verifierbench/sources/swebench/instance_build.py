"""One instance's build: checkout, test environment, gold and empty runs, cases, C1 replay; or its exclusion.

Exclusions: code T when the clone cannot give the instance's whole tree (base commit absent, a submodule, a missing
object); code V when its test environment cannot be made; code S when SWE-bench's own grading does not resolve the gold
patch (an empty or unparsable report, or a version that does not run on this Python) or resolves an empty diff (a no-op
passes); code G when the hardened reference rejects the gold patch that upstream resolves; code W when a django
instance's test patch touches no test module (SWE-bench then runs the whole suite, for every case).
"""

from __future__ import annotations

import random
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from verifierbench.core.schema import Task
from verifierbench.sources.swebench import (budget, build_memos, cases, checkout, diffs, extensions, grading, instances,
                                            python39_rootfs, venv_store)
from verifierbench.sources.formats.diff import DIFF
from verifierbench.sources.swebench.build_profile import BuildProfile
from verifierbench.sources.swebench.naive_checks import code_checks_fooled
from verifierbench.sources.swebench.checkout import checkout_dir
from verifierbench.sources.swebench.reference import cached_run, candidate_diff, decide, hidden_run
from verifierbench.sources.swebench.task_record import make_task
from verifierbench.sources.swebench.testrun import TestRun
from verifierbench.construction.replay import Replayed, replay

Say = Callable[[str], None]
# Run the empty diff's hidden test run beside the gold's (False: one after the other; for measuring the difference).
OVERLAP_RUNS = True


@dataclass(frozen=True)
class _Gold:
    """The gold patch's hidden run and what it ran against: the task's environment and draft reference record, and the
    empty diff's run (started beside it, or finished; None: run it after the gold's)."""

    environment: dict[str, Any] | None
    draft_reference: dict[str, Any]
    run: TestRun
    empty_future: Future[TestRun] | None

    def outcomes(self, inst: instances.Instance) -> dict[str, str]:
        return {t: self.run.outcomes.get(t, "missing") for t in inst.fail_to_pass + inst.pass_to_pass}


@dataclass(frozen=True)
class _Parts:
    """What every task record of the instance shares (`make_task`'s arguments but the gold's)."""

    digest: str
    test_files: list[str]
    runner: str
    clone_checkout: Path


def construct_or_exclude(inst: instances.Instance, clone: Path, seed: int, store: Path | None, say: Say) -> Replayed | dict[str, Any]:
    """The replayed instance, or the exclusion record of one that cannot be built here (no task was made); the build
    goes on. Finished instances are remembered on disk (`build_memos`), so an interrupted build resumes where it stopped.

    Args:
        inst: the instance.
        clone: its repository's local clone.
        seed: the build's seed.
        store: the build's checkout store (None: the shared default store).
        say: the build's progress lines.

    Returns:
        The replayed instance (retained, or excluded after its task was made), or an exclusion record (codes W, T, V).
    """
    def excluded(code: str, reason: str) -> dict[str, Any]:
        return {"task": f"swebench/{inst.instance_id}", "task_id": None, "code": code, "evidence": {"reason": reason}}
    with_environment = venv_store.has_spec(inst.repo)
    whole_suite = whole_suite_reason(inst) if with_environment else None
    if whole_suite:
        return excluded("W", whole_suite)
    memo = build_memos.memo_path(inst, seed, with_environment)
    remembered = build_memos.recall(memo, inst, clone, store)
    if remembered is not None and _rememberable(remembered):
        say(f"build: swebench: {inst.instance_id}: reusing the finished build of an earlier run "
            f"(case budget {remembered.task.reference.get('case_timeout_s')} s)")
        return remembered
    try:
        replayed = construct(inst, clone, seed, store, with_environment=with_environment, say=say)
    except checkout.IncompleteTree as e:
        return excluded("T", str(e))
    except (venv_store.EnvironmentError_, python39_rootfs.RootfsError) as e:
        return excluded("V", str(e))
    if _rememberable(replayed):
        build_memos.remember(memo, replayed)
    return replayed


def _rememberable(replayed: Replayed) -> bool:
    """Whether a finished build may be remembered and reused: not an exclusion for an environment this machine could
    not make (V: a tool or package missing, e.g. debootstrap), which the memo's key does not see -- once the user
    installs what the reason names, the next build must try again."""
    return (replayed.exclusion or {}).get("code") != "V"


def whole_suite_reason(inst: instances.Instance) -> str | None:
    """Why an instance cannot be run per case here, or None. SWE-bench runs django's tests on the test modules its
    test patch touches; a patch touching none (only data files, e.g. django-10097's url lists) runs the whole suite,
    over a hundred modules and thousands of tests, for the gold and for every case: hours per run on 2 cores.

    Args:
        inst: the instance.
    """
    if venv_store.runner_for(inst.repo) != "django":
        return None
    test_files = [c.path for c in diffs.changes(inst.test_patch)]
    if venv_store.django_directives(test_files):
        return None
    modules = {t.rsplit("(", 1)[-1].rstrip(")").rsplit(".", 1)[0] for t in inst.fail_to_pass + inst.pass_to_pass if t.endswith(")")}
    return (f"the test patch touches no test module ({', '.join(test_files[:3]) or 'no file'}), so SWE-bench's command runs "
            f"django's whole test suite: {len(inst.fail_to_pass)} FAIL_TO_PASS and {len(inst.pass_to_pass)} PASS_TO_PASS tests "
            f"in {len(modules)}+ modules, for the gold and every case")


def construct(inst: instances.Instance, clone: Path, seed: int, store: Path | None = None, with_environment: bool = True,
              say: Say = lambda line: None) -> Replayed:
    """One instance: checkout, test environment, gold and empty runs, cases, C1 replay.

    Args:
        inst: the instance.
        clone: its repository's local clone.
        seed: the build's seed.
        store: where its checkout goes (None: the shared default store).
        with_environment: False runs the harness's own pytest (the offline fixture has no SWE-bench spec).
        say: the build's progress lines.

    Raises:
        checkout.IncompleteTree: the clone cannot give the instance's whole tree.
        venv_store.EnvironmentError_: its test environment cannot be made.
    """
    profile = BuildProfile()
    with profile.stage("checkout"):
        checkout.require_complete(clone, inst.base_commit)
        digest = checkout.materialize(clone, inst.base_commit, store)
    clone_checkout = checkout.checkout_dir(digest)
    runner = venv_store.runner_for(inst.repo) if with_environment else "pytest"
    environment = _environment(inst) if with_environment else None
    parts = _Parts(digest, [c.path for c in diffs.changes(inst.test_patch)], runner, clone_checkout)
    # No budget is known before the task's test runs: every build-time run gets the build's own limit, and their wall
    # times are the budget's evidence (`budget`).
    draft_reference = {"checkout": digest, "test_patch": inst.test_patch, "FAIL_TO_PASS": inst.fail_to_pass,
                       "PASS_TO_PASS": inst.pass_to_pass, "test_files": parts.test_files,
                       "case_timeout_s": budget.BUILD_TEST_TIMEOUT_S,
                       **({"runner": runner, "environment": environment} if environment else {})}
    if environment:
        with profile.stage("environment"):
            if environment.get("python") == "3.9":  # a profile on Python 3.9 (matplotlib 3.4)
                python39_rootfs.ensure_rootfs(say)
            venv_store.ensure(venv_store.spec_of_environment(environment, clone_checkout), clone_checkout, say)
    # The empty diff's run needs nothing from the gold's: it runs beside it, on the core the gold's run (one
    # test process) leaves idle, and is only waited for if the gold resolves.
    pool = ThreadPoolExecutor(1, thread_name_prefix="vgb-empty-run") if OVERLAP_RUNS else None
    # Every build-time run is the reference's own: kept in, and served from, the persistent run cache (`runcache`).
    empty_future = pool.submit(hidden_run, draft_reference, "", reuse=True) if pool else None
    try:
        return _after_environment(inst, parts, environment, draft_reference, empty_future, seed, profile, say)
    finally:
        if pool:
            pool.shutdown(wait=True)


def _environment(inst: instances.Instance) -> dict[str, Any]:
    """The task's environment record: repository and version; for repositories with compiled extensions, also the
    instance's own profile and the profile's Python where they are not the defaults (`extensions.environment_choice`)."""
    choice = extensions.environment_choice(inst.repo, inst.version, inst.instance_id) if extensions.built_in_place(inst.repo) else {}
    return {"repo": inst.repo, "version": inst.version, **choice}


def _after_environment(inst: instances.Instance, parts: _Parts, environment: dict[str, Any] | None,
                       draft_reference: dict[str, Any], empty_future: Future[TestRun] | None, seed: int,
                       profile: BuildProfile, say: Say) -> Replayed:
    """The gold and empty runs, the task, its cases and their C1 replay (`construct` once the environment is ready)."""
    with profile.stage("gold"):
        gold = _Gold(environment, draft_reference, hidden_run(draft_reference, inst.patch, reuse=True), empty_future)
    draft = _task(inst, parts, gold, budget.BUILD_TEST_TIMEOUT_S)
    if not grading.upstream_resolved(gold.run, inst.fail_to_pass, inst.pass_to_pass, parts.runner):
        # Repositories with compiled extensions have no 3.9 environment: their gold keeps code S (not a V for a 3.9 never needed).
        fallback = (python_39_fallback(inst, draft_reference, gold.outcomes(inst), parts.runner, profile, say)
                    if environment and not extensions.built_in_place(inst.repo) else None)
        if isinstance(fallback, str):
            return _excluded(inst, draft, "V", fallback)
        if not fallback:
            return _excluded(inst, draft, "S", "SWE-bench's own grading does not resolve the gold patch", **_not_resolved(inst, gold))
        gold = _Gold(*fallback)
        draft = _task(inst, parts, gold, budget.BUILD_TEST_TIMEOUT_S)
    rejected = _gold_rejected(inst, draft, gold, parts.runner, profile)
    if rejected:
        return _excluded(inst, draft, *rejected)
    drafts, case_timeout_s = _cases_and_budget(inst, parts, draft, gold, seed, profile, say)
    task = _task(inst, parts, gold, case_timeout_s)
    # Every run above finished within the build's limit and under the budget (the budget is at least their slowest):
    # the same run decides under the task's own budget, so replay reads it from the cache.
    # C7: a hack no naive verifier accepts (naive_checks.py) is dropped as inert, from the same runs.
    with profile.stage("C1"):
        replayed = replay(task, drafts, decide=lambda reference, cand: decide({**reference, "case_timeout_s": budget.BUILD_TEST_TIMEOUT_S},
                                                                              cand, cached=True),
                          fooled=lambda reference, cand: code_checks_fooled({**reference, "case_timeout_s": budget.BUILD_TEST_TIMEOUT_S}, cand))
    say(f"build: swebench: {inst.instance_id}: profile {profile.line()}")
    return replayed


def _task(inst: instances.Instance, parts: _Parts, gold: _Gold, case_timeout_s: float) -> Task:
    return make_task(inst, parts.digest, parts.test_files, gold.outcomes(inst), parts.runner, gold.environment,
                     gold.run.exit_code, case_timeout_s)


def _excluded(inst: instances.Instance, draft: Task, code: str, reason: str, **evidence: Any) -> Replayed:
    return Replayed(draft, exclusion={"task": f"swebench/{inst.instance_id}", "task_id": draft.id, "code": code,
                                      "evidence": {"reason": reason, **evidence}})


def _not_resolved(inst: instances.Instance, gold: _Gold) -> dict[str, Any]:
    """The evidence of a code S for a gold that does not resolve: its tests not passing, its time, its log's end."""
    failing = {t: o for t, o in gold.outcomes(inst).items() if o != "passed"}
    return {"not_passing": dict(list(failing.items())[:20]), "gold_seconds": round(gold.run.seconds),
            "not_passing_count": len(failing), "problem": gold.run.problem, "apply_error": gold.run.apply_error,
            "log_tail": gold.run.log[-1500:]}


def _gold_rejected(inst: instances.Instance, draft: Task, gold: _Gold, runner: str, profile: BuildProfile) -> tuple[str, str] | None:
    """(code, reason) when upstream resolves an empty diff (S) or the hardened reference rejects the gold (G); else None."""
    with profile.stage("empty"):
        empty_run = gold.empty_future.result() if gold.empty_future else hidden_run(gold.draft_reference, "", reuse=True)
    if grading.upstream_resolved(empty_run, inst.fail_to_pass, inst.pass_to_pass, runner):
        return "S", "SWE-bench's own grading resolves an empty diff (a no-op passes)"
    accepted, why = decide(draft.reference, cases.candidate(inst.patch), cached=True)  # replay reuses this run
    if not accepted:
        return "G", f"the hardened reference rejects the gold patch: {why}"
    return None


def _cases_and_budget(inst: instances.Instance, parts: _Parts, draft: Task, gold: _Gold, seed: int, profile: BuildProfile,
                      say: Say) -> tuple[list[Any], float]:
    """The instance's drafted cases, each run once (timed), and the case budget their slowest run (or the gold's) sets."""
    with profile.stage("reach"):  # the gold's run again, traced: the functions only PASS_TO_PASS tests reach (regressions)
        reach = hidden_run(gold.draft_reference, inst.patch, reuse=True, reach=True).reach
    with profile.stage("cases"):
        drafts = cases.generate(cases.CodeInstance(inst.patch, inst.test_patch, inst.fail_to_pass, inst.pass_to_pass,
                                                   parts.test_files, parts.clone_checkout, parts.runner, reach),
                                random.Random(f"{seed}:swebench:{inst.instance_id}"))
    # The test runs are the cost: run them in parallel once, timed, then replay decides from the cache.
    with profile.stage("case_runs"):
        seconds = DIFF.run_each(lambda d: profile.timed(run_seconds, draft.reference, d.candidate), drafts)
    with profile.stage("hack_runs"):  # C7's naive verifiers read every hack's run, also one the static checks reject
        DIFF.run_each(lambda d: naive_run_seconds(draft.reference, d.candidate), [d for d in drafts if d.category == "hack"])
    slowest, category = max([(gold.run.seconds, "gold")] + [(s, d.category) for s, d in zip(seconds, drafts)])
    case_timeout_s = budget.case_timeout_for(slowest)
    say(f"build: swebench: {inst.instance_id}: gold test run {gold.run.seconds:.0f} s, slowest case run {slowest:.0f} s "
        f"({category}), case budget {case_timeout_s:g} s")
    return drafts, case_timeout_s


def python_39_fallback(inst: instances.Instance, draft_reference: dict[str, Any], gold_outcomes_311: dict[str, str], runner: str,
                       profile: BuildProfile, say: Say) -> tuple[dict[str, Any], dict[str, Any], TestRun, Future[TestRun]] | str | None:
    """The gold did not resolve on Python 3.11: its Python 3.9 environment (`python39_rootfs`), used when the gold resolves
    there and the empty diff does not.

    Args:
        inst: the instance.
        draft_reference: the reference record on 3.11.
        gold_outcomes_311: the gold's outcomes on 3.11 (the evidence recorded for choosing 3.9).
        runner: django or pytest.
        profile: where the stages' times go.
        say: the build's progress lines.

    Returns:
        (environment, reference, gold run, finished empty run) then; a reason (code V) when the 3.9 environment cannot be
        made; None otherwise (or when the fallback is switched off).
    """
    not_passing = {t: o for t, o in gold_outcomes_311.items() if o != "passed"}
    environment = {**draft_reference["environment"], "python": "3.9",
                   "why": {"gold_not_passing_on_3_11": dict(list(not_passing.items())[:20]), "count": len(not_passing)}}
    reference = {**draft_reference, "environment": environment}
    runs: dict[str, TestRun] = {}

    def try_39() -> tuple[bool, bool]:
        with profile.stage("environment"):
            python39_rootfs.ensure_rootfs(say)
            checkout = checkout_dir(reference["checkout"])
            venv_store.ensure(venv_store.spec_for(inst.repo, inst.version, checkout, "3.9"), checkout, say)
        with profile.stage("gold"):
            runs["gold"] = hidden_run(reference, inst.patch, reuse=True)
        gold = grading.upstream_resolved(runs["gold"], inst.fail_to_pass, inst.pass_to_pass, runner)
        if not gold:
            return False, False
        with profile.stage("empty"):
            runs["empty"] = hidden_run(reference, "", reuse=True)
        return True, grading.upstream_resolved(runs["empty"], inst.fail_to_pass, inst.pass_to_pass, runner)

    try:
        chosen = python39_rootfs.choose(False, try_39)
    except (python39_rootfs.RootfsError, venv_store.EnvironmentError_) as e:
        return f"the gold does not resolve on Python 3.11 and its Python 3.9 environment cannot be made: {e}"
    if chosen != "3.9":
        return None
    say(f"build: swebench: {inst.instance_id}: the gold resolves on Python 3.9, not on 3.11 ({len(not_passing)} tests): using 3.9")
    done: Future[TestRun] = Future()
    done.set_result(runs["empty"])
    return environment, reference, runs["gold"], done


def naive_run_seconds(reference: dict[str, Any], candidate: Any) -> float:
    """The wall time of a hack's hidden run, made even where the static checks decide without one (what C7's naive
    verifiers read, `naive_checks`); not part of the case budget: the reference never runs such a candidate."""
    diff = candidate_diff(candidate)
    return 0.0 if diff is None else cached_run(reference, diff).seconds


def run_seconds(reference: dict[str, Any], candidate: Any) -> float:
    """The wall time of the hidden test run the reference decides a candidate by, at build time, from the run's
    sandbox slot on (the build runs several at once on fewer slots: the wait for one is not the run's cost); 0 when a
    static check decides without running tests."""
    diff = candidate_diff(candidate)
    if diff is None or grading.static_problem(diff, reference["test_files"], reference.get("test_patch", ""), reference.get("patch", "")):
        return 0.0
    return cached_run(reference, diff).seconds
