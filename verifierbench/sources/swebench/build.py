"""Builds SWE-bench Verified code tasks: instances selected with a seed (47 from django, astropy and
matplotlib as in the paper, the paper's named instances first), each with its checkout, its gold
test outcomes, its cases, and C1 replay through the reference verifier.

Where the data comes from: `--swebench-instances` / `--swebench-repos`, else the offline copy beside
the project when present (`instances.SHARED_COPY`), else the dataset hub at the pinned revision.
Where tests run: in the no-Docker sandbox, against a checkout exported from the clone, with the
instance's own test environment (`envs`: SWE-bench's specification of its repository and version,
made from this machine's Python 3.11 and the package index) and its own test command (django's
tests/runtests.py, pytest elsewhere).

Exclusions: code T when the clone cannot give the instance's whole tree (base commit absent, a
submodule, a missing object); code V when its test environment cannot be made; code S when SWE-bench's
own grading does not resolve the gold patch (an empty or unparsable report, or a version that does not
run on this Python) or resolves an empty diff (a no-op passes); code G when the hardened reference
rejects the gold patch that upstream resolves; code W when a django instance's test patch touches no test module
(SWE-bench then runs the whole suite, for every case).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import shutil
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import metadata
from typing import Any, Callable, Iterator

from verifierbench import safe_fs
from verifierbench.errors import UserError
from verifierbench.references import each
from verifierbench.schema import CandidateFormat, Task, TaskType, TestCase
from verifierbench.sources import registry
from verifierbench.sources.base import SourcePaths
from verifierbench.sources.swebench import budget, bullseye, cases, checkout, diffs, envs, extensions, grading, instances, runcache
from verifierbench.sources.swebench.checkout import checkout_dir
from verifierbench.sources.swebench.reference import cached_run, candidate_diff, decide, hidden_run
from verifierbench.construction.replay import Replayed, replay
from verifierbench.construction.selection import Selection

PAPER_REPOS = ("django/django", "astropy/astropy", "matplotlib/matplotlib")
QUOTA = 47
# Run the empty diff's hidden test run beside the gold's (False: one after the other; for measuring the difference).
OVERLAP_RUNS = True
# Make the next instance's test environment while the current one builds. Off: its one measurement (2026-12-02,
# load 12-20) is void (see benchmarks/build_overlap.py), and two environments made at once took 1108 s and 1121 s
# where the same two, one after the other, took 370 s and 293 s under a lighter load: not a clear win yet.
PREFETCH_ENVIRONMENTS = False
FORCED = ("django__django-11734", "django__django-11740", "django__django-11848", "django__django-12155",
          "matplotlib__matplotlib-14623")

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


def unavailable_reason() -> str:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception as e:  # noqa: BLE001 - any failure means no engine
        return (f"no Docker engine for SWE-bench's environment images ({type(e).__name__}) and no --swebench-repos DIR "
                "of local clones to test against")
    return ("a Docker engine is present, but running tests in SWE-bench's environment images is not supported yet; "
            "pass --swebench-repos DIR of local clones")


def make_task(inst: instances.Instance, digest: str, test_files: list[str], gold_outcomes: dict[str, str],
              runner: str = "pytest", environment: dict | None = None, gold_exit_code: int | None = 0,
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
    """
    tests = "django test labels" if runner == "django" else "pytest node ids"
    return Task.create(
        source="swebench",
        source_id=inst.instance_id,
        type=TaskType.code,
        instruction=INSTRUCTION.format(repo=inst.repo, commit=inst.base_commit, problem=inst.problem_statement.strip(),
                                       tests_hint=TESTS_HINT[runner]),
        environment={"repository": inst.repo, "base_commit": inst.base_commit, "checkout": "/repo", "checkout_digest": digest,
                     "test_runner": runner, **({"test_environment": "/env"} if environment else {}),
                     "run_public": f"vgb_env.run_public(diff=str, tests=[{tests}]) -> {{applied, exit_code, outcomes, log}}"},
        candidate_format=CandidateFormat.diff,
        # `patch` (the gold) is not used to decide; the auditor builds its candidates from it, as the build does.
        reference={"checker": "swebench", "instance_id": inst.instance_id, "checkout": digest, "patch": inst.patch,
                   "test_patch": inst.test_patch,
                   "FAIL_TO_PASS": inst.fail_to_pass, "PASS_TO_PASS": inst.pass_to_pass, "test_files": test_files,
                   "gold_outcomes": gold_outcomes, "swebench": _version(), "case_timeout_s": case_timeout_s,
                   **({"runner": runner, "environment": environment, "gold_exit_code": gold_exit_code} if environment else {})},
        metadata={"repo": inst.repo, "version": inst.version},
    )


