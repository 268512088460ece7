"""Builds SWE-bench Verified code tasks: instances selected with a seed (47 from django, astropy and
matplotlib as in the paper, the paper's named instances first), each with its checkout, its gold
test outcomes, its cases, and C1 replay through the reference verifier.

Where tests run: in the no-Docker sandbox against a checkout exported from a local git clone
(`--swebench-repos DIR`, clones named `django__django` or `django`), with pytest from the harness's
environment (so the repository's own dependencies must be importable there). Instances whose tests
are not pytest node ids (django's runtests.py names) are skipped and listed (`not_pytest`): they need
SWE-bench's own environment images, which need a Docker engine and are not wired to the reference yet.

Exclusions: code S when SWE-bench's own grading does not resolve the gold patch (an empty or
unparsable report) or resolves an empty diff (a no-op passes); code G when the hardened reference
rejects the gold patch that upstream resolves.
"""

from __future__ import annotations

import random
from importlib import metadata

from verifierbench.errors import UserError
from verifierbench.references import each
from verifierbench.schema import CandidateFormat, Task, TaskType
from verifierbench.sources.swebench import cases, checkout, diffs, grading, instances
from verifierbench.sources.swebench.reference import decide, hidden_run
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
checkout and runs the named pytest tests (node ids such as tests/test_x.py::test_y); a test file you
want to run may be added by the same diff."""


def unavailable_reason() -> str:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception as e:  # noqa: BLE001 - any failure means no engine
        return (f"no Docker engine for SWE-bench's environment images ({type(e).__name__}) and no --swebench-repos DIR "
                "of local clones to test against")
    return ("a Docker engine is present, but running tests in SWE-bench's environment images is not supported yet; "
            "pass --swebench-repos DIR of local clones")


def make_task(inst: instances.Instance, digest: str, test_files: list[str], gold_outcomes: dict[str, str]) -> Task:
    return Task.create(
        source="swebench",
        source_id=inst.instance_id,
        type=TaskType.code,
        instruction=INSTRUCTION.format(repo=inst.repo, commit=inst.base_commit, problem=inst.problem_statement.strip()),
        environment={"repository": inst.repo, "base_commit": inst.base_commit, "checkout": "/repo", "checkout_digest": digest,
                     "run_public": "vgb_env.run_public(diff=str, tests=[pytest node ids]) -> {applied, exit_code, outcomes, log}"},
        candidate_format=CandidateFormat.diff,
        # `patch` (the gold) is not used to decide; the auditor builds its candidates from it, as the build does.
        reference={"checker": "swebench", "instance_id": inst.instance_id, "checkout": digest, "patch": inst.patch,
                   "test_patch": inst.test_patch,
                   "FAIL_TO_PASS": inst.fail_to_pass, "PASS_TO_PASS": inst.pass_to_pass, "test_files": test_files,
                   "gold_outcomes": gold_outcomes, "swebench": _version()},
        metadata={"repo": inst.repo, "version": inst.version},
    )


def _version() -> str:
    try:
        return metadata.version("swebench")
    except metadata.PackageNotFoundError:
        return "missing"


def construct(inst: instances.Instance, clone, seed: int, store=None) -> Replayed:
    digest = checkout.materialize(clone, inst.base_commit, store)
    test_files = [c.path for c in diffs.changes(inst.test_patch)]
    draft_reference = {"checkout": digest, "test_patch": inst.test_patch, "FAIL_TO_PASS": inst.fail_to_pass,
                       "PASS_TO_PASS": inst.pass_to_pass, "test_files": test_files}
    gold_run = hidden_run(draft_reference, inst.patch)
    gold_outcomes = {t: gold_run.outcomes.get(t, "missing") for t in inst.fail_to_pass + inst.pass_to_pass}
    task = make_task(inst, digest, test_files, gold_outcomes)
    name = f"swebench/{inst.instance_id}"

    def exclude(code: str, reason: str, **evidence) -> Replayed:
        return Replayed(task, exclusion={"task": name, "task_id": task.id, "code": code, "evidence": {"reason": reason, **evidence}})

    if not grading.upstream_resolved(gold_run, inst.fail_to_pass, inst.pass_to_pass):
        return exclude("S", "SWE-bench's own grading does not resolve the gold patch", gold_outcomes=gold_outcomes,
                       apply_error=gold_run.apply_error, log_tail=gold_run.log[-1500:])
    empty_run = hidden_run(draft_reference, "")
    if grading.upstream_resolved(empty_run, inst.fail_to_pass, inst.pass_to_pass):
        return exclude("S", "SWE-bench's own grading resolves an empty diff (a no-op passes)")
    accepted, why = decide(task.reference, cases.candidate(inst.patch), cached=True)  # replay reuses this run
    if not accepted:
        return exclude("G", f"the hardened reference rejects the gold patch: {why}")
    clone_checkout = checkout.checkout_dir(digest)
    drafts = cases.generate(cases.CodeInstance(inst.patch, inst.test_patch, inst.fail_to_pass, inst.pass_to_pass, test_files,
                                               clone_checkout), random.Random(f"{seed}:swebench:{inst.instance_id}"))
    # The test runs are the cost: run them in parallel once, then replay decides from the cache.
    each(True, lambda d: decide(task.reference, d.candidate, cached=True), drafts)
    return replay(task, drafts, decide=lambda reference, cand: decide(reference, cand, cached=True))


def build(seed: int, instances_path: str | None = None, repos: str | None = None, store=None) -> Selection:
    """`store`: where checkouts go (the build passes `<suite>/checkouts`)."""
    rows = instances.load(instances_path)
    repos_dir = instances.repos_dir(repos)
    if repos_dir is None:
        raise UserError(unavailable_reason())
    if not repos_dir.is_dir():
        raise UserError(f"--swebench-repos {repos_dir} is not a directory")
    paper = [i for i in rows if i.repo in PAPER_REPOS]
    pool = sorted(paper or rows, key=lambda i: i.instance_id)
    random.Random(f"{seed}:swebench").shuffle(pool)
    ordered = [i for i in pool if i.instance_id in FORCED] + [i for i in pool if i.instance_id not in FORCED]
    result = Selection(record={"seed": seed, "quota": QUOTA, "forced": list(FORCED), "instances": instances_path or "hub",
                               "paper_repos_only": bool(paper), "swebench": _version(), "no_clone": [], "not_pytest": [],
                               "walked": []})
    if not instances_path:
        result.record["hub_commit"] = instances.hub_commit()
    for inst in ordered:
        if len(result.retained) >= QUOTA:
            break
        clone = instances.local_clone(repos_dir, inst.repo)
        if clone is None:
            result.record["no_clone"].append(inst.instance_id)
            continue
        if not all("::" in t for t in inst.fail_to_pass + inst.pass_to_pass):
            # e.g. django's "test_x (module.Class)", run by tests/runtests.py: local mode runs pytest only
            result.record["not_pytest"].append(inst.instance_id)
            continue
        result.record["walked"].append(inst.instance_id)
        replayed = construct(inst, clone, seed, store)
        result.dropped += replayed.dropped
        if replayed.exclusion:
            result.excluded.append(replayed.exclusion)
        else:
            result.retained.append(replayed)
    if not result.retained and not result.excluded:
        if result.record["not_pytest"]:
            raise UserError(f"{len(result.record['not_pytest'])} instances have local clones, but their tests are not pytest "
                            "node ids (e.g. django's runtests.py): local mode runs pytest only; they need SWE-bench's Docker images")
        raise UserError(f"no instance has a local clone in {repos_dir} (looked for e.g. {ordered[0].repo.replace('/', '__') if ordered else '-'})")
    return result
