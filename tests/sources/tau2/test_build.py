"""The tau2 build: deterministic, 32 tasks (16 per domain, the paper's named tasks first), every category but
process_violation, labels the reference confirms, refusal tasks excluded with code J, nothing hidden leaks."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from verifierbench.core.errors import UserError
from verifierbench.core.hashing import canonical_json
from verifierbench.core.schema import Category, Label
from verifierbench.sources.tau2 import build as tau2_build
from verifierbench.sources.tau2 import data
from verifierbench.sources.tau2.reference import decide


def test_build_is_deterministic_across_processes(selection, state_suite):
    """This process's build and the state suite's (`verifierbench build`, another process, every test run builds it):
    the same tasks and cases, hash for hash, the same exclusions, dropped cases and build record."""
    from verifierbench.suite.store import load_suite

    other = load_suite(state_suite)
    tasks = {t.id: t.content_hash for t in other.tasks.values() if t.source.value == "tau2"}
    assert tasks == {r.task.id: r.task.content_hash for r in selection.retained}
    assert sorted((c.id, c.content_hash, c.category.value) for c in other.cases.values() if c.task_id in tasks) == \
        sorted((c.id, c.content_hash, c.category.value) for r in selection.retained for c in r.cases)
    built = json.loads((state_suite / "manifest.json").read_text())["build"]
    record = built["sources"]["tau2"]  # the build's record, with the counts the suite adds
    assert {key: record[key] for key in selection.record} == json.loads(canonical_json(selection.record))
    assert (record["excluded"], record["dropped_cases"]) == (len(selection.excluded), len(selection.dropped))
    assert [(e["task"], e["code"]) for e in built["excluded"] if e["task"].startswith("tau2/")] == \
        [(e["task"], e["code"]) for e in selection.excluded]


def test_selection_size_domains_and_named_tasks(selection):
    ids = [r.task.source_id for r in selection.retained]
    assert len(ids) == 32 and len(set(ids)) == 32
    assert Counter(i.split("/")[0] for i in ids) == {"retail": 16, "banking_knowledge": 16}
    assert set(tau2_build.NAMED) <= set(ids)
    assert selection.record["seed"] == 0 and selection.record["inspect_evals"] == data.installed_version()


def test_refusal_tasks_are_excluded_with_code_j(selection):
    excluded = {e["task"]: e for e in selection.excluded}
    assert set(excluded) == {f"tau2/{i}" for i in tau2_build.REFUSALS}
    for e in excluded.values():
        assert e["code"] == "J" and e["code"] not in "DGELRHITM" and e["evidence"]["reason"] and e["evidence"]["reference"]


def test_every_category_but_process_violation_and_every_task_has_positive_negative_attack(selection):
    categories = Counter(c.category for r in selection.retained for c in r.cases)
    assert set(categories) == set(Category) - {Category.process_violation}
    for r in selection.retained:
        labels = {c.label for c in r.cases}
        assert Label.PASS in labels and Label.FAIL in labels and any(c.category.is_attack for c in r.cases), r.task.source_id


def test_the_reference_agrees_with_every_kept_label(selection):
    for r in selection.retained:
        for case in r.cases:
            assert decide(r.task.reference, case.candidate)[0] == (case.label == Label.PASS), (r.task.source_id, case.provenance)


def test_no_case_repeats_the_gold(selection):
    for r in selection.retained:
        gold = canonical_json(next(c.candidate for c in r.cases if c.category == Category.gold))
        assert len({canonical_json(c.candidate) for c in r.cases}) == len(r.cases)  # one label per input (C4)
        for case in r.cases:
            if case.category != Category.gold:
                assert canonical_json(case.candidate) != gold


def test_nothing_hidden_is_shown_to_the_verifier_writer(selection):
    for r in selection.retained:
        shown = r.task.instruction + json.dumps(r.task.environment)
        raw = data.task(*data.split_source_id(r.task.source_id))
        assert '"action_id"' not in shown and "evaluation_criteria" not in shown and "compare_args" not in shown
        notes = (raw.get("description") or {}).get("notes")
        assert not notes or notes not in shown
        scenario = json.dumps(raw["user_scenario"])
        for info in raw["evaluation_criteria"].get("communicate_info") or []:
            assert info in scenario or info not in r.task.instruction, (r.task.source_id, info)
        assert r.task.reference["checker"] == "tau2" and r.task.candidate_format.value == "interaction_record"


def test_missing_package_is_one_user_error_line(monkeypatch):
    monkeypatch.setattr(data.util, "find_spec", lambda name: None)
    with pytest.raises(UserError) as error:
        tau2_build.build(0)
    assert "inspect-evals" in str(error.value) and "\n" not in str(error.value)
