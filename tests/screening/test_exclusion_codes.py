"""Exclusion codes: one letter, one meaning, across the build and the screen; files written with the old letters
(AgentDojo's W, now Z; C5's T, now B) read in today's letters."""

from __future__ import annotations

import json
from types import SimpleNamespace

from verifierbench.screening import reference, run
from verifierbench.leaderboard.suite_tables import table_screening
from verifierbench.suite.exclusions import EXCLUSION_CODES, RENAMED, read_screening
from verifierbench.suite.store import load_suite

# A suite's screening.json and a screen's summary.json as they were written before the renames.
OLD_SCREENING = {
    "excluded": [
        {"task": "agentdojo/banking/user_task_6", "task_id": "vgb-t-1", "code": "W", "evidence": {"reason": "idle passes"}},
        {"task": "swebench/django__django-10097", "task_id": None, "code": "W", "evidence": {"reason": "whole suite"}},
        {"task": "swebench/astropy__astropy-8707", "task_id": None, "code": "T", "evidence": {"reason": "submodule"}},
    ],
    "dropped": [],
}
OLD_SUMMARY = {
    "by_source": {"agentdojo": {"screened": 20, "retained": 19, "excluded_T": 1}},
    "codes": {"L": "C1: ...", "T": "C5: a trivial baseline (always-accept, always-reject, exact-match) is not exposed"},
    "checks": list(run.CHECKS), "mutations": {"by_source": {}}, "hack_potency": {"by_source": {}},
}
BUILD = {"sources": {"agentdojo": {"retained": 20, "excluded": 1}, "swebench": {"retained": 3, "excluded": 2}}}


def test_no_letter_means_two_things():
    assert set(EXCLUSION_CODES).isdisjoint(run.CODE_MEANING)
    assert sorted(run.CODES.values()) == sorted(run.CODE_MEANING)  # every check has its own letter
    assert set(run.RENAMED.values()) <= set(run.CODE_MEANING) and set(run.RENAMED).isdisjoint(run.CODE_MEANING)
    assert set(RENAMED.values()) <= set(EXCLUSION_CODES)


def test_an_old_screening_json_reads_in_todays_letters(tmp_path):
    (tmp_path / "screening.json").write_text(json.dumps(OLD_SCREENING))
    codes = {e["task"]: e["code"] for e in read_screening(tmp_path)["excluded"]}
    assert codes == {"agentdojo/banking/user_task_6": "Z", "swebench/django__django-10097": "W",
                     "swebench/astropy__astropy-8707": "T"}
    assert read_screening(tmp_path / "none") == {"excluded": [], "dropped": []}


def test_table_8_from_old_files_has_one_column_per_meaning(tmp_path):
    (tmp_path / "screening.json").write_text(json.dumps(OLD_SCREENING))
    table = table_screening(SimpleNamespace(manifest=SimpleNamespace(build=BUILD)), tmp_path, OLD_SUMMARY)
    rows = {row[0]: dict(zip(table.columns, row)) for row in table.rows}
    assert rows["agentdojo"]["Build excluded Z"] == 1 and rows["agentdojo"]["Build excluded W"] == 0
    assert rows["swebench"]["Build excluded W"] == 1 and rows["swebench"]["Build excluded T"] == 1
    assert rows["agentdojo"]["Screen excluded B"] == 1 and "Screen excluded T" not in table.columns
    assert f"T = {EXCLUSION_CODES['T']}" in table.note and "B = C5: a trivial baseline" in table.note


def test_table_8_counts_inert_hacks_apart_from_c1_drops(tmp_path):
    """A build drops a draft the reference disagrees with (C1) or a hack that fools no naive verifier (C7 at build
    time); Table 8 and the build's line called both "dropped by C1" (matplotlib-26208's one drop was an inert hack)."""
    from verifierbench.construction.replay import INERT_HACK

    dropped = [{"task": "swebench/matplotlib__matplotlib-26208", "category": "hack", "reason": INERT_HACK},
               {"task": "swebench/django__django-11099", "category": "regression", "reason": "the reference accepts it"},
               {"task": "swebench/django__django-11099", "category": "hack", "reason": INERT_HACK}]
    (tmp_path / "screening.json").write_text(json.dumps({"excluded": [], "dropped": dropped}))
    table = table_screening(SimpleNamespace(manifest=SimpleNamespace(build=BUILD)), tmp_path)
    rows = {row[0]: dict(zip(table.columns, row)) for row in table.rows}
    assert (rows["swebench"]["Cases dropped by C1"], rows["swebench"]["Inert hacks dropped (C7)"]) == (1, 2)
    assert (rows["agentdojo"]["Cases dropped by C1"], rows["agentdojo"]["Inert hacks dropped (C7)"]) == (0, 0)


def test_a_resumed_screen_keeps_an_old_record_in_todays_letters(bfcl_suite, tmp_path):
    suite = load_suite(bfcl_suite)
    task = next(iter(suite.tasks.values()))
    old = {"task_id": task.id, "source": task.source.value, "source_id": task.source_id, "task_hash": task.content_hash,
           "verifier_version": reference.version(task.source.value), "retained": False,
           "checks": {name: name != "C5" for name in run.CHECKS}, "reason": "T", "evidence": {}, "decisions": []}
    (tmp_path / run.RECORDS).write_text(json.dumps(old) + "\n")
    kept = run._kept(tmp_path / run.RECORDS, suite)
    assert kept[task.id]["reason"] == "B"
    assert json.loads((tmp_path / run.RECORDS).read_text())["reason"] == "B"
