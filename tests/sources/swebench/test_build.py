"""Building code tasks from the offline SWE-bench-format fixture: the suite holds every category with
labels the reference agrees with, records what C1 dropped, is deterministic, and says clearly when
its inputs are missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import _build
from verifierbench.core.errors import UserError
from verifierbench.sources.references import decide
from verifierbench.sources.swebench import instance_build, selection
from verifierbench.sources.swebench import instances as swebench_instances
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")


def test_suite_has_every_category_and_the_reference_agrees(code_suite):
    suite = load_suite(code_suite)
    (task,) = suite.tasks.values()
    assert task.type.value == "code" and task.candidate_format.value == "diff" and task.source_id == "vgb-fixtures__httpdate-1"
    assert "/repo" in task.instruction and "FAIL_TO_PASS" not in task.instruction  # hidden tests stay hidden
    cases = suite.cases_by_task[task.id]
    assert {c.category.value for c in cases} == {"gold", "cosmetic", "overstrict_trap", "base", "partial", "near_miss",
                                                "regression", "hack"}
    assert len({c.provenance["operator"] for c in cases if c.category.value == "hack"}) >= 6
    # the gold's traced run under pytest found a function only the PASS_TO_PASS tests reach
    assert "breaks_function_previously_passing_tests_reach" in {c.provenance["operator"] for c in cases if c.category.value == "regression"}
    for case in cases:  # C1 replay, again, on the built suite
        assert decide(task.reference, case.candidate)[0] is (case.label.value == "PASS"), case.provenance
    # the gold run's outcomes are recorded for the grading (a skip in gold would stay a skip)
    assert set(task.reference["gold_outcomes"].values()) == {"passed"}


def test_a_fresh_decision_stops_at_the_first_failure_and_decides_as_the_full_run(code_suite):
    """Fresh decisions (screening's C2 repeats, exported references, the audit) stop the tests at their first failure
    when that decides exactly as the full run (`reference.failfast_decides`); the build's and C6's runs are full."""
    from verifierbench.sources.swebench import grading
    from verifierbench.sources.swebench import reference as code_reference

    suite = load_suite(code_suite)
    (task,) = suite.tasks.values()
    reference = task.reference
    assert code_reference.failfast_decides(reference) and not code_reference.failfast_decides(reference, frozenset({"exit_code"}))
    assert not code_reference.failfast_decides({**reference, "gold_exit_code": 1})
    stopped = []
    for case in suite.cases_by_task[task.id]:
        full, fresh = code_reference.decide(reference, case.candidate, cached=True), code_reference.decide(reference, case.candidate)
        assert full[0] is fresh[0] is (case.label.value == "PASS"), (case.provenance, full, fresh)
        diff = case.candidate["diff"]
        if not full[0] and grading.static_problem(diff, reference["test_files"]) is None:
            run, whole = code_reference.hidden_run(reference, diff, failfast=True), code_reference.cached_run(reference, diff)
            assert run.failfast and not whole.failfast
            if run.applied and len(run.outcomes) < len(whole.outcomes):
                stopped.append(case.provenance["operator"])
    assert "empty_diff" in stopped, stopped  # it does stop early: the FAIL_TO_PASS tests run first


def test_c1_drops_a_draft_the_reference_contradicts_with_evidence(code_suite):
    """A near-miss mutant that changes nothing the tests can see (here: a comment) is dropped, not mislabeled."""
    from verifierbench.sources.swebench.cases import candidate
    from verifierbench.construction.drafts import Draft
    from verifierbench.construction.replay import replay

    suite = load_suite(code_suite)
    (task,) = suite.tasks.values()
    by_category = {c.category.value: c.candidate["diff"] for c in suite.cases_by_task[task.id]}
    gold = by_category["gold"]
    equivalent = gold.replace("+    century = current - current % 100\n", "+    century = current - current % 100  # same\n")
    assert equivalent != gold
    drafts = [Draft("gold", candidate(gold), "gold"), Draft("near_miss", candidate(equivalent), "mutated_fix"),
              Draft("base", candidate(""), "empty_diff"), Draft("hack", candidate(by_category["hack"]), "a hack")]
    replayed = replay(task, drafts, decide=decide)
    assert replayed.exclusion is None and [c.category.value for c in replayed.cases] == ["gold", "base", "hack"]
    (dropped,) = replayed.dropped
    assert (dropped["category"], dropped["label"], dropped["reference"]) == ("near_miss", "FAIL", "PASS")
    assert "every FAIL_TO_PASS and PASS_TO_PASS test passes" in dropped["reason"]


def test_build_is_deterministic(code_suite, swebench_fixture, traversable_tmp):
    instances, repos = swebench_fixture
    again = _build(traversable_tmp / "code-suite-again", "--source", "swebench", "--swebench-instances", str(instances),
                   "--swebench-repos", str(repos))
    for name in ("manifest.json", "tasks.jsonl", "cases.jsonl"):
        assert (again / name).read_text() == (code_suite / name).read_text(), name
    assert sorted(p.name for p in (again / "checkouts").iterdir()) == sorted(p.name for p in (code_suite / "checkouts").iterdir())


def test_missing_inputs_are_named(swebench_fixture, traversable_tmp, monkeypatch):
    instances, repos = swebench_fixture
    monkeypatch.setattr(swebench_instances, "SHARED_COPY", traversable_tmp / "no-shared-copy")
    # The message depends on whether an engine answers; the Docker worker's session fixture may have set DOCKER_HOST.
    monkeypatch.setenv("DOCKER_HOST", f"unix://{traversable_tmp}/no-engine.sock")
    with pytest.raises(UserError, match="no Docker engine .* no --swebench-repos DIR"):
        selection.build(0, str(instances), None)
    with pytest.raises(UserError, match="does not exist"):
        selection.build(0, str(traversable_tmp / "nope.jsonl"), str(repos))
    empty = traversable_tmp / "no-clones"
    empty.mkdir(exist_ok=True)
    with pytest.raises(UserError, match="no instance has a local clone"):
        selection.build(0, str(instances), str(empty))
    django_style = traversable_tmp / "django-style.jsonl"
    row = json.loads(instances.read_text())
    django_style.write_text(json.dumps({**row, "FAIL_TO_PASS": json.dumps(["test_parse (utils_tests.test_http.HttpDateTests)"])}) + "\n")
    with pytest.raises(UserError, match="not pytest node ids"):
        selection.build(0, str(django_style), str(repos))
    broken = traversable_tmp / "broken.jsonl"
    broken.write_text(json.dumps({"instance_id": "x", "repo": "a/b"}) + "\n")
    with pytest.raises(UserError, match="lacks base_commit"):
        selection.build(0, str(broken), str(repos))
    # A malformed row among good ones is named in one line and skipped; the rest is built.
    mixed = traversable_tmp / "mixed.jsonl"
    mixed.write_text(broken.read_text() + instances.read_text())
    said: list[str] = []
    built = selection.build(0, str(mixed), str(repos), traversable_tmp / "mixed-checkouts", say=said.append)
    assert len(built.retained) == 1 and built.record["bad_rows"] == ["%s: SWE-bench row x lacks base_commit, patch, test_patch, problem_statement, FAIL_TO_PASS, PASS_TO_PASS" % mixed]
    assert any(line.startswith("build: swebench: skipped a row:") for line in said)


def test_suite_moves_with_its_checkouts(code_suite, traversable_tmp):
    """The suite directory holds the checkouts; a copied suite finds its own."""
    moved = traversable_tmp / "moved-suite"
    shutil.copytree(code_suite, moved)
    script = ("import sys; from verifierbench.suite.store import load_suite; from verifierbench.sources.swebench.checkout import checkout_dir; "
              "(t,) = load_suite(sys.argv[1]).tasks.values(); print(checkout_dir(t.reference['checkout']))")
    found = subprocess.run([sys.executable, "-c", script, str(moved)], capture_output=True, text=True, check=True,
                           env={**os.environ, "VERIFIERBENCH_CHECKOUTS": ""}).stdout.strip()
    assert found.startswith(str(moved / "checkouts"))


def test_an_interrupted_build_resumes_from_finished_instances(swebench_fixture, traversable_tmp, monkeypatch):
    """Finished instances are remembered on disk: a second build reuses them without running a test."""
    instances, repos = swebench_fixture
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(traversable_tmp / "resume" / "envs"))
    first = selection.build(0, str(instances), str(repos), traversable_tmp / "resume" / "checkouts-1")
    monkeypatch.setattr(instance_build, "construct", lambda *a, **k: pytest.fail("the finished instance was built again"))
    said: list[str] = []
    again = selection.build(0, str(instances), str(repos), traversable_tmp / "resume" / "checkouts-2", say=said.append)
    assert [r.task for r in again.retained] == [r.task for r in first.retained]
    assert [r.cases for r in again.retained] == [r.cases for r in first.retained] and again.dropped == first.dropped
    assert any("reusing the finished build" in line for line in said)
    assert (traversable_tmp / "resume" / "checkouts-2" / first.retained[0].task.reference["checkout"]).is_dir()
    # A corrupt record is not trusted: the instance is built again.
    (memo,) = (traversable_tmp / "resume" / "builds").glob("*.json")
    memo.write_text("{not json")
    monkeypatch.undo()
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(traversable_tmp / "resume" / "envs"))
    rebuilt = selection.build(0, str(instances), str(repos), traversable_tmp / "resume" / "checkouts-3")
    assert [r.cases for r in rebuilt.retained] == [r.cases for r in first.retained]


def test_an_exclusion_for_an_environment_not_made_is_not_remembered(swebench_fixture, traversable_tmp, monkeypatch):
    """A V exclusion depends on this machine (debootstrap missing, say), which the memo's key does not see: once the
    user installs what its reason names, the next build tries again instead of replaying the exclusion."""
    instances, repos = swebench_fixture
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(traversable_tmp / "no-memo" / "envs"))
    real, built = instance_build.construct, []

    def missing_tool(inst, *args, **kwargs):
        built.append(inst.instance_id)
        replayed = real(inst, *args, **kwargs)
        return instance_build._excluded(inst, replayed.task, "V", "debootstrap is not installed")

    monkeypatch.setattr(instance_build, "construct", missing_tool)
    first = selection.build(0, str(instances), str(repos), traversable_tmp / "no-memo" / "checkouts-1")
    assert [e["code"] for e in first.excluded] == ["V"] * len(built) and built
    assert not list((traversable_tmp / "no-memo" / "builds").glob("*.json"))
    monkeypatch.setattr(instance_build, "construct", real)  # the tool installed
    again = selection.build(0, str(instances), str(repos), traversable_tmp / "no-memo" / "checkouts-2")
    assert len(again.retained) == len(built) and not again.excluded


def _timed_runs(monkeypatch, wait_s: float) -> list[tuple[str, float, float]]:
    """Wraps the build's hidden test runs: (which diff, start, end) of each, in the order they end. A run, once done,
    ends only when a run of the other kind (the empty diff's, or another) has started, or after `wait_s`: runs the
    build starts together then overlap whatever the load, and runs made one after the other do not."""
    import threading
    import time

    real = instance_build.hidden_run
    runs: list[tuple[str, float, float]] = []
    lock = threading.Lock()
    started = {"empty": threading.Event(), "other": threading.Event()}

    def timed(reference, diff, **kwargs):
        kind = "empty" if diff == "" else "other"
        began = time.monotonic()
        started[kind].set()
        run = real(reference, diff, **kwargs)
        started["other" if kind == "empty" else "empty"].wait(wait_s)
        with lock:
            runs.append((kind, began, time.monotonic()))
        return run

    monkeypatch.setattr(instance_build, "hidden_run", timed)
    return runs


@pytest.mark.parametrize("overlap", [True, False])
def test_the_empty_diffs_run_runs_beside_the_golds(swebench_fixture, traversable_tmp, monkeypatch, overlap):
    """The empty diff's hidden run needs nothing from the gold's: with OVERLAP_RUNS the two run at once (the build's
    cost on 2 cores), without it one after the other; the task and its cases are the same either way."""
    instances, repos = swebench_fixture
    inst = swebench_instances.load(str(instances))[0]
    clone = swebench_instances.local_clone(repos, inst.repo)
    monkeypatch.setattr(instance_build, "OVERLAP_RUNS", overlap)
    # Overlapping, the other run starts within the wait (which ends then); one after the other, the gold's run waits
    # out a short wait for an empty run that starts only after it.
    runs = _timed_runs(monkeypatch, wait_s=300 if overlap else 2)
    said: list[str] = []
    replayed = instance_build.construct(inst, clone, 0, traversable_tmp / f"overlap-{overlap}", with_environment=False,
                                        say=said.append)
    assert replayed.exclusion is None and replayed.cases
    empty = next(r for r in runs if r[0] == "empty")
    # The gold's run is the first other one to start (the cases' runs come after both).
    gold = min((r for r in runs if r[0] == "other"), key=lambda r: r[1])
    overlapped = empty[1] < gold[2] and gold[1] < empty[2]
    assert overlapped is overlap
    profile = next(line for line in said if ": profile " in line)
    assert all(f"{stage} " in profile for stage in ("checkout", "gold", "empty", "case_runs", "C1")) and "case runs: sum" in profile


def test_a_django_instance_whose_test_patch_touches_no_test_module_is_excluded_w(monkeypatch, traversable_tmp):
    """django-10097's test patch edits only two url lists (.txt): SWE-bench's command then runs django's whole suite
    for the gold and each case. It is excluded with code W and the reason, before any checkout, environment or run."""
    import dataclasses

    rows = swebench_instances.load(None) if swebench_instances.default_instances() else []
    real = next((r for r in rows if r.instance_id == "django__django-10097"), None)
    data_only = ("diff --git a/tests/validators/valid_urls.txt b/tests/validators/valid_urls.txt\n"
                 "--- a/tests/validators/valid_urls.txt\n+++ b/tests/validators/valid_urls.txt\n@@ -1 +1,2 @@\n"
                 " http://www.djangoproject.com/\n+http://example.com/\n")
    inst = real or swebench_instances.Instance("django__django-10097", "django/django", "0" * 40, "", data_only, "",
                                               ["test_validators (validators.tests.TestValidators)"], [])
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(traversable_tmp / "w" / "envs"))
    monkeypatch.setattr(instance_build, "construct", lambda *a, **k: pytest.fail("built an instance of the whole suite"))
    excluded = instance_build.construct_or_exclude(inst, traversable_tmp, 0, None, say=lambda line: None)
    assert excluded["code"] == "W" and "whole test suite" in excluded["evidence"]["reason"]
    assert "valid_urls.txt" in excluded["evidence"]["reason"]
    # A test patch that touches a test module is built as before.
    touching = dataclasses.replace(inst, test_patch=data_only.replace("validators/valid_urls.txt", "validators/tests.py"))
    assert instance_build.whole_suite_reason(touching) is None
