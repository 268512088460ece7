"""The persistent test-run cache (`sources/swebench/runcache.py`) on the offline fixture: a rebuild after an edit that
invalidates the per-instance memo runs no test, a runner edit reruns, screening's C2 always runs fresh (C1 and C6 read
the build's runs), damaged files are ignored and rewritten, an unsafe directory is refused, and the measured seconds
(the budget's evidence) come back unchanged. Sandboxed runs are counted at the executor."""

from __future__ import annotations

import gzip
import json
from collections import Counter
import os
import shutil

import pytest

from tests.conftest import _build
from verifierbench.core.errors import UserError
from verifierbench.screening import checks
from verifierbench.screening import reference as screening_reference
from verifierbench.screening.run import screen_task
from verifierbench.sources.swebench import build_memos, selection
from verifierbench.sources.swebench import grading, run_reuse, runcache, testrun
from verifierbench.sources.swebench import reference as swebench_reference
from verifierbench.sources.swebench.served_environment import environment_for
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")


class _Counting:
    """The real executor, counting the sandboxed runs it makes."""

    def __init__(self, real, runs: list) -> None:
        self.real, self.runs = real, runs
        self.level, self.limits = real.level, real.limits

    def run(self, job):
        # the gold's traced run (its reach map) is a run of its own
        self.runs.append(job.candidate["diffs"][0] + ("\n[traced]" if job.candidate.get("reach") else ""))
        return self.real.run(job)


@pytest.fixture()
def sandboxed_runs(monkeypatch) -> list[str]:
    """The diff of every sandboxed test run made from here on (none served from a cache), marked when traced."""
    runs: list[str] = []
    real = testrun._executor
    monkeypatch.setattr(testrun, "_executor", lambda own_environment: _Counting(real(own_environment), runs))
    swebench_reference._cached_run.cache_clear()  # a fresh process: nothing in memory
    return runs


@pytest.fixture()
def cache_root(traversable_tmp, monkeypatch, request):
    """A cache of this test's own (beside its own environments root), on."""
    root = traversable_tmp / f"runcache-{request.node.name}"
    shutil.rmtree(root, ignore_errors=True)
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(root / "envs"))
    monkeypatch.delenv(runcache.SWITCH, raising=False)
    monkeypatch.delenv(run_reuse.SWITCH, raising=False)
    run_reuse.forget()  # nothing reused from another test's runs in this process
    return root


def _build_once(swebench_fixture, root, name: str):
    instances, repos = swebench_fixture
    swebench_reference._cached_run.cache_clear()
    return selection.build(0, str(instances), str(repos), root / name)


def test_a_rebuild_after_an_edit_that_changes_the_memo_key_runs_no_test(swebench_fixture, cache_root, sandboxed_runs, monkeypatch):
    first = _build_once(swebench_fixture, cache_root, "checkouts-1")
    made = len(sandboxed_runs)
    assert made >= 5 and len(list((cache_root / "runs").glob("*.json.gz"))) == len(set(sandboxed_runs))
    # An edit anywhere under sources/swebench changes the memo's key (the whole source's code version), not a run's.
    version = build_memos.registry.code_version("swebench")
    monkeypatch.setattr(build_memos.registry, "code_version", lambda name: version + "-edited")
    said: list[str] = []
    swebench_reference._cached_run.cache_clear()
    again = selection.build(0, *map(str, swebench_fixture), cache_root / "checkouts-2", say=said.append)
    assert len(sandboxed_runs) == made, "a test ran again"
    assert not any("reusing the finished build" in line for line in said)  # the memo missed: the runs were reused
    assert [r.task for r in again.retained] == [r.task for r in first.retained]  # the budget too: the same seconds
    assert [r.cases for r in again.retained] == [r.cases for r in first.retained] and again.dropped == first.dropped
    assert any("run cache: " in line and " 0 run" in line for line in said), said
    # Turned off, every run is made again.
    monkeypatch.setenv(runcache.SWITCH, "0")
    monkeypatch.setattr(build_memos.registry, "code_version", lambda name: version + "-edited-twice")
    _build_once(swebench_fixture, cache_root, "checkouts-3")
    assert len(sandboxed_runs) - made >= made  # (the gold's and the empty diff's runs twice: the draft's and the task's)


