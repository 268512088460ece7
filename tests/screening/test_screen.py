"""`verifierbench screen` on the built suite and on copies with deliberate defects."""

from __future__ import annotations

import json


from tests.cli.test_cli import cli
from tests.conftest import private_copy
from verifierbench.core.schema import Category, Label, TestCase
from verifierbench.suite.store import Suite, load_suite, save_suite

TASK = "bfcl/parallel_114"


def screened(suite_dir, out):
    result = cli("screen", "--suite", str(suite_dir), "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    return {t["task_id"]: t for t in json.loads(result.stdout)["tasks"]}


def copy_with(suite_dir, tmp_path, change):
    """A copy of the suite in which `change(cases of TASK)` replaces that task's cases."""
    suite = load_suite(suite_dir)
    task = next(t for t in suite.tasks.values() if f"{t.source.value}/{t.source_id}" == TASK)
    cases = [c for c in suite.cases.values() if c.task_id != task.id] + change(task, suite.cases_by_task[task.id])
    copy = Suite.from_records(suite.manifest.version, suite.tasks.values(), cases, suite.manifest.build)
    save_suite(copy, tmp_path / "copy")
    return tmp_path / "copy", task.id


def test_every_task_of_the_built_suite_passes_all_six_checks(bfcl_suite, tmp_path):
    tasks = screened(private_copy(bfcl_suite, tmp_path), tmp_path / "out")
    assert len(tasks) == len(load_suite(bfcl_suite).tasks)
    assert all(t["retained"] and list(t["checks"]) == ["C1", "C2", "C3", "C4", "C5", "C6", "C7"] and all(t["checks"].values())
               for t in tasks.values())
    records = [json.loads(l) for l in (tmp_path / "out" / "records.jsonl").read_text().splitlines()]
    assert all(d["case_hash"].startswith("sha256:") for r in records for d in r["decisions"])
    assert all(r["verifier_version"].startswith("bfcl-ref:") for r in records)


def test_a_mislabeled_case_fails_c1(bfcl_suite, tmp_path):
    def mislabel(task, cases):
        wrong = next(c for c in cases if c.category is Category.near_miss)
        return cases + [TestCase.create(task_id=task.id, category=Category.cosmetic, candidate={**wrong.candidate, "raw": wrong.candidate["raw"] + " "})]

    copy, task_id = copy_with(bfcl_suite, tmp_path, mislabel)
    record = screened(copy, tmp_path / "out")[task_id]
    assert not record["checks"]["C1"] and record["reason"] == "L" and not record["retained"]
    assert sum(not t["retained"] for t in screened(copy, tmp_path / "out2").values()) == 1


def test_the_same_input_under_opposite_labels_fails_c4(bfcl_suite, tmp_path):
    def duplicate(task, cases):
        negative = next(c for c in cases if c.label is Label.FAIL and c.category is Category.base)
        twin = TestCase.create(task_id=task.id, category=Category.cosmetic, candidate=negative.candidate)
        return cases + [twin]

    copy, task_id = copy_with(bfcl_suite, tmp_path, duplicate)
    assert not screened(copy, tmp_path / "out")[task_id]["checks"]["C4"]


def test_removing_every_negative_fails_c5(bfcl_suite, tmp_path):
    copy, task_id = copy_with(bfcl_suite, tmp_path, lambda task, cases: [c for c in cases if c.label is Label.PASS])
    record = screened(copy, tmp_path / "out")[task_id]
    assert not record["checks"]["C5"] and record["checks"]["C1"]


def test_a_tampered_case_fails_c3(bfcl_suite, tmp_path):
    suite = load_suite(bfcl_suite)
    task = next(t for t in suite.tasks.values() if t.source_id == "parallel_114")
    from verifierbench.screening.run import screen_task

    case = suite.cases_by_task[task.id][0]
    forged = case.model_copy(update={"candidate": {**case.candidate, "raw": "[]"}})
    suite.cases[case.id] = forged
    suite.cases_by_task[task.id][0] = forged
    record = screen_task(task, suite)
    assert not record["checks"]["C3"]


def test_an_interrupted_screen_resumes_where_it_stopped(bfcl_suite, tmp_path, monkeypatch):
    out = tmp_path / "out"
    bfcl_suite = private_copy(bfcl_suite, tmp_path)  # screening writes screened.json into the suite
    screened(bfcl_suite, out)
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[:10]) + lines[10][:40])  # ten finished, one torn
    from verifierbench.screening import run

    screened_now = []
    real = run.screen_task
    monkeypatch.setattr(run, "screen_task", lambda task, suite: screened_now.append(task.id) or real(task, suite))
    calls = []
    records = run.screen(load_suite(bfcl_suite), out, resume=True, on_progress=lambda done, total: calls.append(done))
    assert len(records) == len(lines) and calls[-1] == len(lines)
    assert len(screened_now) == len(lines) - 10  # the ten finished tasks were not screened again
    assert len((out / "records.jsonl").read_text().splitlines()) == len(lines)
    assert [json.loads(l)["task_id"] for l in (out / "records.jsonl").read_text().splitlines()][:10] == [json.loads(l)["task_id"] for l in lines[:10]]


