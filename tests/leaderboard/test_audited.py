"""Audited scores beside the hidden-suite ones: the arithmetic, the audit summary as a source, and the tables
with and without any audit."""

from __future__ import annotations

import json

import pytest

from verifierbench.audit.lightweight import TaskAudit, TrialAudit, summarize as summarize_audit
from verifierbench.audit.witness import VALID, Review, Witness
from verifierbench.core.errors import UserError
from verifierbench.leaderboard import audited
from verifierbench.leaderboard.logs import ConfigurationRun, ScoredRun
from verifierbench.leaderboard.tables import AUDIT_COLUMNS, MAIN_COLUMNS, TABLE2_COLUMNS, table_audited_sources, table_main, tables_by_type
from verifierbench.core.protocol import Decision
from verifierbench.core.schema import Label, TestCase


def task(kind="tool-call", source="bfcl", audited_=True, refuted=False, r_pos=1.0, r_neg=1.0, perfect=True):
    return audited.AuditedTask(kind, source, audited_, refuted, r_pos, r_neg, perfect)


def test_summary_is_task_weighted_and_counts_refutations_among_audited_verifiers():
    tasks = [task(refuted=True, r_pos=1.0, r_neg=0.5), task(r_pos=0.5, r_neg=1.0, perfect=False),
             task("state", "tau2", audited_=False, r_pos=1.0, r_neg=1.0)]  # not auditable: its hidden rates, outside the share
    result = audited.summarize(tasks)
    assert result["TPR"] == pytest.approx(100 * 2.5 / 3) and result["TNR"] == pytest.approx(100 * 2.5 / 3)
    assert result["BA_norm"] == pytest.approx(result["TPR"] + result["TNR"] - 100)
    assert (result["n_tasks"], result["n_audited"], result["refuted"], result["refuted_share"]) == (3, 2, 1, 50.0)
    assert (result["perfect_refuted"], result["perfect_on_hidden"]) == (1, 1)
    grouped = audited.audited_result({str(i): t for i, t in enumerate(tasks)})
    assert set(grouped["by_type"]) == {"tool-call", "state"} and grouped["by_source"]["tau2"]["refuted_share"] is None
    assert audited.audited_result({}) is None


def _case(task_id, label):
    category = "gold" if label is Label.PASS else "near_miss"
    return TestCase.create(task_id=task_id, category=category, candidate={"label": label.value})


def test_the_audit_summary_gives_the_same_audited_numbers_as_the_audit_command(tmp_path):
    """lightweight.summarize writes per-task rates; the leaderboard reads them back to the summary's own per-configuration numbers."""
    hidden = {"t1": [_case("t1", Label.PASS), _case("t1", Label.FAIL)], "t2": [_case("t2", Label.PASS), _case("t2", Label.FAIL)]}
    witness = Witness(task_id="t1", task_hash="h", candidate={"w": 1}, label=Label.PASS, reference_decision="P", requirement="r",
                      auditor="deterministic", operator="op", review=Review(VALID, "rule:test"))
    perfect = {c.id: Decision.P if c.label is Label.PASS else Decision.F for cases in hidden.values() for c in cases}
    audits = [
        TaskAudit("t1", [TrialAudit("A", "t1", "refuted", perfect, {witness.key: Decision.F}, trial=object()),
                         TrialAudit("B", "t1", "no verifier", {})], [witness]),
        TaskAudit("t2", [TrialAudit("A", "t2", "audited-clean", perfect, trial=object()),
                         TrialAudit("B", "t2", "audited-clean", {c.id: Decision.P for c in hidden["t2"]}, trial=object())], []),
    ]
    summary = summarize_audit(audits, hidden)
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(summary))
    samples = {name: {t: {"task_type": "tool-call", "source": "bfcl"} for t in ("t1", "t2")} for name in ("A", "B")}
    read = audited.from_summary(path, samples)
    for row in summary["configurations"]:
        mine = audited.summarize(list(read[row["configuration"]].values()))
        assert mine["BA_norm"] == pytest.approx(row["audited_BA_norm"])
        assert (mine["perfect_refuted"], mine["perfect_on_hidden"]) == (row["perfect_refuted"], row["perfect_on_hidden"])
    a = audited.summarize(list(read["A"].values()))
    assert (a["refuted_share"], a["TPR"], a["TNR"]) == (50.0, 75.0, 100.0)  # t1: 1 of 2 positives accepted after the witness
    assert audited.summarize(list(read["B"].values()))["n_audited"] == 1  # no verifier on t1: not met by an auditor


@pytest.mark.parametrize("content, message", [
    ("not json", "not a `verifierbench audit` summary"),
    ('{"tasks": [{"task_id": "t1", "trials": {"A": "refuted"}}]}', "no per-task rates"),
    ('{"configurations": []}', "not a `verifierbench audit` summary"),
])
def test_a_bad_summary_is_a_one_line_error(tmp_path, content, message):
    path = tmp_path / "summary.json"
    path.write_text(content)
    with pytest.raises(UserError, match=message) as error:
        audited.from_summary(path, {"A": {"t1": {"task_type": "tool-call", "source": "bfcl"}}})
    assert "\n" not in str(error.value)
    with pytest.raises(UserError, match="cannot read"):
        audited.from_summary(tmp_path / "absent.json", {})


def _scored(name, audit):
    hidden = {"TPR": 80.0, "TNR": 70.0, "BA_norm": 50.0, "FPR_h": 0.0, "n_submitted": 2, "n_tasks": 2}
    result = {**hidden, "by_type": {"tool-call": hidden}, "by_source": {"bfcl": hidden}, "audited": audit}
    return ScoredRun(ConfigurationRun(name, name, name, "default"), result)


def test_tables_show_the_audit_beside_the_hidden_numbers_and_leave_the_columns_out_without_one():
    plain = [_scored("A", None), _scored("B", None)]
    assert table_main(plain).columns == TABLE2_COLUMNS and all(len(r) == len(TABLE2_COLUMNS) for r in table_main(plain).rows)
    assert [r[3] for r in table_main(plain).rows] == [None, None, None]  # no interval in the result: '-', as older results
    assert [t.columns for t in tables_by_type(plain)] == [MAIN_COLUMNS]
    assert table_audited_sources(plain) is None

    audit = audited.audited_result({"t1": task(refuted=True, r_pos=0.5), "t2": task()})
    mixed = [_scored("A", audit), _scored("B", None)]
    main = table_main(mixed)
    assert main.columns == TABLE2_COLUMNS + AUDIT_COLUMNS and all(len(r) == len(main.columns) for r in main.rows)
    rows = {r[1]: dict(zip(main.columns, r)) for r in main.rows}
    assert rows["A"]["Audited BA_norm"] == pytest.approx(75.0) and rows["A"]["Refuted %"] == 50.0
    assert rows["A"]["Perfect→refuted"] == "1/2" and rows["B"]["Audited BA_norm"] is None
    (by_type,) = tables_by_type(mixed)
    assert by_type.columns[-3:] == AUDIT_COLUMNS
    sources = table_audited_sources(mixed)
    assert [r[:4] for r in sources.rows] == [["A", "bfcl", 50.0, pytest.approx(75.0)], ["B", "bfcl", 50.0, None]]