def _version() -> str:
    try:
        return metadata.version("swebench")
    except metadata.PackageNotFoundError:
        return "missing"


def construct(inst: instances.Instance, clone, seed: int, store=None, with_environment: bool = True,
              say=lambda line: None) -> Replayed:
    """One instance: checkout, test environment, gold and empty runs, cases, C1 replay.
    `with_environment=False` runs the harness's own pytest (the offline fixture has no SWE-bench spec)."""
    profile = _Profile()
    with profile.stage("checkout"):
        checkout.require_complete(clone, inst.base_commit)
        digest = checkout.materialize(clone, inst.base_commit, store)
    clone_checkout = checkout.checkout_dir(digest)
    runner = envs.runner_for(inst.repo) if with_environment else "pytest"
    environment = {"repo": inst.repo, "version": inst.version} if with_environment else None
    test_files = [c.path for c in diffs.changes(inst.test_patch)]
    # No budget is known before the task's test runs: every build-time run gets the build's own limit, and their wall
    # times are the budget's evidence (`budget`).
    draft_reference = {"checkout": digest, "test_patch": inst.test_patch, "FAIL_TO_PASS": inst.fail_to_pass,
                       "PASS_TO_PASS": inst.pass_to_pass, "test_files": test_files, "case_timeout_s": budget.BUILD_TEST_TIMEOUT_S,
                       **({"runner": runner, "environment": environment} if environment else {})}
    if environment:
        with profile.stage("environment"):
            envs.ensure(envs.spec_for(inst.repo, inst.version, clone_checkout), clone_checkout, say)
    # The empty diff's run needs nothing from the gold's: it runs beside it, on the core the gold's run (one
    # test process) leaves idle, and is only waited for if the gold resolves.
    pool = ThreadPoolExecutor(1, thread_name_prefix="vgb-empty-run") if OVERLAP_RUNS else None
    # Every build-time run is the reference's own: kept in, and served from, the persistent run cache (`runcache`).
    empty_future = pool.submit(hidden_run, draft_reference, "", reuse=True) if pool else None
    try:
        return _after_environment(inst, task_parts=(digest, test_files, runner, environment), draft_reference=draft_reference,
                                  empty_future=empty_future, clone_checkout=clone_checkout, seed=seed, profile=profile, say=say)
    finally:
        if pool:
            pool.shutdown(wait=True)


