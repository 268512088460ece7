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
rejects the gold patch that upstream resolves.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from importlib import metadata
from typing import Callable

from verifierbench.errors import UserError
from verifierbench.references import each
from verifierbench.schema import CandidateFormat, Task, TaskType, TestCase
from verifierbench.sources import registry
from verifierbench.sources.base import SourcePaths
from verifierbench.sources.swebench import budget, cases, checkout, diffs, envs, grading, instances
from verifierbench.sources.swebench.reference import cached_run, candidate_diff, decide, hidden_run
from verifierbench.sources.toolcall.replay import Replayed, replay
from verifierbench.sources.toolcall.select import Selection

PAPER_REPOS = ("django/django", "astropy/astropy", "matplotlib/matplotlib")
QUOTA = 47
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
        envs.ensure(envs.spec_for(inst.repo, inst.version, clone_checkout), clone_checkout, say)
    gold_run = hidden_run(draft_reference, inst.patch)
    gold_seconds = gold_run.seconds
    gold_outcomes = {t: gold_run.outcomes.get(t, "missing") for t in inst.fail_to_pass + inst.pass_to_pass}
    draft = make_task(inst, digest, test_files, gold_outcomes, runner, environment, gold_run.exit_code, budget.BUILD_TEST_TIMEOUT_S)
    name = f"swebench/{inst.instance_id}"

    def exclude(code: str, reason: str, **evidence) -> Replayed:
        return Replayed(draft, exclusion={"task": name, "task_id": draft.id, "code": code, "evidence": {"reason": reason, **evidence}})

    if not grading.upstream_resolved(gold_run, inst.fail_to_pass, inst.pass_to_pass, runner):
        failing = {t: o for t, o in gold_outcomes.items() if o != "passed"}
        return exclude("S", "SWE-bench's own grading does not resolve the gold patch", not_passing=dict(list(failing.items())[:20]),
                       gold_seconds=round(gold_seconds),
                       not_passing_count=len(failing), problem=gold_run.problem, apply_error=gold_run.apply_error,
                       log_tail=gold_run.log[-1500:])
    empty_run = hidden_run(draft_reference, "")
    if grading.upstream_resolved(empty_run, inst.fail_to_pass, inst.pass_to_pass, runner):
        return exclude("S", "SWE-bench's own grading resolves an empty diff (a no-op passes)")
    accepted, why = decide(draft.reference, cases.candidate(inst.patch), cached=True)  # replay reuses this run
    if not accepted:
        return exclude("G", f"the hardened reference rejects the gold patch: {why}")
    drafts = cases.generate(cases.CodeInstance(inst.patch, inst.test_patch, inst.fail_to_pass, inst.pass_to_pass, test_files,
                                               clone_checkout, runner), random.Random(f"{seed}:swebench:{inst.instance_id}"))
    # The test runs are the cost: run them in parallel once, timed, then replay decides from the cache.
    seconds = each(True, lambda d: _run_seconds(draft.reference, d.candidate), drafts)
    slowest, category = max([(gold_seconds, "gold")] + [(s, d.category) for s, d in zip(seconds, drafts)])
    case_timeout_s = budget.case_timeout_for(slowest)
    say(f"build: swebench: {inst.instance_id}: gold test run {gold_seconds:.0f} s, slowest case run {slowest:.0f} s "
        f"({category}), case budget {case_timeout_s:g} s")
    task = make_task(inst, digest, test_files, gold_outcomes, runner, environment, gold_run.exit_code, case_timeout_s)
    # Every run above finished within the build's limit and under the budget (the budget is at least their slowest):
    # the same run decides under the task's own budget, so replay reads it from the cache.
    return replay(task, drafts, decide=lambda reference, cand: decide({**reference, "case_timeout_s": budget.BUILD_TEST_TIMEOUT_S},
                                                                       cand, cached=True))


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
    chosen = instances.selected_ids(ids)
    ordered, paper_only = _ordered(rows, seed, chosen)
    quota = len(ordered) if chosen else QUOTA
    result = Selection(record={"seed": seed, "quota": quota, "forced": list(FORCED), "ids": chosen,
                               "instances": instances_path or instances.default_instances() or f"hub@{instances.revision()}",
                               "paper_repos_only": paper_only, "swebench": _version(), "python": envs.python_version(),
                               "no_clone": [], "not_pytest": [], "bad_rows": bad_rows, "walked": []})
    if not (instances_path or instances.default_instances()):
        result.record["hub_commit"] = instances.hub_commit()
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
                f"{exclusion['evidence']['reason'][:200]}")
        elif not isinstance(replayed, dict):
            result.retained.append(replayed)
            say(f"build: swebench: {inst.instance_id} retained, {len(replayed.cases)} cases")
    if not result.retained and not result.excluded:
        if result.record["not_pytest"]:
            raise UserError(f"{len(result.record['not_pytest'])} instances of repositories without a SWE-bench environment "
                            "specification name tests that are not pytest node ids, which the harness's own pytest cannot run")
        raise UserError(f"no instance has a local clone in {repos_dir} (looked for e.g. {ordered[0].repo.replace('/', '__') if ordered else '-'})")
    return result


def _construct_or_exclude(inst: instances.Instance, clone, seed: int, store, say) -> Replayed | dict:
    """The replayed instance, or the exclusion record of one that cannot be built here (no task was made); the build
    goes on. Finished instances are remembered on disk (`done`), so an interrupted build resumes where it stopped."""
    def excluded(code: str, reason: str) -> dict:
        return {"task": f"swebench/{inst.instance_id}", "task_id": None, "code": code, "evidence": {"reason": reason}}
    with_environment = envs.has_spec(inst.repo)
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


def _memo_path(inst: instances.Instance, seed: int, with_environment: bool):
    """Keyed on everything the result depends on: the row, the seed, the builder's and upstream's code,
    the interpreter (environments are made from it)."""
    key = json.dumps({"row": inst.__dict__, "seed": seed, "code": registry.code_version("swebench"), "env": with_environment,
                      "python": envs.python_version() if with_environment else None}, sort_keys=True)
    return envs.root().parent / "builds" / f"{inst.instance_id}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def _remember(memo, replayed: Replayed) -> None:
    record = {"task": replayed.task.model_dump(mode="json"), "cases": [c.model_dump(mode="json") for c in replayed.cases],
              "dropped": replayed.dropped, "exclusion": replayed.exclusion}
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        staging = memo.with_suffix(".partial")
        staging.write_text(json.dumps(record))
        os.replace(staging, memo)
    except OSError:
        pass  # a cache only


def _recall(memo, inst: instances.Instance, clone, store) -> Replayed | None:
    try:
        record = json.loads(memo.read_text())
        task = Task.model_validate(record["task"])
        replayed = Replayed(task, [TestCase.model_validate(c) for c in record["cases"]], record["dropped"], record["exclusion"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    # The checkout must be in this build's store too (it travels with the suite).
    if checkout.materialize(clone, inst.base_commit, store) != task.reference["checkout"]:
        return None
    return replayed


def select_tasks(seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
    """The source hook (`Source.select`): instances, clones and chosen ids from the build's paths."""
    return build(seed, paths.swebench_instances, paths.swebench_repos, paths.checkouts, paths.swebench_ids, say=say)