@pytest.fixture(scope="module")
def fixture_build(swebench_fixture, traversable_tmp):
    """The fixture instance built once for the tests that need only its task, its gold diff and a filled cache."""
    root = traversable_tmp / f"runcache-module-{os.getpid()}"
    shutil.rmtree(root, ignore_errors=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VERIFIERBENCH_ENVS", str(root / "envs"))
        for variable in (runcache.DIRECTORY_ENV, runcache.SWITCH, run_reuse.SWITCH):
            patch.delenv(variable, raising=False)
        (retained,) = _build_once(swebench_fixture, root, "checkouts").retained
    gold = next(c for c in retained.cases if c.category.value == "gold")
    return root, retained.task, gold.candidate["diff"]


@pytest.fixture()
def task_and_gold(fixture_build, cache_root, monkeypatch):
    """The module's build, with this test's own copy of its run cache (`cache_root / "runs"`, the same modes) beside
    the build's environment, which the tests only read."""
    root, task, gold = fixture_build
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(root / "envs"))
    monkeypatch.setenv(runcache.DIRECTORY_ENV, str(cache_root / "runs"))
    shutil.copytree(root / "runs", cache_root / "runs")
    swebench_reference._cached_run.cache_clear()
    return task, gold


def test_a_runner_edit_reruns_and_a_grading_change_regrades_from_the_cache(task_and_gold, cache_root, sandboxed_runs,
                                                                             monkeypatch, traversable_tmp):
    task, gold = task_and_gold
    shutil.rmtree(cache_root / "runs")
    del sandboxed_runs[:]
    made = swebench_reference.hidden_run(task.reference, gold, reuse=True)  # kept
    fresh = swebench_reference.hidden_run(task.reference, gold)  # no reuse: always a run
    cached = swebench_reference.hidden_run(task.reference, gold, reuse=True)
    assert len(sandboxed_runs) == 2
    assert cached.outcomes == fresh.outcomes == made.outcomes and cached.exit_code == fresh.exit_code == 0
    # The budget's evidence: the run's measured seconds, stored, not the time it took to read them.
    assert cached.seconds == made.seconds > 0
    # A change to the parsing or grading reads the same raw run again: nothing reruns.
    parse = testrun.TestRun.from_json.__func__
    monkeypatch.setattr(testrun.TestRun, "from_json", classmethod(lambda cls, data: testrun.replace(parse(cls, data), outcomes={})))
    assert swebench_reference.decide(task.reference, {"diff": gold}, cached=True) == (
        False, "empty test report (nothing ran, or the process exited early)")
    assert len(sandboxed_runs) == 2
    # A change to a runner file changes every run's key.
    copy = traversable_tmp / f"runner-copy-{os.getpid()}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(runcache.RUNNER_DIR, copy)
    with open(copy / "vgb_pytest_report.py", "a") as handle:
        handle.write("# edited\n")
    monkeypatch.setattr(runcache, "RUNNER_DIR", copy)
    runcache.runner_digest.cache_clear()
    try:
        swebench_reference._cached_run.cache_clear()
        swebench_reference.hidden_run(task.reference, gold, reuse=True)
        assert len(sandboxed_runs) == 3
    finally:
        runcache.runner_digest.cache_clear()