def _after_environment(inst: instances.Instance, task_parts: tuple, draft_reference: dict, empty_future: Future | None,
                       clone_checkout, seed: int, profile: "_Profile", say) -> Replayed:
    """The gold and empty runs, the task, its cases and their C1 replay (`construct` once the environment is ready).

    Args:
        inst: the instance.
        task_parts: (checkout digest, test files, runner, environment) for `make_task`.
        draft_reference: the reference record without the gold's outcomes and budget.
        empty_future: the empty diff's run already started beside the gold's (None: run it here, after the gold's).
        clone_checkout: the checkout's directory.
        seed: the build's seed.
        profile: where the stages' times go.
        say: the build's progress lines.
    """
    digest, test_files, runner, environment = task_parts
    with profile.stage("gold"):
        gold_run = hidden_run(draft_reference, inst.patch, reuse=True)
    gold_seconds = gold_run.seconds
    gold_outcomes = {t: gold_run.outcomes.get(t, "missing") for t in inst.fail_to_pass + inst.pass_to_pass}
    draft = make_task(inst, digest, test_files, gold_outcomes, runner, environment, gold_run.exit_code, budget.BUILD_TEST_TIMEOUT_S)
    name = f"swebench/{inst.instance_id}"

    def exclude(code: str, reason: str, **evidence) -> Replayed:
        return Replayed(draft, exclusion={"task": name, "task_id": draft.id, "code": code, "evidence": {"reason": reason, **evidence}})

    gold_resolves = grading.upstream_resolved(gold_run, inst.fail_to_pass, inst.pass_to_pass, runner)
    # Repositories with compiled extensions have no 3.9 environment: their gold keeps code S (not a V for a 3.9 never needed).
    if not gold_resolves and environment and not extensions.built_in_place(inst.repo):
        fallback = _python_39_fallback(inst, draft_reference, gold_outcomes, runner, profile, say)
        if isinstance(fallback, str):
            return exclude("V", fallback)
        if fallback:
            environment, draft_reference, gold_run, empty_future = fallback
            gold_seconds = gold_run.seconds
            gold_outcomes = {t: gold_run.outcomes.get(t, "missing") for t in inst.fail_to_pass + inst.pass_to_pass}
            draft = make_task(inst, digest, test_files, gold_outcomes, runner, environment, gold_run.exit_code,
                              budget.BUILD_TEST_TIMEOUT_S)
            gold_resolves = True
    if not gold_resolves:
        failing = {t: o for t, o in gold_outcomes.items() if o != "passed"}
        return exclude("S", "SWE-bench's own grading does not resolve the gold patch", not_passing=dict(list(failing.items())[:20]),
                       gold_seconds=round(gold_seconds),
                       not_passing_count=len(failing), problem=gold_run.problem, apply_error=gold_run.apply_error,
                       log_tail=gold_run.log[-1500:])
    with profile.stage("empty"):
        empty_run = empty_future.result() if empty_future else hidden_run(draft_reference, "", reuse=True)
    if grading.upstream_resolved(empty_run, inst.fail_to_pass, inst.pass_to_pass, runner):
        return exclude("S", "SWE-bench's own grading resolves an empty diff (a no-op passes)")
    accepted, why = decide(draft.reference, cases.candidate(inst.patch), cached=True)  # replay reuses this run
    if not accepted:
        return exclude("G", f"the hardened reference rejects the gold patch: {why}")
    with profile.stage("reach"):  # the gold's run again, traced: the functions only PASS_TO_PASS tests reach (regressions)
        reach = hidden_run(draft_reference, inst.patch, reuse=True, reach=True).reach
    with profile.stage("cases"):
        drafts = cases.generate(cases.CodeInstance(inst.patch, inst.test_patch, inst.fail_to_pass, inst.pass_to_pass, test_files,
                                                   clone_checkout, runner, reach), random.Random(f"{seed}:swebench:{inst.instance_id}"))
    # The test runs are the cost: run them in parallel once, timed, then replay decides from the cache.
    with profile.stage("case_runs"):
        seconds = each(True, lambda d: profile.timed(_run_seconds, draft.reference, d.candidate), drafts)
    slowest, category = max([(gold_seconds, "gold")] + [(s, d.category) for s, d in zip(seconds, drafts)])
    case_timeout_s = budget.case_timeout_for(slowest)
    say(f"build: swebench: {inst.instance_id}: gold test run {gold_seconds:.0f} s, slowest case run {slowest:.0f} s "
        f"({category}), case budget {case_timeout_s:g} s")
    task = make_task(inst, digest, test_files, gold_outcomes, runner, environment, gold_run.exit_code, case_timeout_s)
    # Every run above finished within the build's limit and under the budget (the budget is at least their slowest):
    # the same run decides under the task's own budget, so replay reads it from the cache.
    with profile.stage("C1"):
        replayed = replay(task, drafts, decide=lambda reference, cand: decide({**reference, "case_timeout_s": budget.BUILD_TEST_TIMEOUT_S},
                                                                              cand, cached=True))
    say(f"build: swebench: {inst.instance_id}: profile {profile.line()}")
    return replayed


