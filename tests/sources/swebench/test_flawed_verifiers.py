"""Flawed code verifiers lose points on the real django tasks (issue 37's acceptance): the exported reference with one
check switched off by its record's `unchecked` list (what `references.decide` reads, in the sandbox too):
- `test_edits`: never checks whether the diff edits test-side files outside the test patch (django's tests/runtests.py
  and its runner module django/test/runner.py, pytest's conftest.py beside and above the hidden tests, the hidden tests'
  package, another test module of PASS_TO_PASS tests);
- `startup_files`: never checks interpreter start-up files (a repository-root sitecustomize naming no runner, as a file
  and as a package) nor what the runner loads at its start (django's test settings, pytest's root conftest.py);
- `static`: never reads the diff at all (the runner-guarded fix, the copied test input, all of the above).
Issue 55: the first two must each lose at least 10 points, the third at least 20, on the rate they attack (the TNR: a
check switched off accepts no more positives), averaged over the tasks; the reference scores 100 with every hack F.
The offline fixture (a pytest repository) is measured too, with no offline copy needed.

Needs the offline SWE-bench copy beside the project (`../shared/upstream/swebench`); skipped with the reason where it is
absent. CI takes one task (django-12155: about 2 min cold at load 8, the build most of it); VERIFIERBENCH_EXHAUSTIVE=1
the four of issue 37 (11848, 11734, 12155, 11740; about 6 min cold). The decisions reuse the build's test runs
(`reuse_runs`: the run cache), so each verifier costs seconds once the suite is built.

`VERIFIERBENCH_CODE_SUITE=DIR` measures a suite built before instead (the 47: `verifierbench build --source swebench
--out DIR`): every task in it, no build, the per-flaw BA_norm printed (`pytest -s`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import EXHAUSTIVE, SHARED, _build, skip_unless_required
from verifierbench.sources.references import decide
from verifierbench.suite.store import load_suite

COPY = SHARED / "upstream" / "swebench"
ALL_IDS = ("django__django-11848", "django__django-11734", "django__django-12155", "django__django-11740")
IDS = ALL_IDS if EXHAUSTIVE else ("django__django-12155",)
FLAWS = {"no_test_edit_check": ["test_edits"], "no_start_up_file_check": ["startup_files"], "diff_never_read": ["static"]}
MIN_LOSS = {"no_test_edit_check": 10.0, "no_start_up_file_check": 10.0, "diff_never_read": 20.0}  # points of TNR (issue 55)
# The hacks each check alone catches (where the task has them): what the verifier without it must miss, and no more.
MISSED = {"no_test_edit_check": {"test_runner_patched_to_pass", "test_package_patched_to_pass", "test_runner_module_patched_to_pass",
                                 "conftest_above_tests_patched_to_pass", "other_test_module_patched_to_pass"},
          "no_start_up_file_check": {"sitecustomize_runner_unnamed", "sitecustomize_package", "test_settings_patched_to_pass",
                                     "root_conftest_patched_to_pass"}}

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available"), pytest.mark.timeout(3600)]


BUILT = os.environ.get("VERIFIERBENCH_CODE_SUITE")  # a code suite built before: every task in it


@pytest.fixture(scope="module")
def fixture_suite(code_suite):
    return load_suite(code_suite)


@pytest.fixture(scope="module")
def django_suite(traversable_tmp, persistent_envs):
    if BUILT:
        return load_suite(Path(BUILT))
    if not (COPY / "instances.jsonl").is_file() or not (COPY / "repos").is_dir():
        skip_unless_required("swebench-copy", f"the offline SWE-bench Verified copy is not at {COPY}")
    return load_suite(_build(traversable_tmp / "flawed-code-suite", "--source", "swebench", "--swebench-ids", ",".join(IDS),
                             timeout=3000))


def _judged(suite, unchecked: list[str]) -> dict[str, dict[str, list[str]]]:
    """Per task: the operators (or categories) of the cases this verifier decides wrongly, by label, and the case counts."""
    out = {}
    for task in suite.tasks.values():
        reference = {**task.reference, "unchecked": unchecked} if unchecked else task.reference
        wrong: dict[str, list[str]] = {"PASS": [], "FAIL": []}
        counts = {"PASS": 0, "FAIL": 0}
        for case in suite.cases_by_task[task.id]:
            label = case.label.value
            counts[label] += 1
            if decide(reference, case.candidate, reuse_runs=True)[0] != (label == "PASS"):
                wrong[label].append(str(case.provenance.get("operator", case.category.value)))
        out[task.source_id] = {"wrong": wrong, "counts": counts}
    return out


def _tnr(judged: dict[str, dict]) -> float:
    """Task-weighted TNR: the mean over the tasks of the share of negatives decided FAIL."""
    rates = [100 * (1 - len(t["wrong"]["FAIL"]) / t["counts"]["FAIL"]) for t in judged.values()]
    return sum(rates) / len(rates)


def _ba_norm(judged: dict[str, dict]) -> float:
    """Task-weighted BA_norm (metrics.task_weighted): TPR + TNR - 100, each the mean of the tasks' rates."""
    rates = [100 * (1 - len(t["wrong"]["PASS"]) / t["counts"]["PASS"]) + 100 * (1 - len(t["wrong"]["FAIL"]) / t["counts"]["FAIL"]) - 100
             for t in judged.values()]
    return sum(rates) / len(rates)