def test_mutation_operators_per_source_meet_the_paper(built, tmp_path):
    result = json.loads(cli("screen", "--suite", str(private_copy(built, tmp_path)), "--out", str(tmp_path / "out"), "--json",
                            timeout=600).stdout)
    mutations = result["mutations"]["by_source"]
    assert mutations["bfcl"]["operators"] >= 9 and mutations["acebench"]["operators"] >= 11  # paper Table 9
    for source, m in mutations.items():
        assert m["detected"] == m["configurations"] > 0, source
    assert all(t["retained"] for t in result["tasks"])


def test_a_mutant_no_case_detects_fails_c6(bfcl_suite, tmp_path):
    # Without the cases whose raw text is not the parsed calls (disagreeing calls, or text around them),
    # dropping that consistency check goes unnoticed.
    raw_attacks = ("raw_disagrees_with_parsed", "parsed_disagrees_with_raw", "verifier_directed_prefix", "verifier_directed_suffix")

    def weaken(task, cases):
        return [c for c in cases if c.provenance.get("operator") not in raw_attacks]

    copy, task_id = copy_with(bfcl_suite, tmp_path, weaken)
    record = screened(copy, tmp_path / "out")[task_id]
    assert not record["checks"]["C6"] and record["reason"] == "M"
    evidence = json.loads(next(l for l in (tmp_path / "out" / "records.jsonl").read_text().splitlines() if task_id in l))["evidence"]["C6"]
    assert "no_raw_check" in evidence["undetected"]


def test_the_inspect_task_runs_only_retained_tasks(bfcl_suite, tmp_path):
    def mislabel(task, cases):
        wrong = next(c for c in cases if c.category is Category.near_miss)
        return cases + [TestCase.create(task_id=task.id, category=Category.cosmetic, candidate={**wrong.candidate, "raw": wrong.candidate["raw"] + " "})]

    copy, task_id = copy_with(bfcl_suite, tmp_path, mislabel)
    from verifierbench.task import verifierbench

    before = {s.id for s in verifierbench(suite=str(copy)).dataset}
    screened(copy, tmp_path / "out")
    after = {s.id for s in verifierbench(suite=str(copy)).dataset}
    assert task_id in before and after == before - {task_id}


def test_the_code_task_passes_all_six_checks_with_five_mutation_operators(code_suite, bwrap_available, tmp_path, traversable_tmp):
    copy = private_copy(code_suite, traversable_tmp / f"screened-code-{tmp_path.name}")  # screening writes into the suite
    (summary,) = screened(copy, tmp_path / "out").values()
    (record,) = [json.loads(line) for line in (tmp_path / "out" / "records.jsonl").read_text().splitlines()]
    assert summary["retained"] and record["retained"] and all(record["checks"].values()), record["evidence"]
    c6 = record["evidence"]["C6"]
    assert c6["operators"] == ["fail_to_pass_unchecked", "pass_to_pass_unchecked", "skips_count_as_passes", "missing_tests_pass",
                               "diff_not_inspected"] and not c6["undetected"]
    assert record["verifier_version"].startswith("swebench-ref:")


def test_an_inert_hack_fails_c7_and_potency_is_reported_per_kind(bfcl_suite, tmp_path):
    """A hack that no naive check accepts (here: a reply with no calls at all, labelled hack) tests nothing: C7 fails,
    the task is excluded with code X, and the summary counts potency per hack kind."""
    def inert(task, cases):
        return cases + [TestCase.create(task_id=task.id, category=Category.hack, candidate={"raw": "", "parsed": []},
                                        provenance={"operator": "inert_for_the_test"})]

    suite_dir, task_id = copy_with(bfcl_suite, tmp_path, inert)
    tasks = screened(suite_dir, tmp_path / "out")
    assert not tasks[task_id]["checks"]["C7"] and tasks[task_id]["reason"] == "X"
    record = next(json.loads(l) for l in (tmp_path / "out" / "records.jsonl").read_text().splitlines() if task_id in l)
    assert [i["operator"] for i in record["evidence"]["C7"]["inert"]] == ["inert_for_the_test"]
    assert all(t["checks"]["C7"] for tid, t in tasks.items() if tid != task_id)
    potency = json.loads((tmp_path / "out" / "summary.json").read_text())["hack_potency"]["by_source"]["bfcl"]
    assert potency["inert_for_the_test"] == {"cases": 1, "potent": 0, "fools": {}}
    assert all(k["potent"] == k["cases"] > 0 for name, k in potency.items() if name != "inert_for_the_test")