def _python_39_fallback(inst: instances.Instance, draft_reference: dict, gold_outcomes_311: dict[str, str], runner: str,
                        profile: "_Profile", say) -> tuple | str | None:
    """The gold did not resolve on Python 3.11: its Python 3.9 environment (`bullseye`), used when the gold resolves
    there and the empty diff does not. Returns (environment, reference, gold run, finished empty run) then, a reason
    (code V) when the 3.9 environment cannot be made, None otherwise (or when the fallback is switched off).

    Args:
        inst: the instance.
        draft_reference: the reference record on 3.11.
        gold_outcomes_311: the gold's outcomes on 3.11 (the evidence recorded for choosing 3.9).
        runner: django or pytest.
        profile: where the stages' times go.
        say: the build's progress lines.
    """
    not_passing = {t: o for t, o in gold_outcomes_311.items() if o != "passed"}
    environment = {**draft_reference["environment"], "python": "3.9",
                   "why": {"gold_not_passing_on_3_11": dict(list(not_passing.items())[:20]), "count": len(not_passing)}}
    reference = {**draft_reference, "environment": environment}
    runs: dict[str, Any] = {}

    def try_39() -> tuple[bool, bool]:
        with profile.stage("environment"):
            bullseye.ensure_rootfs(say)
            checkout = checkout_dir(reference["checkout"])
            envs.ensure(envs.spec_for(inst.repo, inst.version, checkout, "3.9"), checkout, say)
        with profile.stage("gold"):
            runs["gold"] = hidden_run(reference, inst.patch, reuse=True)
        gold = grading.upstream_resolved(runs["gold"], inst.fail_to_pass, inst.pass_to_pass, runner)
        if not gold:
            return False, False
        with profile.stage("empty"):
            runs["empty"] = hidden_run(reference, "", reuse=True)
        return True, grading.upstream_resolved(runs["empty"], inst.fail_to_pass, inst.pass_to_pass, runner)

    try:
        chosen = bullseye.choose(False, try_39)
    except (bullseye.RootfsError, envs.EnvironmentError_) as e:
        return f"the gold does not resolve on Python 3.11 and its Python 3.9 environment cannot be made: {e}"
    if chosen != "3.9":
        return None
    say(f"build: swebench: {inst.instance_id}: the gold resolves on Python 3.9, not on 3.11 ({len(not_passing)} tests): using 3.9")
    done: Future = Future()
    done.set_result(runs["empty"])
    return environment, reference, runs["gold"], done