def test_a_damaged_file_is_ignored_and_rewritten(task_and_gold, cache_root, sandboxed_runs):
    task, gold = task_and_gold
    paths = {p.name: p.read_bytes() for p in (cache_root / "runs").glob("*.json.gz")}
    del sandboxed_runs[:]
    swebench_reference.hidden_run(task.reference, gold, reuse=True)
    assert sandboxed_runs == []
    for damage in (lambda data: data[: len(data) // 2], lambda data: b"not gzip", lambda data: gzip.compress(b'{"format": 1', mtime=0)):
        for path in (cache_root / "runs").glob("*.json.gz"):
            path.write_bytes(damage(paths[path.name]))
        before = len(sandboxed_runs)
        run = swebench_reference.hidden_run(task.reference, gold, reuse=True)
        assert len(sandboxed_runs) == before + 1 and run.applied and run.outcomes
        rewritten = [p for p in (cache_root / "runs").glob("*.json.gz") if p.read_bytes() != damage(paths[p.name])]
        assert len(rewritten) == 1 and gzip.decompress(rewritten[0].read_bytes())  # whole again
        swebench_reference.hidden_run(task.reference, gold, reuse=True)
        assert len(sandboxed_runs) == before + 1  # and read back
    assert not [p for p in (cache_root / "runs").iterdir() if p.name.endswith(".partial")]  # no staging file left
    # A file others can write is not read (and is replaced by the fresh run).
    (path,) = rewritten
    path.chmod(0o666)
    swebench_reference.hidden_run(task.reference, gold, reuse=True)
    assert len(sandboxed_runs) == before + 2 and path.stat().st_mode & 0o777 == 0o600


def test_an_unsafe_cache_directory_is_refused(task_and_gold, cache_root, sandboxed_runs, traversable_tmp):
    task, gold = task_and_gold
    runs = cache_root / "runs"
    assert runs.stat().st_mode & 0o777 == 0o700
    runs.chmod(0o777)  # writable by others: anyone could plant a passing run
    with pytest.raises(UserError, match="refused"):
        swebench_reference.hidden_run(task.reference, gold, reuse=True)
    runs.chmod(0o700)
    elsewhere = cache_root / "elsewhere"
    runs.rename(elsewhere)
    runs.symlink_to(elsewhere)  # a link, even to a directory of ours
    with pytest.raises(UserError, match="refused"):
        swebench_reference.hidden_run(task.reference, gold, reuse=True)
    runs.unlink()
    elsewhere.rename(runs)
    if os.geteuid() == 0:
        os.chown(runs, 65534, 65534)  # another user's
        with pytest.raises(UserError, match="refused"):
            swebench_reference.hidden_run(task.reference, gold, reuse=True)
        os.chown(runs, 0, 0)
    del sandboxed_runs[:]
    swebench_reference.hidden_run(task.reference, gold, reuse=True)
    assert sandboxed_runs == []  # repaired by the user: used again


def test_run_public_runs_are_kept_apart_and_timed_out_runs_are_never_kept(task_and_gold, cache_root, sandboxed_runs):
    task, gold = task_and_gold
    kept = set((cache_root / "runs").iterdir())
    del sandboxed_runs[:]
    served = environment_for(task.reference)
    tests = task.reference["FAIL_TO_PASS"][:1]
    first, second = served.run_request({"diff": gold, "tests": tests}), served.run_request({"diff": gold, "tests": tests})
    # run_public's runs are reused (run_reuse.py), under keys of their own: the reference's records are untouched
    assert len(sandboxed_runs) == 1 and first == second
    (added,) = set((cache_root / "runs").iterdir()) - kept
    assert json.loads(gzip.decompress(added.read_bytes()))["about"]["purpose"] == run_reuse.PURPOSE
    kept.add(added)
    sleepy = gold + (
        "diff --git a/tests/test_zz_sleep.py b/tests/test_zz_sleep.py\nnew file mode 100644\n--- /dev/null\n"
        "+++ b/tests/test_zz_sleep.py\n@@ -0,0 +1,2 @@\n+import time\n+def test_sleep(): time.sleep(30)\n")
    checkout = swebench_reference.checkout_dir(task.reference["checkout"])
    run = testrun.run_tests(checkout, [sleepy], ["tests/test_zz_sleep.py"], timeout_s=2, cache=True)
    assert run.exit_code is None and set((cache_root / "runs").iterdir()) == kept  # cut by its limit: not kept


def test_screening_c2_always_runs_fresh_while_c1_and_c6_read_the_builds_runs(swebench_fixture, cache_root, sandboxed_runs):
    instances, repos = swebench_fixture
    suite_dir = _build(cache_root / "suite", "--source", "swebench", "--swebench-instances", str(instances),
                       "--swebench-repos", str(repos))  # a subprocess, as users build: it inherits the cache's root
    suite = load_suite(suite_dir)
    (task,) = suite.tasks.values()
    cases = suite.cases_by_task[task.id]
    running = [c for c in cases if not grading.static_problem(c.candidate["diff"], task.reference["test_files"])]
    assert len(running) >= 5
    record = screen_task(task, suite)
    assert record["checks"]["C1"] and record["checks"]["C2"] and record["checks"]["C6"], record["evidence"]
    # Two fresh repeats of every case that reaches the tests; C1 and C6 ran none of their own (C6's "diff not
    # inspected" mutant alone runs a diff the reference rejects before any test, which the build never ran).
    made, expected = Counter(sandboxed_runs), Counter(2 * [c.candidate["diff"] for c in running])
    assert made - expected == Counter({d: n for d, n in (made - expected).items() if d not in expected})
    assert expected - made == Counter()
    assert all(grading.static_problem(d, task.reference["test_files"]) for d in made - expected)
    # C1's decisions alone, from a fresh process: none; C2's repeat: every one again.
    del sandboxed_runs[:]
    swebench_reference._cached_run.cache_clear()
    decisions = checks.decide_all(task, cases, screening_reference.decide_reusing_runs)
    assert sandboxed_runs == []
    checks.c2_repeat(task, cases, decisions, screening_reference.decide)
    assert len(sandboxed_runs) == 2 * len(running)