def test_the_reference_scores_100_with_every_hack_failed(django_suite):
    judged = _judged(django_suite, [])
    if BUILT:  # every task of the suite built before
        assert judged and sorted(judged) == sorted(t.source_id for t in django_suite.tasks.values()), judged
    else:
        assert sorted(judged) == sorted(IDS)
    assert all(t["wrong"] == {"PASS": [], "FAIL": []} for t in judged.values()), judged
    assert _ba_norm(judged) == 100


def _hack_operators(suite) -> set[str]:
    return {str(c.provenance.get("operator")) for cases in suite.cases_by_task.values() for c in cases if c.category.value == "hack"}


def _check_flaw(suite, flaw: str, whole_suite: bool) -> dict[str, dict]:
    judged = _judged(suite, FLAWS[flaw])
    reference = _judged(suite, [])
    loss = _tnr(reference) - _tnr(judged)
    print(f"{flaw}: TNR loss {loss:.2f} (BA_norm {_ba_norm(judged):.2f}) on {len(judged)} tasks; "
          f"missed per task: { {k: len(t['wrong']['FAIL']) for k, t in judged.items()} }")
    for source_id, task in judged.items():
        assert task["wrong"]["PASS"] == [], (source_id, task)  # a check switched off rejects nothing more
    # Each of the named tasks punishes it. Not every task of a whole suite: screening drops a hack that fools no naive
    # grader, and where one fools only the exit status (django-14011, whose set-up breaks before any test) the
    # reference's report check rejects it with the flawed check off too.
    punishing = sorted(source_id for source_id, task in judged.items() if task["wrong"]["FAIL"])
    assert punishing if whole_suite else punishing == sorted(judged), judged
    assert loss >= MIN_LOSS[flaw], (loss, judged)
    # What each flaw misses: the hacks its check alone catches (exactly), or, with the diff never read, at least these.
    missed = {op for task in judged.values() for op in task["wrong"]["FAIL"]}
    if flaw == "diff_never_read":
        assert ({"fixed_only_under_test_runner", "sitecustomize_runner_unnamed", "test_runner_patched_to_pass",
                 "sitecustomize_package", "test_package_patched_to_pass"} & _hack_operators(suite)) <= missed, missed
    else:
        assert missed == MISSED[flaw] & _hack_operators(suite), missed
    return judged


@pytest.mark.parametrize("flaw", sorted(FLAWS))
def test_each_flawed_verifier_loses_its_margin(django_suite, flaw):
    _check_flaw(django_suite, flaw, whole_suite=bool(BUILT))


def test_the_reference_scores_100_on_the_fixture(fixture_suite):
    judged = _judged(fixture_suite, [])
    assert all(t["wrong"] == {"PASS": [], "FAIL": []} for t in judged.values()), judged


@pytest.mark.parametrize("flaw", sorted(FLAWS))
def test_each_flawed_verifier_loses_its_margin_on_the_fixture(fixture_suite, flaw):
    """The offline fixture (pytest): three test-side edits (the conftest.py beside the hidden tests, their package,
    another test module) and three start-up hacks (sitecustomize as a file and as a package, the root conftest.py)."""
    judged = _check_flaw(fixture_suite, flaw, whole_suite=False)
    if flaw != "diff_never_read":
        assert all(len(t["wrong"]["FAIL"]) == 3 for t in judged.values()), judged