class _Profile:
    """Where one instance's build time goes (wall seconds per stage, and each case run's), said in one line."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.runs: list[float] = []
        self._lock = threading.Lock()
        self._cache_before = dict(runcache.stats)  # instances build one at a time: the difference is this one's

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Times the block under `name`.

        Args:
            name: the stage (checkout, environment, gold, empty, cases, case_runs, C1).
        """
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.monotonic() - started

    def timed(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`fn(*args, **kwargs)`, its wall time kept as one case run (called from several threads).

        Args:
            fn: the call timed (a reference decision).
        """
        started = time.monotonic()
        try:
            return fn(*args, **kwargs)
        finally:
            with self._lock:
                self.runs.append(time.monotonic() - started)

    def line(self) -> str:
        stages = ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items())
        runs = sorted(self.runs)
        hits, misses = (runcache.stats[k] - self._cache_before[k] for k in ("hits", "misses"))
        cache = f"; run cache: {hits} reused, {misses} run" if hits or misses else ""
        if not runs:
            return stages + cache
        return (f"{stages}; {len(runs)} case runs: sum {sum(runs):.0f} s, median {runs[len(runs) // 2]:.1f} s, "
                f"max {runs[-1]:.1f} s{cache}")


def _run_seconds(reference: dict, candidate) -> float:
    """The wall time of the hidden test run the reference decides a candidate by, at build time, from the run's
    sandbox slot on (the build runs several at once on fewer slots: the wait for one is not the run's cost); 0 when a
    static check decides without running tests."""
    diff = candidate_diff(candidate)
    if diff is None or grading.static_problem(diff, reference["test_files"]):
        return 0.0
    return cached_run(reference, diff).seconds


def _ordered(rows: list[instances.Instance], seed: int, ids: list[str] | None) -> tuple[list[instances.Instance], bool]:
    if ids:
        by_id = {i.instance_id: i for i in rows}
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise UserError(f"--swebench-ids: no instance {unknown[0]} in the instances read")
        return [by_id[i] for i in ids], False
    paper = [i for i in rows if i.repo in PAPER_REPOS]
    pool = sorted(paper or rows, key=lambda i: i.instance_id)
    random.Random(f"{seed}:swebench").shuffle(pool)
    return [i for i in pool if i.instance_id in FORCED] + [i for i in pool if i.instance_id not in FORCED], bool(paper)


def build(seed: int, instances_path: str | None = None, repos: str | None = None, store=None, ids: str | None = None,
          say=lambda line: None) -> Selection:
    """`store`: where checkouts go (the build passes `<suite>/checkouts`); `ids`: these instances instead
    of the seeded selection (comma-separated)."""
    bad_rows: list[str] = []
    rows = instances.load(instances_path, bad_rows)
    for reason in bad_rows:
        say(f"build: swebench: skipped a row: {reason}")
    if not rows:
        raise UserError(bad_rows[0] if bad_rows else "no SWE-bench instances were read")
    repos_dir = instances.repos_dir(repos)
    if repos_dir is None:
        raise UserError(unavailable_reason())
    if not repos_dir.is_dir():
        raise UserError(f"--swebench-repos {repos_dir} is not a directory")
    exported_before = _checkouts_in(store)
    chosen = instances.selected_ids(ids)
    ordered, paper_only = _ordered(rows, seed, chosen)
    quota = len(ordered) if chosen else QUOTA
    result = Selection(record={"seed": seed, "quota": quota, "forced": list(FORCED), "ids": chosen,
                               "instances": instances_path or instances.default_instances() or f"hub@{instances.revision()}",
                               "paper_repos_only": paper_only, "swebench": _version(), "python": envs.python_version(),
                               "no_clone": [], "not_pytest": [], "bad_rows": bad_rows, "walked": []})
    if not (instances_path or instances.default_instances()):
        result.record["hub_commit"] = instances.hub_commit()
    ahead: threading.Thread | None = None
    for number, inst in enumerate(ordered, 1):
        if len(result.retained) >= quota:
            break
        clone = instances.local_clone(repos_dir, inst.repo)
        if clone is None:
            result.record["no_clone"].append(inst.instance_id)
            continue
        if not envs.has_spec(inst.repo) and not all("::" in t for t in inst.fail_to_pass + inst.pass_to_pass):
            # A repository SWE-bench gives no environment for runs the harness's pytest: it needs node ids.
            result.record["not_pytest"].append(inst.instance_id)
            continue
        result.record["walked"].append(inst.instance_id)
        say(f"build: swebench: {inst.instance_id} ({len(result.retained)}/{quota} retained, {number} walked) ...")
        if ahead:
            ahead.join()
        ahead = _prepare_next(ordered[number:], repos_dir, seed, say) if PREFETCH_ENVIRONMENTS else None
        replayed = _construct_or_exclude(inst, clone, seed, store, say)
        exclusion: dict | None
        if isinstance(replayed, dict):  # excluded before a task was made
            exclusion = replayed
        else:
            result.dropped += replayed.dropped
            exclusion = replayed.exclusion
        if exclusion:
            result.excluded.append(exclusion)
            say(f"build: swebench: {inst.instance_id} excluded ({exclusion['code']}): "
                f"{exclusion['evidence']['reason'][:600]}")
        elif not isinstance(replayed, dict):
            result.retained.append(replayed)
            say(f"build: swebench: {inst.instance_id} retained, {len(replayed.cases)} cases")
    if ahead:
        ahead.join()
    _drop_unused_checkouts(store, exported_before, {r.task.reference["checkout"] for r in result.retained})
    if not result.retained and not result.excluded:
        if result.record["not_pytest"]:
            raise UserError(f"{len(result.record['not_pytest'])} instances of repositories without a SWE-bench environment "
                            "specification name tests that are not pytest node ids, which the harness's own pytest cannot run")
        raise UserError(f"no instance has a local clone in {repos_dir} (looked for e.g. {ordered[0].repo.replace('/', '__') if ordered else '-'})")
    return result


def _checkouts_in(store) -> set[str]:
    """The checkouts already in a build's own store (None: the shared default store, never pruned)."""
    if store is None or not store.is_dir():
        return set()
    return {p.name for p in store.iterdir() if not p.name.startswith(".")}


def _drop_unused_checkouts(store, before: set[str], used: set[str]) -> None:
    """A checkout this build exported for an instance it then excluded (an environment that cannot be made, a gold
    that does not resolve) is no task's: it leaves the suite, which carries its tasks' checkouts only.

    Args:
        store: the build's own checkout store (`<suite>/checkouts`); None leaves the shared store alone.
        before: the checkouts the store held before this build (kept: another build's).
        used: the checkouts of the retained tasks.
    """
    if store is None:
        return
    for name in _checkouts_in(store) - before - used:
        shutil.rmtree(store / name, ignore_errors=True)
def _prepare_next(following: list[instances.Instance], repos_dir, seed: int, say) -> threading.Thread | None:
    """Starts making the test environment of the next instance to build while this one runs its tests: making one
    (pip, or a compiler with one job) keeps one core busy, and an instance's gold and empty runs leave one idle.

    Args:
        following: the instances after the current one, in walking order.
        repos_dir: the clones' directory.
        seed: the build's seed (an instance remembered from an earlier build needs nothing).
        say: the build's progress lines.
    """
    found = next(((inst, clone) for inst in following if envs.has_spec(inst.repo)
                  for clone in [instances.local_clone(repos_dir, inst.repo)] if clone is not None), None)
    if found is None or _memo_path(found[0], seed, True).is_file():
        return None
    inst, clone = found

    def prepare() -> None:
        try:
            checkout.require_complete(clone, inst.base_commit)
            # The shared store, not the suite's: an instance never reached (the quota met) leaves nothing in the suite.
            digest = checkout.materialize(clone, inst.base_commit)
            directory = checkout.checkout_dir(digest)
            envs.ensure(envs.spec_for(inst.repo, inst.version, directory), directory, say)
        except Exception:  # noqa: BLE001 - the instance's own build meets the same failure and reports it
            pass

    thread = threading.Thread(target=prepare, name=f"vgb-env-{inst.instance_id}", daemon=True)
    thread.start()
    return thread


def _construct_or_exclude(inst: instances.Instance, clone, seed: int, store, say) -> Replayed | dict:
    """The replayed instance, or the exclusion record of one that cannot be built here (no task was made); the build
    goes on. Finished instances are remembered on disk (`done`), so an interrupted build resumes where it stopped."""
    def excluded(code: str, reason: str) -> dict:
        return {"task": f"swebench/{inst.instance_id}", "task_id": None, "code": code, "evidence": {"reason": reason}}
    with_environment = envs.has_spec(inst.repo)
    whole_suite = _whole_suite_reason(inst) if with_environment else None
    if whole_suite:
        return excluded("W", whole_suite)
    memo = _memo_path(inst, seed, with_environment)
    remembered = _recall(memo, inst, clone, store)
    if remembered is not None:
        say(f"build: swebench: {inst.instance_id}: reusing the finished build of an earlier run "
            f"(case budget {remembered.task.reference.get('case_timeout_s')} s)")
        return remembered
    try:
        replayed = construct(inst, clone, seed, store, with_environment=with_environment, say=say)
    except checkout.IncompleteTree as e:
        return excluded("T", str(e))
    except envs.EnvironmentError_ as e:
        return excluded("V", str(e))
    _remember(memo, replayed)
    return replayed


def _whole_suite_reason(inst: instances.Instance) -> str | None:
    """Why an instance cannot be run per case here, or None. SWE-bench runs django's tests on the test modules its
    test patch touches; a patch touching none (only data files, e.g. django-10097's url lists) runs the whole suite,
    over a hundred modules and thousands of tests, for the gold and for every case: hours per run on 2 cores.

    Args:
        inst: the instance.
    """
    if envs.runner_for(inst.repo) != "django":
        return None
    test_files = [c.path for c in diffs.changes(inst.test_patch)]
    if envs.django_directives(test_files):
        return None
    modules = {t.rsplit("(", 1)[-1].rstrip(")").rsplit(".", 1)[0] for t in inst.fail_to_pass + inst.pass_to_pass if t.endswith(")")}
    return (f"the test patch touches no test module ({', '.join(test_files[:3]) or 'no file'}), so SWE-bench's command runs "
            f"django's whole test suite: {len(inst.fail_to_pass)} FAIL_TO_PASS and {len(inst.pass_to_pass)} PASS_TO_PASS tests "
            f"in {len(modules)}+ modules, for the gold and every case")


def _memo_path(inst: instances.Instance, seed: int, with_environment: bool):
    """Keyed on everything the result depends on: the row, the seed, the builder's and upstream's code,
    the interpreter (environments are made from it)."""
    key = json.dumps({"row": inst.__dict__, "seed": seed, "code": registry.code_version("swebench"), "env": with_environment,
                      "python": envs.python_version() if with_environment else None}, sort_keys=True)
    return envs.root().parent / "builds" / f"{inst.instance_id}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


MEMO_MAX_BYTES = 256 << 20


def _memo_store(memo, create: bool):
    """The memos' directory once it is safe to trust (safe_fs.trusted_store), or UserError naming the path and owner: a
    memo holds an instance's hidden cases, so one planted by another user would decide labels."""
    try:
        return safe_fs.trusted_store(memo.parent, create=create)
    except safe_fs.UntrustedStore as exc:
        raise UserError(f"build memos: {exc}; set ${envs.ROOT_ENV} to a directory of yours") from None


def _remember(memo, replayed: Replayed) -> None:
    record = {"task": replayed.task.model_dump(mode="json"), "cases": [c.model_dump(mode="json") for c in replayed.cases],
              "dropped": replayed.dropped, "exclusion": replayed.exclusion, "memo": memo.name}
    store = _memo_store(memo, create=True)
    try:
        staging = f".{memo.stem}.{os.getpid()}.partial"
        safe_fs.write_below(store, [staging], json.dumps(record).encode())
        os.replace(os.path.join(store, staging), memo)
    except OSError:
        pass  # a cache only


def _recall(memo, inst: instances.Instance, clone, store) -> Replayed | None:
    try:
        memos = _memo_store(memo, create=False)  # not `store`: that is the suite's checkout store, used below
        info = safe_fs.trusted_entry(memos, memo.name)
        if info is None:
            return None
        record = json.loads(safe_fs.read_below(memos, [memo.name], MEMO_MAX_BYTES))  # never through a link
        if record.get("memo") != memo.name:  # not the memo its name (the key's digest) says
            return None
        task = Task.model_validate(record["task"])
        replayed = Replayed(task, [TestCase.model_validate(c) for c in record["cases"]], record["dropped"], record["exclusion"])
    except safe_fs.UntrustedStore as exc:  # planted by another user: refused, not read
        raise UserError(f"build memos: {exc}") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    # The checkout must be in this build's store too (it travels with the suite).
    if checkout.materialize(clone, inst.base_commit, store) != task.reference["checkout"]:
        return None
    return replayed


def select_tasks(seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
    """The source hook (`Source.select`): instances, clones and chosen ids from the build's paths."""
    return build(seed, paths.swebench_instances, paths.swebench_repos, paths.checkouts, paths.swebench_ids, say=say)
